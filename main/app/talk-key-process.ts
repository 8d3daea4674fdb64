// The push-to-talk hook's process in the app: Electron's utilityProcess (a Node child that needs no
// RunAsNode fuse), adapted to talk-keys.ts' KeyWorker.
import { utilityProcess } from 'electron';
import { StderrTail, type KeyWorker } from './talk-keys.ts';

export function spawnTalkKeyProcess(workerPath: string): KeyWorker {
  const child = utilityProcess.fork(workerPath, [], {
    stdio: 'pipe',
    serviceName: 'Live Voice Bridge push-to-talk keys',
  });
  const tail = new StderrTail();
  child.stderr?.on('data', (chunk: Buffer) => tail.push(chunk));
  child.stdout?.resume();
  return {
    send: (message) => child.postMessage(message),
    onMessage: (listener) => child.on('message', listener),
    onExit: (listener) => child.on('exit', listener),
    stderrTail: () => tail.toString(),
    kill: () => void child.kill(),
    forceKill: () => {
      if (child.pid === undefined) return;
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}
