// Drive the demo as a user does: start it, read what it prints, paste its lines into a shell, end it
// with a signal. Shared by the demo test (this checkout) and the fresh-clone test (a stock machine).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

export interface DemoSession {
  child: ChildProcess;
  /** Everything printed on stdout so far. */
  out(): string;
  err(): string;
  /** Resolves once the demo printed its paste block (the call is up), with the lines in it. */
  ready: Promise<{ dashboardUrl: string; pasteLines: string[]; fakesPid: number }>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Start `command` in bash, in its own process group (like a terminal job), in `cwd` with `env`. */
export function startDemo(
  command: string,
  options: { cwd: string; env: NodeJS.ProcessEnv; readyTimeoutMs: number },
): DemoSession {
  const child = spawn('bash', ['-c', command], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<{ dashboardUrl: string; pasteLines: string[]; fakesPid: number }>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(new Error(`the demo printed no paste block within ${options.readyTimeoutMs / 1000} s:\n${out}\n${err}`)),
      options.readyTimeoutMs,
    );
    const check = () => {
      const block = /In another terminal, paste:\n((?: {2}.*\n)+)\n/.exec(out);
      if (!block) return;
      clearTimeout(timer);
      const dashboardUrl = /Dashboard \(a one-time login link\):\n {2}(\S+)/.exec(out)?.[1] ?? '';
      const fakesPid = Number(/ run in process (\d+);/.exec(out)?.[1] ?? 0);
      resolve({
        dashboardUrl,
        fakesPid,
        pasteLines: block[1]!
          .split('\n')
          .filter(Boolean)
          .map((line) => line.slice(2)),
      });
    };
    child.stdout!.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the demo exited before it was up:\n${out}\n${err}`));
    });
  });
  ready.catch(() => undefined);
  return { child, out: () => out, err: () => err, ready, exited };
}

/** Run the pasted lines in one fresh bash, as a user pasting them into another terminal would. */
/**
 * The demo's people go on talking, so a pasted announce or ask may be cut by one of them: exit 4 and
 * `cut` are then the true outcome (README exit codes), not a failure of the pasted line. Each such
 * line accepts exit 4 and nothing else; every other line must still exit 0.
 */
export function acceptCut(lines: string[]): string[] {
  return lines.map((line) => (/^live-voice-bridge (announce|ask) /.test(line) ? `${line} || [ $? -eq 4 ]` : line));
}

export function runPasted(
  lines: string[],
  env: NodeJS.ProcessEnv,
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('bash', ['-e', '-c', lines.join('\n')], { env, encoding: 'utf8', timeout: 120_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Send a signal to the demo's whole process group, as Ctrl-C in its terminal does. */
export function signalGroup(session: DemoSession, signal: NodeJS.Signals): void {
  if (session.child.pid) process.kill(-session.child.pid, signal);
}

export function processAlive(pid: number): boolean {
  if (!(pid > 0)) throw new Error(`not a process id: ${pid}`);
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
