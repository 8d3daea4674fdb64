import { describe, expect, it, vi } from 'vitest';
import { SHORTCUTS } from '../../../main/app/shortcuts.ts';
import {
  holdKeyFor,
  HoldTracker,
  hookUnavailableReason,
  KILL_GRACE_MS,
  startTalkKeys,
  type HookKeyEvent,
  type KeyWorker,
  type WorkerStart,
} from '../../../main/app/talk-keys.ts';

const KEYCODES = { F12: 88, F13: 91, Space: 57, ArrowUp: 57416 };
const NONE = { altKey: false, ctrlKey: false, metaKey: false, shiftKey: false };
const ev = (keycode: number, mods: Partial<HookKeyEvent> = {}): HookKeyEvent => ({ keycode, ...NONE, ...mods });

/** An in-process stand-in for the hook's child process: the test plays the child's part. */
class FakeWorker implements KeyWorker {
  started: WorkerStart | null = null;
  killed = false;
  stderr = '';
  #onMessage: (m: unknown) => void = () => undefined;
  #onExit: (code: number | null) => void = () => undefined;
  send(message: WorkerStart) {
    this.started = message;
  }
  onMessage(listener: (m: unknown) => void) {
    this.#onMessage = listener;
  }
  onExit(listener: (code: number | null) => void) {
    this.#onExit = listener;
  }
  stderrTail() {
    return this.stderr;
  }
  kill() {
    this.killed = true;
  }
  forceKill?: () => void;
  say(message: unknown) {
    this.#onMessage(message);
  }
  exit(code: number | null) {
    this.#onExit(code);
  }
}

