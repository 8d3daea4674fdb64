// The stall check of a Gemini session: one timer, armed only while the model's turn is open or a
// reply to the user's finished utterance is awaited, re-armed only when it fires (never per
// message). A socket that goes silent then has stalled (reported: models stop mid-sentence; a
// service that never answers a finished utterance).
//
// What is NOT a stall:
// - waiting on our own tool result;
// - after `generationComplete`: the model has said everything; `turnComplete` may come much later,
//   when the reply would have finished playing (@google/genai 3.1.0 LiveServerContent:
//   "generation_complete and turn_complete that is caused by model waiting for playback to finish");
// - while reply audio already received is still playing: a reply sent faster than real time leaves
//   the socket quiet for as long as the rest plays, so silence counts from the end of that playback.
import type { TimerClock, TimerHandle } from '../../contracts/clock.ts';

export interface StallWatchOptions {
  clock: TimerClock;
  stallMs: number;
  /** The model's turn is open on the active socket and we owe it no tool result. */
  midTurn(): boolean;
  /** A stall was found: `awaited` when it was a reply that never began (at most once per utterance). */
  onStall(silentMs: number, awaited: boolean): void;
}

/** Model output is 24 kHz: samples → ms of playback. */
const OUTPUT_SAMPLES_PER_MS = 24;

export class StallWatch {
  readonly #o: StallWatchOptions;
  #timer: TimerHandle | null = null;
  #lastServerAt = 0;
  /** When the reply audio received so far would have finished playing. */
  #playsUntil = 0;
  #generationDone = false;
  /** The user's utterance ended (audioStreamEnd sent) and the service has said nothing since. */
  #awaitingSince: number | null = null;
  /** A stall while awaiting a reply was already handled for this utterance: not twice. */
  #awaitHandled = false;

  constructor(options: StallWatchOptions) {
    this.#o = options;
  }

  /**
   * Any message from the active socket: it is alive. A reply it owes is still owed: the tail of an
   * earlier turn (its last audio, generationComplete, a transcription) can arrive after the user's
   * utterance ended, and is no answer to it.
   */
  serverMessage(): void {
    this.#lastServerAt = this.#o.clock.now();
  }

  /** Reply audio received (24 kHz samples). Per chunk: arithmetic only. */
  audio(samples: number): void {
    const now = this.#o.clock.now();
    this.#playsUntil = Math.max(this.#playsUntil, now) + samples / OUTPUT_SAMPLES_PER_MS;
  }

  /** The model's output on the active socket: its turn is open, watch it. A new turn answers the utterance. */
  modelActivity(turnWasOpen: boolean): void {
    if (!turnWasOpen) {
      this.#generationDone = false;
      this.#awaitingSince = null;
    }
    this.#arm();
  }

  /**
   * turnComplete on the active socket. `closedTurn`: a turn with output (or a cut one) was open, so
   * this ends a turn begun before the awaited utterance ended (a new one would have answered it):
   * the answer is still owed, and watched. With none open the service answered with nothing.
   */
  turnCompleted(closedTurn: boolean): void {
    this.stop();
    if (!closedTurn) this.#awaitingSince = null;
    else if (this.#awaitingSince !== null && !this.#awaitHandled) this.#arm();
  }

  generationComplete(): void {
    this.#generationDone = true;
  }

  /** The user's utterance is complete on the active socket: a silent service from now is a stall. */
  awaitReply(): void {
    this.#awaitingSince = this.#o.clock.now();
    this.#awaitHandled = false;
    this.#arm();
  }

  /** The reply began (or the socket went away): nothing is awaited any more. */
  replyBegan(): void {
    this.#awaitingSince = null;
  }

  stop(): void {
    this.#o.clock.clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** A new socket: what the old one played or owed is not this one's. */
  reset(): void {
    this.stop();
    this.#playsUntil = 0;
    this.#generationDone = false;
  }

  #arm(): void {
    if (this.#timer) return;
    this.#timer = this.#o.clock.setTimeout(() => this.#check(), this.#o.stallMs);
  }

  #check(): void {
    this.#timer = null;
    const midTurn = this.#o.midTurn() && !this.#generationDone;
    const awaiting = this.#awaitingSince !== null && !this.#awaitHandled;
    if (!midTurn && !awaiting) return;
    const now = this.#o.clock.now();
    // While an earlier reply still plays, the service may wait for its playback to end before it
    // answers (turnComplete comes then): silence counts from there.
    const playing = this.#o.midTurn() ? this.#playsUntil : 0;
    const quietSince = midTurn
      ? Math.max(this.#lastServerAt, this.#playsUntil)
      : Math.max(this.#lastServerAt, this.#awaitingSince!, playing);
    const silentMs = now - quietSince;
    if (silentMs < this.#o.stallMs) {
      this.#timer = this.#o.clock.setTimeout(() => this.#check(), this.#o.stallMs - silentMs);
      return;
    }
    // Once per utterance: a model that chose not to answer must not cause a resume every stallMs.
    if (!midTurn) this.#awaitHandled = true;
    this.#o.onStall(silentMs, !midTurn);
  }
}
