// Small shared seams of the notification system: the live-call voice hook, the sleep and the
// input error that routes map to 400 and tools to `invalid_args`-like failures.
import { CodedError } from '../contracts/coded-error.ts';

/** The live call's text hook. Exists only while a bridge is live; looked up at delivery time. */
export interface VoiceDelivery {
  /**
   * Queue `text` for the model's next turn and resolve once it was handed to the model (written on
   * the live session: `delivered`), or dropped: the call ended, the queue overflowed, or no idle
   * moment came within `withinMs`. A dropped text is never spoken later.
   */
  speak(
    text: string,
    options: { withinMs: number; onHandedOver?: () => void; beforeHandOver?: () => Promise<boolean> },
  ): Promise<VoiceHandOff>;
}

/**
 * `id`: the spoken outcome's id (GET /say/{id}) of a text handed to a call. `sentInstead`: for a text
 * not spoken, records on that outcome how it was delivered instead (`auto`'s next mode).
 */
export type VoiceHandOff = (
  { delivered: true } | { delivered: false; reason: string; sentInstead?: (instead: string) => void }
) & { id?: string };

/** Wait `ms`; resolves early (never rejects) when `signal` aborts. Injectable so tests skip real waits. */
export type SleepFn = (ms: number, signal?: AbortSignal) => Promise<void>;

export const realSleep: SleepFn = (ms, signal) =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });

/** Bad input to the notification system. `code` is stable and shown to clients. */
export class NotifyInputError extends CodedError {
  /** HTTP meaning: 413 for a too-long text or prompt, 403 `forbidden`, 503 `not_configured`, else 400. */
  readonly status: number;
  constructor(code: string, message: string) {
    super(code, message);
    this.status = code.endsWith('_too_long') ? 413 : code === 'forbidden' ? 403 : code === 'not_configured' ? 503 : 400;
  }
}

/** A schedule or delegate operation on something that does not exist (404) or cannot change (409). */
export class NotifyStateError extends CodedError<'not_found' | 'conflict'> {
  readonly status: 404 | 409;
  constructor(code: 'not_found' | 'conflict', message: string) {
    super(code, message);
    this.status = code === 'not_found' ? 404 : 409;
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The schedule holds as many pending entries as it may (the cap): answered 429 `schedule_full`. */
export class NotifyCapacityError extends CodedError<'schedule_full'> {
  readonly status = 429;
  readonly cap: number;
  constructor(cap: number) {
    super(
      'schedule_full',
      `the schedule already holds ${cap} pending entries (the cap, DISCORD_VOICE_LIVE_SCHEDULE_MAX_PENDING); cancel some or raise the cap`,
    );
    this.cap = cap;
  }
}

/** "1 h 5 min", "42 s": for late markers and messages. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  return `${Math.floor(h / 24)} days`;
}

/**
 * A send the destination answered without accepting it (Discord's 429): nothing was delivered, so
 * it may be retried — not before `retryAtMs` (epoch ms) when the destination said when.
 */
export class NotAcceptedError extends CodedError<'not_accepted'> {
  readonly retryAtMs: number | null;
  constructor(message: string, retryAtMs: number | null) {
    super('not_accepted', message);
    this.retryAtMs = retryAtMs;
  }
}

/**
 * A send whose request may have reached the destination but whose answer never came (the
 * connection closed under it): it may have been delivered. A destination that drops a repeat (a
 * Discord post under its nonce) may be sent it again; any other may not.
 */
export class AnswerLostError extends CodedError<'answer_lost'> {
  constructor(message: string) {
    super('answer_lost', message);
  }
}
