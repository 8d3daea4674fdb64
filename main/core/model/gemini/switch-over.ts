// When the Gemini session moves to a new socket on its own (docs/gemini.md "Resumption, goAway and
// reconnects"): a stall mid-turn or a malformed frame resumes on a new socket at once (announced as
// a reconnect). The goAway switch-over: after a goAway the
// next socket resumes at the first idle point (nothing in flight, handle up to date), or at the
// announced deadline less a margin, whatever is going on. The new socket is dialled while the old
// one still runs; input moves to it at once and the old one may finish its output (drained). A
// service that refuses the overlap (one socket per session) gets close-then-resume from then on.
import type { Logger } from 'pino';
import { faultCounts } from '../../faults.ts';
import type { TimerClock, TimerHandle } from '../../contracts/clock.ts';
import type { GeminiConnection } from './connection.ts';

export interface SwitchOverHost {
  clock: TimerClock;
  logger: Logger;
  /** Force the switch this long before the announced close. */
  switchMarginMs: number;
  /** How long a replaced socket may still deliver the tail of its output after an idle switch. */
  drainMs: number;
  active(): GeminiConnection | null;
  closed(): boolean;
  reconnecting(): boolean;
  /** Nothing would be lost by switching now. */
  idle(): boolean;
  /** Dials the next socket, resuming (the model in use). */
  openNext(): Promise<GeminiConnection>;
  /** Moves input to `next`; `old` (when still active) drains until `release`. */
  adopt(old: GeminiConnection, next: GeminiConnection): void;
  /** Closes `old` if it is still draining. */
  release(old: GeminiConnection): void;
  /** Close-then-resume; `announce`: the call goes through `reconnecting`. */
  replace(old: GeminiConnection, reason: string, announce: boolean): Promise<void>;
  /** The switch left no socket: reconnect (announced). */
  reconnect(reason: string): void;
  /** Counts one more; the new count. */
  counted(counter: 'switchOvers' | 'overlapsRefused' | 'stalls' | 'malformedMessages' | 'wrongShapeMessages'): number;
}

export class GoAwaySwitch {
  readonly #host: SwitchOverHost;
  #deadline: number | null = null;
  #timer: TimerHandle | null = null;
  #switching = false;
  /** The service refused a second socket of this session: rotate by close-then-resume. */
  #overlapRefused = false;

  constructor(host: SwitchOverHost) {
    this.#host = host;
  }

  /** A goAway came for the active socket: its close is planned. */
  get announced(): boolean {
    return this.#deadline !== null;
  }

  get switching(): boolean {
    return this.#switching;
  }

  goAway(connection: GeminiConnection, timeLeftMs: number): void {
    if (connection !== this.#host.active() || this.#deadline !== null) return;
    const { clock, switchMarginMs, logger } = this.#host;
    this.#deadline = clock.now() + timeLeftMs;
    logger.info({ timeLeftMs, connection: connection.id }, 'gemini goAway: preparing the next connection');
    this.#timer = clock.setTimeout(
      () => {
        this.#timer = null;
        void this.#switchOver('deadline');
      },
      Math.max(0, timeLeftMs - switchMarginMs),
    );
  }

  /** The active socket stalled mid-turn: resume on a new one. */
  stalled(silentMs: number, awaited: boolean): void {
    const host = this.#host;
    const connection = host.active();
    if (!connection || this.#switching || host.reconnecting()) return;
    host.counted('stalls');
    host.logger.warn(
      { connection: connection.id, silentMs: Math.round(silentMs), awaited },
      'gemini live stalled mid-turn: resuming on a new socket',
    );
    void host.replace(connection, `model stalled (${Math.round(silentMs)} ms without data)`, true);
  }

  /** A frame that is not JSON (`fatal`: resume on a new socket), or JSON of the wrong shape (dropped). */
  badMessage(reason: string, fatal: boolean, connection: GeminiConnection): void {
    const host = this.#host;
    faultCounts.malformed_model_messages++;
    if (!fatal) {
      // JSON of the wrong shape (server-message.ts): dropped before the session reads it; the socket is fine.
      if (host.counted('wrongShapeMessages') === 1)
        host.logger.warn(
          { reason, connection: connection.id },
          'wrong-shaped message from the model service dropped (logged once per call, counted in /health)',
        );
      return;
    }
    if (host.counted('malformedMessages') === 1) {
      host.logger.warn(
        { reason, connection: connection.id },
        'malformed message from the model service dropped; resuming on a new socket (logged once per call, counted in /health)',
      );
    }
    if (connection === host.active() && !this.#switching && !host.reconnecting())
      void host.replace(connection, `malformed message (${reason})`, true);
  }

  /** Switch as soon as nothing would be lost. */
  maybe(): void {
    if (this.#deadline === null || this.#switching) return;
    if (this.#host.idle()) void this.#switchOver('idle');
  }

  /** A new socket was adopted: no goAway for it yet. */
  reset(): void {
    this.#deadline = null;
    this.close();
  }

  close(): void {
    this.#host.clock.clearTimeout(this.#timer);
    this.#timer = null;
  }

  async #switchOver(trigger: 'idle' | 'deadline'): Promise<void> {
    const host = this.#host;
    const old = host.active();
    if (this.#switching || host.closed() || !old || this.#deadline === null) return;
    this.#switching = true;
    this.close();
    if (this.#overlapRefused) {
      this.#switching = false;
      host.counted('switchOvers');
      host.logger.info({ from: old.id, trigger }, 'gemini live rotation: closing the old socket, then resuming');
      await host.replace(old, `rotation (${trigger})`, false);
      return;
    }
    try {
      const next = await host.openNext();
      if (host.closed() || (host.active() !== old && host.active() !== null)) {
        next.close();
        return;
      }
      // From here on every input goes to `next`; the old socket may still finish its output.
      host.adopt(old, next);
      host.counted('switchOvers');
      host.logger.info({ from: old.id, to: next.id, trigger }, 'gemini live switched to the resumed connection');
      // Idle switch: nothing more is due from the old socket, release it soon. Deadline switch: it
      // may still be finishing a reply, so let it play out until the service closes it.
      const drainMs = trigger === 'idle' ? host.drainMs : host.switchMarginMs + 1000;
      host.clock.setTimeout(() => host.release(old), drainMs);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      if (host.active() === old && old.isOpen && !host.closed()) {
        // The service allows one socket per session: close the old one now (we are at an idle
        // point or at the deadline) and resume at once; later rotations skip the overlap attempt.
        this.#overlapRefused = true;
        host.counted('overlapsRefused');
        host.logger.info(
          { reason, from: old.id, trigger },
          'overlapped resume refused: closing the old socket, then resuming',
        );
        this.#switching = false;
        host.counted('switchOvers');
        await host.replace(old, `rotation (${trigger})`, false);
        return;
      }
      host.logger.warn({ reason }, 'gemini switch-over failed; will reconnect on close');
    } finally {
      this.#switching = false;
      if (!host.active() && !host.closed() && !host.reconnecting())
        host.reconnect('connection closed during switch-over');
    }
  }
}
