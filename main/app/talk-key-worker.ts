// The push-to-talk key hook's own process (see talk-keys.ts for why it is a process): loads
// uiohook-napi, waits for {type:'start', accelerator, platform}, then reports 'ready' (or 'error'
// with the reason) and each press/release as {type:'hold', held}. Runs under Electron's
// utilityProcess (process.parentPort) in the app and under child_process.fork (process.send) in tests.
import type * as UiohookNapi from 'uiohook-napi';
import { HoldTracker, holdKeyFor, WorkerStart, type HookKeyEvent, type WorkerMessage } from './talk-keys.ts';

interface ParentPort {
  on(event: 'message', listener: (event: { data: unknown }) => void): void;
  postMessage(message: unknown): void;
}
const parentPort = (process as unknown as { parentPort?: ParentPort }).parentPort;

function post(message: WorkerMessage): void {
  if (parentPort) parentPort.postMessage(message);
  else process.send?.(message);
}

function onStart(listener: (message: unknown) => void): void {
  if (parentPort) parentPort.on('message', (event) => listener(event.data));
  else process.on('message', listener);
}

onStart(async (raw) => {
  const start = WorkerStart.safeParse(raw);
  if (!start.success) return;
  let hookModule: typeof UiohookNapi;
  try {
    hookModule = await import('uiohook-napi');
  } catch (err) {
    return post({
      type: 'error',
      reason: `the key hook (uiohook-napi) did not load: ${err instanceof Error ? err.message : String(err)}`,
    });
  }
  const { uIOhook, UiohookKey } = hookModule;
  const key = holdKeyFor(
    start.data.accelerator,
    start.data.platform as NodeJS.Platform,
    UiohookKey as unknown as Record<string, number>,
  );
  if ('error' in key) return post({ type: 'error', reason: key.error });
  const tracker = new HoldTracker(key);
  uIOhook.on('keydown', (e: HookKeyEvent) => {
    if (tracker.down(e)) post({ type: 'hold', held: true });
  });
  uIOhook.on('keyup', (e: HookKeyEvent) => {
    if (tracker.up(e)) post({ type: 'hold', held: false });
  });
  try {
    uIOhook.start();
  } catch (err) {
    return post({
      type: 'error',
      reason: `the key hook did not start: ${err instanceof Error ? err.message : String(err)}`,
    });
  }
  post({ type: 'ready' });
});

// The parent going away (fork channel closed) ends the hook with it.
process.on('disconnect', () => process.exit(0));
