// User speech that arrives while no model socket is ready (a rotation's close-then-resume, a
// reconnect, a stall recovery) is held here and sent, in order, once the next socket is up: a
// user who speaks during a reconnect is heard, late, instead of losing words. Bounded: one buffer
// of `maxMs` allocated once per session; when full, the oldest chunks give way (counted).

/** Entries: >= 0 a chunk's length in samples; END an end of the user's audio stream; <= PAD - n a gap of n samples. */
const END = -1;
const PAD = -2;

/**
 * A ring of samples: a full hold gives way by moving its start, not by moving the samples (a
 * copyWithin of the whole 5 s buffer per 20 ms chunk was 1.5 % of the core's time while a user
 * spoke on unanswered). A chunk is never split across the end of the ring, so every chunk is one
 * contiguous view: when it would not fit before the end, the rest of the ring is skipped (a gap).
 */
export class AudioHold {
  readonly #samples: Int16Array;
  /** Where the oldest held sample (or gap) starts. */
  #start = 0;
  /** Samples spanned from #start, gaps included. */
  #used = 0;
  /** Chunk lengths, END markers and gaps, in order. */
  readonly #entries: number[] = [];
  #lastEntries: number[] = [];
  #lastStart = 0;
  #lastUsed = 0;
  droppedSamples = 0;
  heldChunks = 0;
  /** Chunks and stream ends that gave way to newer audio (for callers that index the entries). */
  evictedEntries = 0;

  constructor(maxMs: number, rate = 16_000) {
    this.#samples = new Int16Array(Math.max(1, Math.round((rate * maxMs) / 1000)));
  }

  get isEmpty(): boolean {
    return this.#entries.length === 0;
  }

  /** Entries held (chunks, stream ends and gaps at the ring's end). */
  get size(): number {
    return this.#entries.length;
  }

  push(pcm: Int16Array): void {
    const capacity = this.#samples.length;
    const chunk = pcm.length > capacity ? pcm.subarray(pcm.length - capacity) : pcm;
    let write = (this.#start + this.#used) % capacity;
    let gap = write + chunk.length > capacity ? capacity - write : 0;
    // Dropping the oldest moves the start and shrinks #used by the same amount: `write` stays put.
    while (this.#used + gap + chunk.length > capacity) {
      if (!this.#dropOldest()) {
        this.#start = 0;
        write = 0;
        gap = 0;
        break;
      }
    }
    if (gap > 0) {
      this.#entries.push(PAD - gap);
      this.#used += gap;
      write = 0;
    }
    this.#samples.set(chunk, write);
    this.#used += chunk.length;
    this.#entries.push(chunk.length);
    this.heldChunks++;
  }

  /** The user stopped talking while the audio was held: replayed after the held chunks. */
  end(): void {
    if (this.#entries.length > 0 && this.#entries.at(-1) !== END) this.#entries.push(END);
  }

  /** Replays everything in order; the chunks passed to `send` are views, valid only during the call. */
  drain(send: (pcm: Int16Array) => void, end: () => void): void {
    const capacity = this.#samples.length;
    let offset = this.#start;
    for (const entry of this.#entries) {
      if (entry === END) end();
      else if (entry <= PAD) offset = (offset + PAD - entry) % capacity;
      else {
        send(this.#samples.subarray(offset, offset + entry));
        offset = (offset + entry) % capacity;
      }
    }
    this.clear();
  }

  clear(): void {
    this.#lastEntries = this.#entries.splice(0);
    this.#lastStart = this.#start;
    this.#lastUsed = this.#used;
    this.#start = 0;
    this.#used = 0;
  }

  /**
   * Undo the clear() that drain() ended with: the samples are still in the buffer. For audio that
   * stays unanswered after being sent again (until the model answers it or a handle covers it).
   */
  restoreLast(): void {
    if (this.#entries.length > 0) return;
    this.#entries.push(...this.#lastEntries);
    this.#start = this.#lastStart;
    this.#used = this.#lastUsed;
  }

  /**
   * Forgets the `count` oldest chunks and stream ends (e.g. what the service has confirmed it
   * consumed); they do not count as evicted.
   */
  dropOldest(count: number): void {
    while (count > 0 && this.#entries.length > 0) {
      if (this.#entries[0]! > PAD) count--;
      const before = this.evictedEntries;
      const dropped = this.#entries[0]!;
      this.#dropOldest();
      this.evictedEntries = before;
      if (dropped >= 0) this.droppedSamples -= dropped;
    }
    if (this.#entries.length === 0) {
      this.#start = 0;
      this.#used = 0;
    }
  }

  /** Gives up the oldest entry; false when there was none. */
  #dropOldest(): boolean {
    const first = this.#entries.shift();
    if (first === undefined) {
      this.#used = 0;
      return false;
    }
    if (first > PAD) this.evictedEntries++;
    if (first === END) return true;
    const span = first <= PAD ? PAD - first : first;
    this.#start = (this.#start + span) % this.#samples.length;
    this.#used -= span;
    if (first >= 0) this.droppedSamples += first;
    return true;
  }
}
