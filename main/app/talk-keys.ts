// Push-to-talk needs key-down AND key-up of a global key, which Electron's globalShortcut cannot
// give (it fires once per press). uiohook-napi (a libuiohook binding with prebuilt binaries) hooks
// the keyboard system-wide. It is loaded lazily and may fail (no X display, a Wayland session that
// does not allow global hooks, macOS without the Accessibility permission): then push-to-talk keys
// are off with the reason shown in the tray, and everything else keeps working.
import { z } from 'zod';
import { parseAccelerator } from './shortcuts.ts';

/** A key event as uiohook reports it. */
export interface HookKeyEvent {
  keycode: number;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
}

export interface HoldKey {
  keycode: number;
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
  meta: boolean;
}

/** Accelerator key names that differ from uiohook's key names. */
const KEY_NAMES: Record<string, string> = {
  Esc: 'Escape',
  Return: 'Enter',
  Up: 'ArrowUp',
  Down: 'ArrowDown',
  Left: 'ArrowLeft',
  Right: 'ArrowRight',
  Plus: 'Equal',
  Capslock: 'CapsLock',
  Scrolllock: 'ScrollLock',
  Printscreen: 'PrintScreen',
  Numlock: 'NumLock',
};

/** The hold key an accelerator names, with uiohook's key codes; an error in words when it names none. */
export function holdKeyFor(
  accelerator: string,
  platform: NodeJS.Platform,
  keycodes: Readonly<Record<string, number>>,
): HoldKey | { error: string } {
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
    const modifierDropped =
      (k.ctrl && !e.ctrlKey) || (k.alt && !e.altKey) || (k.shift && !e.shiftKey) || (k.meta && !e.metaKey);
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

/** Why a global hook cannot work in this session, before trying. */
export function hookUnavailableReason(
  platform: NodeJS.Platform,
  env: Readonly<Record<string, string | undefined>>,
): string | null {
  if (platform !== 'linux') return null;
  if (!env.DISPLAY && env.WAYLAND_DISPLAY)
    return 'a Wayland session without X11 allows no global key hooks; use the dashboard or `live-voice-bridge ptt down|up`';
  if (!env.DISPLAY) return 'no X display ($DISPLAY is not set), so global keys cannot be read';
  return null;
}

// ---------------------------------------------------------------------------------------------
// The hook runs in its own process (talk-key-worker.ts): measured here, libuiohook ABORTS the whole
// process when the X server lacks the RECORD extension or no display opens, and blocks forever in
// start() when $DISPLAY names a server that does not answer. In a child, each of those is a reason
// shown in the tray instead of a dead or frozen app.

export const WorkerMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('error'), reason: z.string().max(500) }),
  z.object({ type: z.literal('hold'), held: z.boolean() }),
]);
export type WorkerMessage = z.infer<typeof WorkerMessage>;

export const WorkerStart = z.object({
  type: z.literal('start'),
  accelerator: z.string().max(100),
  platform: z.string().max(20),
});
export type WorkerStart = z.infer<typeof WorkerStart>;

/** The child process running the hook (Electron's utilityProcess in the app, child_process.fork in tests). */
export interface KeyWorker {
  send(message: WorkerStart): void;
  onMessage(listener: (message: unknown) => void): void;
  onExit(listener: (code: number | null) => void): void;
  /** The child's last words on stderr (libuiohook prints why it failed there). */
  stderrTail(): string;
  /** Ask it to end (SIGTERM). */
  kill(): void;
  /** End it now (SIGKILL): used when it has not exited `KILL_GRACE_MS` after kill(). */
  forceKill?(): void;
}

/** How long the hook's process has to exit after SIGTERM before it is SIGKILLed. */
export const KILL_GRACE_MS = 1000;

export type TalkKeysStatus = { available: true; key: string } | { available: false; reason: string };

export interface TalkKeysOptions {
  accelerator: string;
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  spawn: () => KeyWorker;
  onHold: (held: boolean) => void;
  /** Told when the hook stops after it started (the child died): the tray shows the reason. */
  onLost?: (reason: string) => void;
  /** How long the hook may take to start before it counts as hung (a $DISPLAY that does not answer). */
  readyTimeoutMs?: number;
}

export interface TalkKeys {
  status: TalkKeysStatus;
  stop(): void;
}

/** Start the hold key in its own process, or say why it is off; never throws, never blocks the caller's thread. */
export async function startTalkKeys(options: TalkKeysOptions): Promise<TalkKeys> {
  const off = (reason: string): TalkKeys => ({ status: { available: false, reason }, stop: () => undefined });
  const unavailable = hookUnavailableReason(options.platform, options.env);
  if (unavailable) return off(unavailable);
  let worker: KeyWorker;
  try {
    worker = options.spawn();
  } catch (err) {
    return off(`the key hook process did not start: ${err instanceof Error ? err.message : String(err)}`);
  }
  let held = false;
  let stopped = false;
  let started = false;
  let exited = false;
  // SIGTERM, a bounded wait, then SIGKILL: the hook never outlives the app, whatever it is stuck in.
  const end = (): void => {
    worker.kill();
    if (!worker.forceKill) return;
    setTimeout(() => {
      if (!exited) worker.forceKill!();
    }, KILL_GRACE_MS);
  };
  const lastWords = () => {
    const tail = worker.stderrTail().trim().split('\n').at(-1)?.trim();
    return tail ? ` (${tail})` : '';
  };
  const status = await new Promise<TalkKeysStatus>((resolve) => {
    const timer = setTimeout(() => {
      end();
      const said = lastWords();
      resolve({
        available: false,
        reason: `the key hook did not start within ${Math.round((options.readyTimeoutMs ?? 5000) / 1000)} s${said || ': the X display may not answer'}`,
      });
    }, options.readyTimeoutMs ?? 5000);
    worker.onMessage((raw) => {
      const parsed = WorkerMessage.safeParse(raw);
      if (!parsed.success) return;
      const message = parsed.data;
      if (message.type === 'ready') {
        clearTimeout(timer);
        started = true;
        resolve({ available: true, key: options.accelerator });
      } else if (message.type === 'error') {
        clearTimeout(timer);
        end();
        resolve({ available: false, reason: message.reason });
      } else if (started && !stopped && message.held !== held) {
        held = message.held;
        options.onHold(held);
      }
    });
    worker.onExit((code) => {
      exited = true;
      clearTimeout(timer);
      const reason = `the key hook stopped (exit code ${code ?? 'unknown'})${lastWords()}`;
      if (!started) return resolve({ available: false, reason });
      if (held) options.onHold((held = false));
      if (!stopped) options.onLost?.(reason);
    });
    worker.send({ type: 'start', accelerator: options.accelerator, platform: options.platform });
  });
  if (!status.available) return { status, stop: () => undefined };
  return {
    status,
    stop() {
      stopped = true;
      end();
      if (held) options.onHold((held = false));
    },
  };
}

/** Keeps the last ~2 KB a child wrote to stderr (for the reason it failed). */
export class StderrTail {
  #text = '';

  push(chunk: Buffer | string): void {
    this.#text = (this.#text + chunk.toString()).slice(-2048);
  }

  toString(): string {
    return this.#text;
  }
}
