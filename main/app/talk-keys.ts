// Push-to-talk needs key-down AND key-up of a global key, which Electron's globalShortcut cannot
// give (it fires once per press). uiohook-napi (a libuiohook binding with prebuilt binaries) hooks
// the keyboard system-wide. It is loaded lazily and may fail (no X display, a Wayland session that
// does not allow global hooks, macOS without the Accessibility permission): then push-to-talk keys
// are off with the reason shown in the tray, and everything else keeps working.
import { parseAccelerator } from './shortcuts.ts';

/** A key event as uiohook reports it. */
export interface HookKeyEvent {
  keycode: number;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
}

/** The part of uiohook-napi this uses (a fake in tests). */
export interface KeyHook {
  on(event: 'keydown' | 'keyup', listener: (e: HookKeyEvent) => void): unknown;
  removeAllListeners(event?: string): unknown;
  start(): void;
  stop(): void;
}

export interface HoldKey {
  keycode: number;
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
  meta: boolean;
}

/** Accelerator key names that differ from uiohook's key names. */
const KEY_NAMES: Record<string, string> = { Esc: 'Escape', Return: 'Enter', Up: 'ArrowUp', Down: 'ArrowDown', Left: 'ArrowLeft', Right: 'ArrowRight', Plus: 'Equal', Capslock: 'CapsLock', Scrolllock: 'ScrollLock', Printscreen: 'PrintScreen', Numlock: 'NumLock' };

/** The hold key an accelerator names, with uiohook's key codes; an error in words when it names none. */
export function holdKeyFor(accelerator: string, platform: NodeJS.Platform, keycodes: Readonly<Record<string, number>>): HoldKey | { error: string } {
  const parsed = parseAccelerator(accelerator, platform);
  if (!parsed) return { error: `${accelerator} is not a key (write it like F13 or CommandOrControl+Alt+Shift+F12)` };
  const name = KEY_NAMES[parsed.key] ?? parsed.key;
  const keycode = keycodes[name];
  if (keycode === undefined) return { error: `the push-to-talk hook does not know the key ${parsed.key}` };
  const has = (m: string) => parsed.modifiers.includes(m);
  return { keycode, ctrl: has('Ctrl'), alt: has('Alt'), shift: has('Shift'), meta: has('Cmd') || has('Super') };
}

/**
 * Turns the hook's key stream into press/release of the talk key. Held = the key down with exactly
 * its modifiers; released = the key up, or one of its modifiers up (whichever comes first). Key
 * repeat (many downs while held) is one press.
 */
export class HoldTracker {
  readonly #key: HoldKey;
  #held = false;

  constructor(key: HoldKey) {
    this.#key = key;
  }

  get held(): boolean {
    return this.#held;
  }

  /** 'press' when this down starts a hold. */
  down(e: HookKeyEvent): 'press' | null {
    if (this.#held || e.keycode !== this.#key.keycode) return null;
    const k = this.#key;
    if (e.ctrlKey !== k.ctrl || e.altKey !== k.alt || e.shiftKey !== k.shift || e.metaKey !== k.meta) return null;
    this.#held = true;
    return 'press';
  }

  /** 'release' when this up ends a hold (the key, or any key while held whose release drops a needed modifier). */
  up(e: HookKeyEvent): 'release' | null {
    if (!this.#held) return null;
    const k = this.#key;
    const modifierDropped = (k.ctrl && !e.ctrlKey) || (k.alt && !e.altKey) || (k.shift && !e.shiftKey) || (k.meta && !e.metaKey);
    if (e.keycode !== k.keycode && !modifierDropped) return null;
    this.#held = false;
    return 'release';
  }

  /** Forget a hold (the hook stopped): returns true when one was in progress. */
  reset(): boolean {
    const was = this.#held;
    this.#held = false;
    return was;
  }
}

/** Why a global hook cannot work in this session, before trying (trying could hang or crash on some). */
export function hookUnavailableReason(platform: NodeJS.Platform, env: Readonly<Record<string, string | undefined>>): string | null {
  if (platform !== 'linux') return null;
  if (!env.DISPLAY && env.WAYLAND_DISPLAY) return 'a Wayland session without X11 allows no global key hooks; use the dashboard or `live-voice-bridge ptt down|up`';
  if (!env.DISPLAY) return 'no X display ($DISPLAY is not set), so global keys cannot be read';
  return null;
}

export type TalkKeysStatus = { available: true; key: string } | { available: false; reason: string };

export interface TalkKeysOptions {
  accelerator: string;
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  /** Loads the hook library (a dynamic import of uiohook-napi in the app). */
  load: () => Promise<{ hook: KeyHook; keycodes: Readonly<Record<string, number>> }>;
  onHold: (held: boolean) => void;
}

export interface TalkKeys {
  status: TalkKeysStatus;
  stop(): void;
}

/** Start the hold key, or say why it is off; never throws. */
export async function startTalkKeys(options: TalkKeysOptions): Promise<TalkKeys> {
  const off = (reason: string): TalkKeys => ({ status: { available: false, reason }, stop: () => undefined });
  const unavailable = hookUnavailableReason(options.platform, options.env);
  if (unavailable) return off(unavailable);
  let loaded: Awaited<ReturnType<TalkKeysOptions['load']>>;
  try {
    loaded = await options.load();
  } catch (err) {
    return off(`the key hook (uiohook-napi) did not load: ${err instanceof Error ? err.message : String(err)}`);
  }
  const key = holdKeyFor(options.accelerator, options.platform, loaded.keycodes);
  if ('error' in key) return off(key.error);
  const tracker = new HoldTracker(key);
  const { hook } = loaded;
  hook.on('keydown', (e) => {
    if (tracker.down(e)) options.onHold(true);
  });
  hook.on('keyup', (e) => {
    if (tracker.up(e)) options.onHold(false);
  });
  try {
    hook.start();
  } catch (err) {
    hook.removeAllListeners();
    return off(`the key hook did not start: ${err instanceof Error ? err.message : String(err)}`);
  }
  return {
    status: { available: true, key: options.accelerator },
    stop() {
      hook.removeAllListeners('keydown');
      hook.removeAllListeners('keyup');
      try {
        hook.stop();
      } catch {
        // Stopping at quit: nothing left to do.
      }
      if (tracker.reset()) options.onHold(false);
    },
  };
}
