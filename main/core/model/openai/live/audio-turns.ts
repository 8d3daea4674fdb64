// GPT-Live's turns, derived from its audio stream: the wire has no responses, turns or interruption
// events, only model audio while the model decides itself when to speak and when to yield.
// - a turn opens with the first audio delta and ends after `turnGapMs` without audio;
// - if the user spoke over the model (the bridge says so, echo-aware: `bargedIn`) and its audio then
//   stops for `bargeInGapMs`, the model yielded to the user (the session tells the bridge
//   `interrupted`, then `turnComplete`).
// The turn's state is session-core's ModelTurn, as every session's; what is GPT-Live's own is the
// clock that finds its end, and whether the user spoke over it.
import type { TimerClock, TimerHandle } from '../../../contracts/clock.ts';
import { ModelTurn } from '../../session-core/model-turn.ts';

export interface AudioTurnsOptions {
  clock: TimerClock;
  /** Quiet model audio that ends a turn. */
  turnGapMs: number;
  /** Quiet model audio, after the user spoke over it, that counts as the model yielding. */
  bargeInGapMs: number;
  closed(): boolean;
  /** The quiet gap ended the turn; `yielded`: the user had spoken over it. */
  ended(yielded: boolean): void;
}

export class AudioGapTurns<S> {
  readonly #o: AudioTurnsOptions;
  readonly #turn = new ModelTurn<S>();
  #lastAudioAt = 0;
  /** The user spoke over the open turn: a quiet gap now is a yield (no interruption event exists). */
  #userSpokeOver = false;
  #timer: TimerHandle | null = null;

  constructor(options: AudioTurnsOptions) {
    this.#o = options;
  }

  get open(): boolean {
    return this.#turn.open;
  }

  /** A delta of model audio on `socket`. True when it opened a turn. */
  audio(socket: S): boolean {
    this.#lastAudioAt = this.#o.clock.now();
    // Never after an interruption: GPT-Live's yield ends its turn at once (ended), so none is pending.
    if (this.#turn.output(socket).wasOpen) return false;
    this.#userSpokeOver = false;
    this.#arm();
    return true;
  }

  /** The bridge heard the user talk over the reply: the shorter barge-in gap now applies. */
  bargedIn(): void {
    if (!this.#turn.open || this.#userSpokeOver) return;
    this.#userSpokeOver = true;
    this.#arm();
  }

  /**
   * `socket` ended. The turn it carried is over; `yielded` when the user was talking over the model
   * (it was yielding: playback is flushed). Null when it carried none.
   */
  socketEnded(socket: S): { yielded: boolean } | null {
    this.stop();
    return this.#turn.socketEnded(socket) ? { yielded: this.#userSpokeOver } : null;
  }

  stop(): void {
    this.#o.clock.clearTimeout(this.#timer);
    this.#timer = null;
  }

  /**
   * Check the turn when the quiet gap would be complete if no audio came meanwhile (not on a poll:
   * a 50 ms poll woke the process 20 times a second for as long as the model talked). Audio that
   * arrives meanwhile only moves `#lastAudioAt`; the check then waits for the new deadline.
   */
  #arm(): void {
    this.stop();
    const gapMs = this.#userSpokeOver ? this.#o.bargeInGapMs : this.#o.turnGapMs;
    this.#timer = this.#o.clock.setTimeout(() => this.#check(), this.#lastAudioAt + gapMs - this.#o.clock.now());
  }

  #check(): void {
    this.#timer = null;
    if (!this.#turn.open || this.#o.closed()) return;
    const quietMs = this.#o.clock.now() - this.#lastAudioAt;
    if (this.#userSpokeOver && quietMs >= this.#o.bargeInGapMs) return this.#end(true);
    if (quietMs >= this.#o.turnGapMs) return this.#end(false);
    this.#arm();
  }

  #end(yielded: boolean): void {
    if (this.#turn.complete()) this.#o.ended(yielded);
  }
}