/** Lets startTalkKeys send 'start' before the fake child answers. */
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('push-to-talk hold key', () => {
  it("maps accelerators to the hook's key codes", () => {
    expect(holdKeyFor('CommandOrControl+Alt+Shift+F12', 'linux', KEYCODES)).toEqual({
      keycode: 88,
      ctrl: true,
      alt: true,
      shift: true,
      meta: false,
    });
    expect(holdKeyFor('CommandOrControl+F12', 'darwin', KEYCODES)).toEqual({
      keycode: 88,
      ctrl: false,
      alt: false,
      shift: false,
      meta: true,
    });
    expect(holdKeyFor('Up', 'linux', KEYCODES)).toMatchObject({ keycode: 57416 });
    // The default talk key is one key held with one finger (no modifier chord): Scroll Lock, uiohook's key 70.
    const talkDefault = SHORTCUTS.find((s) => s.id === 'talk')!.defaultAccelerator;
    for (const platform of ['linux', 'win32', 'darwin'] as const)
      expect(holdKeyFor(talkDefault, platform, { ...KEYCODES, ScrollLock: 70 })).toEqual({
        keycode: 70,
        ctrl: false,
        alt: false,
        shift: false,
        meta: false,
      });
    expect(holdKeyFor('Ctrl+Nope', 'linux', KEYCODES)).toEqual({
      error: 'the push-to-talk hook does not know the key Nope',
    });
  });

  it('press on the key with its modifiers; repeats are one press; release on key-up or a modifier up', () => {
    const tracker = new HoldTracker({ keycode: 88, ctrl: true, alt: false, shift: true, meta: false });
    expect(tracker.down(ev(88, { ctrlKey: true }))).toBeNull(); // Shift missing
    expect(tracker.down(ev(88, { ctrlKey: true, shiftKey: true }))).toBe('press');
    expect(tracker.down(ev(88, { ctrlKey: true, shiftKey: true }))).toBeNull(); // auto-repeat
    expect(tracker.up(ev(57, { ctrlKey: true, shiftKey: true }))).toBeNull(); // another key
    expect(tracker.up(ev(42, { ctrlKey: true, shiftKey: false }))).toBe('release'); // Shift let go first
    expect(tracker.up(ev(88))).toBeNull();
  });

  it('says why hooks cannot work on Linux without X, before trying', () => {
    expect(hookUnavailableReason('linux', { WAYLAND_DISPLAY: 'wayland-0' })).toMatch(/^a Wayland session/);
    expect(hookUnavailableReason('linux', {})).toMatch(/^no X display/);
    expect(hookUnavailableReason('linux', { DISPLAY: ':0', WAYLAND_DISPLAY: 'wayland-0' })).toBeNull(); // XWayland
    expect(hookUnavailableReason('darwin', {})).toBeNull();
  });

  it('starts the hook process and reports holds; stop releases a hold in progress', async () => {
    const worker = new FakeWorker();
    const holds: boolean[] = [];
    const starting = startTalkKeys({
      accelerator: 'F13',
      platform: 'linux',
      env: { DISPLAY: ':0' },
      spawn: () => worker,
      onHold: (h) => holds.push(h),
    });
    await tick();
    expect(worker.started).toEqual({ type: 'start', accelerator: 'F13', platform: 'linux' });
    worker.say({ type: 'ready' });
    const keys = await starting;
    expect(keys.status).toEqual({ available: true, key: 'F13' });
    worker.say({ type: 'hold', held: true });
    worker.say({ type: 'hold', held: true }); // a repeat changes nothing
    worker.say({ type: 'hold', held: false });
    worker.say({ type: 'hold', held: 'yes' }); // malformed: ignored
    worker.say({ type: 'hold', held: true });
    keys.stop();
    expect(holds).toEqual([true, false, true, false]);
    expect(worker.killed).toBe(true);
  });

  it('never throws or hangs: an error, a crash at start, a hung start or a later crash turn the keys off with the reason', async () => {
    const refused = new FakeWorker();
    const a = startTalkKeys({
      accelerator: 'Ctrl+Nope',
      platform: 'win32',
      env: {},
      spawn: () => refused,
      onHold: () => undefined,
    });
    await tick();
    refused.say({ type: 'error', reason: 'the push-to-talk hook does not know the key Nope' });
    expect((await a).status).toEqual({ available: false, reason: 'the push-to-talk hook does not know the key Nope' });

    const crashed = new FakeWorker();
    crashed.stderr =
      'Xlib:  extension "RECORD" missing on display ":58".\nxrecord_query [953]: XRecord is not currently available!\n';
    const b = startTalkKeys({
      accelerator: 'F13',
      platform: 'linux',
      env: { DISPLAY: ':58' },
      spawn: () => crashed,
      onHold: () => undefined,
    });
    await tick();
    crashed.exit(134);
    expect((await b).status).toEqual({
      available: false,
      reason: 'the key hook stopped (exit code 134) (xrecord_query [953]: XRecord is not currently available!)',
    });

    const hung = new FakeWorker();
    const c = await startTalkKeys({
      accelerator: 'F13',
      platform: 'linux',
      env: { DISPLAY: ':99' },
      spawn: () => hung,
      onHold: () => undefined,
      readyTimeoutMs: 50,
    });
    expect(c.status).toEqual({
      available: false,
      reason: 'the key hook did not start within 0 s: the X display may not answer',
    });
    expect(hung.killed).toBe(true);

    const failedSpawn = await startTalkKeys({
      accelerator: 'F13',
      platform: 'darwin',
      env: {},
      spawn: () => {
        throw new Error('no utility process');
      },
      onHold: () => undefined,
    });
    expect(failedSpawn.status).toEqual({
      available: false,
      reason: 'the key hook process did not start: no utility process',
    });

    const wayland = await startTalkKeys({
      accelerator: 'F13',
      platform: 'linux',
      env: { WAYLAND_DISPLAY: 'w' },
      spawn: () => {
        throw new Error('must not spawn');
      },
      onHold: () => undefined,
    });
    expect(wayland.status.available).toBe(false);

    const later = new FakeWorker();
    const holds: boolean[] = [];
    const lost: string[] = [];
    const d = startTalkKeys({
      accelerator: 'F13',
      platform: 'linux',
      env: { DISPLAY: ':0' },
      spawn: () => later,
      onHold: (h) => holds.push(h),
      onLost: (r) => lost.push(r),
    });
    await tick();
    later.say({ type: 'ready' });
    await d;
    later.say({ type: 'hold', held: true });
    later.exit(null);
    expect(holds).toEqual([true, false]); // a hold never outlives the hook
    expect(lost).toEqual(['the key hook stopped (exit code unknown)']);
  });
});

describe('the key hook process is ended with the app', () => {
  it('SIGTERM on stop, then SIGKILL when it has not exited after the grace period; never SIGKILL once it exited', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const stuck = new FakeWorker();
      let forced = 0;
      stuck.forceKill = () => void forced++;
      const starting = startTalkKeys({
        accelerator: 'F13',
        platform: 'linux',
        env: { DISPLAY: ':0' },
        spawn: () => stuck,
        onHold: () => undefined,
      });
      await tick();
      stuck.say({ type: 'ready' });
      const keys = await starting;
      keys.stop();
      expect(stuck.killed).toBe(true);
      expect(forced).toBe(0);
      vi.advanceTimersByTime(KILL_GRACE_MS);
      expect(forced).toBe(1);

      const polite = new FakeWorker();
      let politeForced = 0;
      polite.forceKill = () => void politeForced++;
      const second = startTalkKeys({
        accelerator: 'F13',
        platform: 'linux',
        env: { DISPLAY: ':0' },
        spawn: () => polite,
        onHold: () => undefined,
      });
      await tick();
      polite.say({ type: 'ready' });
      (await second).stop();
      polite.exit(0);
      vi.advanceTimersByTime(KILL_GRACE_MS);
      expect(politeForced).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
