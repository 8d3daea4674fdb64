// A model fake's spoken reply, whatever the protocol: after a first-audio delay, the audio in
// chunks of `samplesPerChunk` every `paceMs` (faster than real time, as the services deliver it),
// with the transcript's words spread over the chunks; then the protocol's end, which may wait
// (Gemini's turnComplete waits for playback). Stopped by barge-in, a cancel or the socket's close.
// Each protocol maps only its messages (PacedReplySteps).

export type Timer = ReturnType<typeof setTimeout>;

/** Timers that die with the socket (FakeConnection.later). */
export interface SocketTimers {
  later(fn: () => void, ms: number): Timer;
  clearLater(timer: Timer): void;
}

/** When a reply was due and went out, on the fake's clock (Date.now): the modelled timing, for tests and benches. */
export interface ReplyTiming {
  /** The service's end of turn this reply answers (null: started with no turn end pending). */
  turnEndedAt: number | null;
  /** When the reply was started, and the first-audio delay it was scheduled with. */
  startedAt: number;
  firstAudioDelayMs: number;
  /** When its first audio chunk went out (null: none went out). */
  firstAudioAt: number | null;
  chunkMs: number;
  paceMs: number;
}

export interface PacedReplyPlan {
  pcm: Int16Array;
  samplesPerChunk: number;
  paceMs: number;
  delayMs: number;
  /** The transcript, split into words (each keeping its trailing space). */
  words: readonly string[];
  /** Send at least this many chunks (Gemini sends one empty chunk for an empty reply). */
  minChunks?: number;
}

export interface PacedReplySteps<O> {
  /** After the delay, right before the first chunk. */
  begin?(): void;
  /** One chunk of audio and the words that go with it ('' for none). */
  chunk(pcm: Int16Array, words: string, index: number): void;
  /** After the last chunk: the outcome, or a wait before finish is asked again. */
  finish(): O | { waitMs: number };
  /** Every end (finish, stop, close): what the protocol sends then. */
  ended(outcome: O): void;
}

export class PacedReply<O> {
  readonly done: Promise<O>;
  readonly chunkCount: number;
  chunksSent = 0;
  /** Date.now() at the first step (after the delay); 0 before. */
  startedAt = 0;
  #over = false;
  #timer: Timer | null;
  #resolve!: (outcome: O) => void;
  readonly #timers: SocketTimers;
  readonly #plan: PacedReplyPlan;
  readonly #steps: PacedReplySteps<O>;
  readonly #timing: ReplyTiming;

  constructor(timers: SocketTimers, plan: PacedReplyPlan, steps: PacedReplySteps<O>, timing: ReplyTiming) {
    this.#timers = timers;
    this.#plan = plan;
    this.#steps = steps;
    this.#timing = timing;
    this.chunkCount = Math.max(plan.minChunks ?? 0, Math.ceil(plan.pcm.length / plan.samplesPerChunk));
    this.done = new Promise<O>((resolve) => (this.#resolve = resolve));
    this.#timer = timers.later(() => {
      this.startedAt = Date.now();
      this.#step(true);
    }, plan.delayMs);
  }

  get over(): boolean {
    return this.#over;
  }

  stop(outcome: O): void {
    if (this.#over) return;
    this.#over = true;
    if (this.#timer) this.#timers.clearLater(this.#timer);
    this.#timer = null;
    this.#steps.ended(outcome);
    this.#resolve(outcome);
  }

  #step(first = false): void {
    this.#timer = null;
    if (this.#over) return;
    if (first) this.#steps.begin?.();
    const { pcm, samplesPerChunk: per, words } = this.#plan;
    if (this.chunksSent < this.chunkCount) {
      const i = this.chunksSent++;
      const from = Math.floor((i * words.length) / this.chunkCount);
      const to = Math.floor(((i + 1) * words.length) / this.chunkCount);
      if (i === 0) this.#timing.firstAudioAt = Date.now();
      this.#steps.chunk(pcm.subarray(i * per, Math.min(pcm.length, (i + 1) * per)), words.slice(from, to).join(''), i);
      if (!this.#over) this.#timer = this.#timers.later(() => this.#step(), this.#plan.paceMs);
      return;
    }
    const next = this.#steps.finish();
    if (this.#over) return;
    if (typeof next === 'object' && next !== null && 'waitMs' in next)
      this.#timer = this.#timers.later(() => this.#step(), next.waitMs);
    else this.stop(next as O);
  }
}

/** A transcript as words, each with its trailing whitespace (so joining them gives it back). */
export function wordsOf(transcript: string | undefined): string[] {
  return transcript ? transcript.split(/(?<=\s)/) : [];
}
