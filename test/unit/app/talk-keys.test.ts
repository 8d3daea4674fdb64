import { describe, expect, it } from 'vitest';
import { holdKeyFor, HoldTracker, hookUnavailableReason, startTalkKeys, type HookKeyEvent, type KeyHook } from '../../../main/app/talk-keys.ts';

const KEYCODES = { F12: 88, F13: 91, Space: 57, ArrowUp: 57416 };
const NONE = { altKey: false, ctrlKey: false, metaKey: false, shiftKey: false };
const ev = (keycode: number, mods: Partial<HookKeyEvent> = {}): HookKeyEvent => ({ keycode, ...NONE, ...mods });

class FakeHook implements KeyHook {
  listeners: Record<string, ((e: HookKeyEvent) => void)[]> = {};
  started = false;
  failStart: Error | null = null;
  on(event: 'keydown' | 'keyup', listener: (e: HookKeyEvent) => void) {
    (this.listeners[event] ??= []).push(listener);
    return this;
  }
  removeAllListeners(event?: string) {
    if (event) delete this.listeners[event];
    else this.listeners = {};
    return this;
  }
  start() {
    if (this.failStart) throw this.failStart;
    this.started = true;
  }
  stop() {
    this.started = false;
  }
  emit(event: 'keydown' | 'keyup', e: HookKeyEvent) {
    for (const l of this.listeners[event] ?? []) l(e);
  }
}

describe('push-to-talk hold key', () => {
  it('maps accelerators to the hook\'s key codes', () => {
    expect(holdKeyFor('CommandOrControl+Alt+Shift+F12', 'linux', KEYCODES)).toEqual({ keycode: 88, ctrl: true, alt: true, shift: true, meta: false });
    expect(holdKeyFor('CommandOrControl+F12', 'darwin', KEYCODES)).toEqual({ keycode: 88, ctrl: false, alt: false, shift: false, meta: true });
    expect(holdKeyFor('Up', 'linux', KEYCODES)).toMatchObject({ keycode: 57416 });
    expect(holdKeyFor('Ctrl+Nope', 'linux', KEYCODES)).toEqual({ error: 'the push-to-talk hook does not know the key Nope' });
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

  it('starts the hook and reports holds; stop releases a hold in progress', async () => {
    const hook = new FakeHook();
    const holds: boolean[] = [];
    const keys = await startTalkKeys({ accelerator: 'F13', platform: 'linux', env: { DISPLAY: ':0' }, load: async () => ({ hook, keycodes: KEYCODES }), onHold: (h) => holds.push(h) });
    expect(keys.status).toEqual({ available: true, key: 'F13' });
    expect(hook.started).toBe(true);
    hook.emit('keydown', ev(91));
    hook.emit('keyup', ev(91));
    hook.emit('keydown', ev(91));
    keys.stop();
    expect(holds).toEqual([true, false, true, false]);
    expect(hook.started).toBe(false);
  });

  it('never throws: a library that fails to load or start turns the keys off with the reason', async () => {
    const failedLoad = await startTalkKeys({ accelerator: 'F13', platform: 'win32', env: {}, load: () => Promise.reject(new Error('no prebuilt binary')), onHold: () => undefined });
    expect(failedLoad.status).toEqual({ available: false, reason: 'the key hook (uiohook-napi) did not load: no prebuilt binary' });
    const hook = new FakeHook();
    hook.failStart = new Error('Accessibility permission missing');
    const failedStart = await startTalkKeys({ accelerator: 'F13', platform: 'darwin', env: {}, load: async () => ({ hook, keycodes: KEYCODES }), onHold: () => undefined });
    expect(failedStart.status).toEqual({ available: false, reason: 'the key hook did not start: Accessibility permission missing' });
    expect(hook.listeners).toEqual({});
    const wayland = await startTalkKeys({ accelerator: 'F13', platform: 'linux', env: { WAYLAND_DISPLAY: 'w' }, load: () => Promise.reject(new Error('must not load')), onHold: () => undefined });
    expect(wayland.status.available).toBe(false);
  });
});
