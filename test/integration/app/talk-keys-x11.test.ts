// The push-to-talk hook for real: the worker process with the real uiohook-napi on a real X server
// (Xvfb), keys pressed with xdotool (XTEST), holds read back through startTalkKeys. Also the two ways
// libuiohook takes its process down, measured here: an X server without the RECORD extension
// (abort) and a $DISPLAY with no server behind it (abort; seen to block in start() instead at times):
// the app only sees a reason.
// Needs Xvfb and xdotool (apt: xvfb xdotool); without them it says so and skips.
import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { StderrTail, startTalkKeys, type KeyWorker } from '../../../main/app/talk-keys.ts';

const WORKER = path.resolve('main/app/talk-key-worker.ts');
const have = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const missing = ['Xvfb', 'xdotool'].filter((tool) => !have(tool));
if (missing.length)
  console.log(`skipped: ${missing.join(' and ')} not installed (apt-get install xvfb xdotool), so no X server to hook`);

const servers: ChildProcess[] = [];
const workers: ChildProcess[] = [];
afterEach(() => {
  for (const child of [...workers, ...servers]) child.kill();
  workers.length = 0;
  servers.length = 0;
});

/** A private Xvfb on a free display number; resolves once its socket exists. */
async function startXvfb(record: boolean): Promise<string> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const n = 200 + Math.floor(Math.random() * 700);
    if (existsSync(`/tmp/.X11-unix/X${n}`) || existsSync(`/tmp/.X${n}-lock`)) continue;
    const server = spawn(
      'Xvfb',
      [`:${n}`, '-screen', '0', '320x240x24', '-nolisten', 'tcp', record ? '+extension' : '-extension', 'RECORD'],
      { stdio: 'ignore' },
    );
    servers.push(server);
    for (let i = 0; i < 100 && !existsSync(`/tmp/.X11-unix/X${n}`); i++) await sleep(50);
    if (existsSync(`/tmp/.X11-unix/X${n}`)) return `:${n}`;
  }
  throw new Error('no free X display number');
}

/** The worker as a plain Node child (the app uses Electron's utilityProcess; same messages). */
function forkWorker(display: string): KeyWorker {
  const child = fork(WORKER, [], {
    env: { ...process.env, DISPLAY: display },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  workers.push(child);
  const tail = new StderrTail();
  child.stderr?.on('data', (chunk: Buffer) => tail.push(chunk));
  return {
    send: (message) => child.send(message),
    onMessage: (listener) => child.on('message', listener),
    onExit: (listener) => child.on('exit', (code, signal) => listener(code ?? (signal ? 128 : null))),
    stderrTail: () => tail.toString(),
    kill: () => void child.kill(),
  };
}

const xdotool = (display: string, ...args: string[]) =>
  spawnSync('xdotool', args, { env: { ...process.env, DISPLAY: display } });

describe.skipIf(missing.length > 0)('push-to-talk hook on a real X server', () => {
  it('holding the key (with its modifiers) is a hold; letting go is a release', async () => {
    const display = await startXvfb(true);
    const holds: boolean[] = [];
    const keys = await startTalkKeys({
      accelerator: 'CommandOrControl+Shift+F12',
      platform: 'linux',
      env: { DISPLAY: display },
      spawn: () => forkWorker(display),
      onHold: (h) => holds.push(h),
      readyTimeoutMs: 10_000,
    });
    expect(keys.status).toEqual({ available: true, key: 'CommandOrControl+Shift+F12' });
    xdotool(display, 'keydown', 'F12'); // without its modifiers: not the talk key
    xdotool(display, 'keyup', 'F12');
    xdotool(display, 'keydown', 'ctrl+shift+F12');
    for (let i = 0; i < 100 && holds.length < 1; i++) await sleep(20);
    expect(holds).toEqual([true]);
    xdotool(display, 'keyup', 'F12');
    xdotool(display, 'keyup', 'ctrl+shift');
    for (let i = 0; i < 100 && holds.length < 2; i++) await sleep(20);
    expect(holds).toEqual([true, false]);
    keys.stop();
  }, 30_000);

  it('an X server without RECORD: libuiohook aborts (or hangs in) its process, the app gets the reason', async () => {
    const display = await startXvfb(false);
    const keys = await startTalkKeys({
      accelerator: 'F12',
      platform: 'linux',
      env: { DISPLAY: display },
      spawn: () => forkWorker(display),
      onHold: () => undefined,
      readyTimeoutMs: 5000,
    });
    expect(keys.status.available).toBe(false);
    // Seen both ways on this machine: the process aborts at once, or start() never returns.
    expect(keys.status.available === false && keys.status.reason).toMatch(
      /^the key hook (stopped \(exit code \d+\)|did not start within 5 s) \(.*XRecord is not currently available!\)$/,
    );
  }, 30_000);

  it('a $DISPLAY with no server: the hook dies (or hangs); the app gets the reason, at worst after the timeout', async () => {
    const keys = await startTalkKeys({
      accelerator: 'F12',
      platform: 'linux',
      env: { DISPLAY: ':1999' },
      spawn: () => forkWorker(':1999'),
      onHold: () => undefined,
      readyTimeoutMs: 3000,
    });
    expect(keys.status.available).toBe(false);
    expect(keys.status.available === false && keys.status.reason).toMatch(
      /^the key hook (did not start within 3 s|stopped)/,
    );
  }, 30_000);
});
