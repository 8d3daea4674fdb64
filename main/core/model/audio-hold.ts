// User speech that arrives while no model socket is ready (a rotation's close-then-resume, a
// reconnect, a stall recovery) is held here and sent, in order, once the next socket is up: a
// user who speaks during a reconnect is heard, late, instead of losing words. Bounded: one buffer
// of `maxMs` allocated once per session; when full, the oldest chunks give way (counted).

export class AudioHold {
  readonly #samples: Int16Array;
  #used = 0;
  /** Chunk lengths in samples, in order; -1 marks an end of the user's audio stream. */
  readonly #entries: number[] = [];
  #lastEntries: number[] = [];
  #lastUsed = 0;
  droppedSamples = 0;
  heldChunks = 0;

  constructor(maxMs: number, rate = 16_000) {
    this.#samples = new Int16Array(Math.max(1, Math.round((rate * maxMs) / 1000)));
  }

  get isEmpty(): boolean {
    return this.#entries.length === 0;
  }

  /** Chunks (and stream ends) held. */
  get size(): number {
    return this.#entries.length;
  }

  push(pcm: Int16Array): void {
    const chunk = pcm.length > this.#samples.length ? pcm.subarray(pcm.length - this.#samples.length) : pcm;
    while (this.#used + chunk.length > this.#samples.length) this.#dropOldest();
    this.#samples.set(chunk, this.#used);
    this.#used += chunk.length;
    this.#entries.push(chunk.length);
    this.heldChunks++;
  }

  /** The user stopped talking while the audio was held: replayed after the held chunks. */
  end(): void {
    if (this.#entries.length > 0 && this.#entries.at(-1) !== -1) this.#entries.push(-1);
  }

  /** Replays everything in order; the chunks passed to `send` are views, valid only during the call. */
  drain(send: (pcm: Int16Array) => void, end: () => void): void {
    let offset = 0;
    for (const length of this.#entries) {
      if (length < 0) end();
      else {
        send(this.#samples.subarray(offset, offset + length));
        offset += length;
      }
    }
    this.clear();
  }

  clear(): void {
    this.#lastEntries = this.#entries.splice(0);
    this.#lastUsed = this.#used;
    this.#used = 0;
  }

  /**
   * Undo the clear() that drain() ended with: the samples are still in the buffer. For audio that
   * stays unanswered after being sent again (until the model answers it or a handle covers it).
   */
  restoreLast(): void {
    if (this.#entries.length > 0) return;
    this.#entries.push(...this.#lastEntries);
    this.#used = this.#lastUsed;
  }

  #dropOldest(): void {
    const first = this.#entries.shift();
    if (first === undefined) {
      this.#used = 0;
      return;
    }
    if (first < 0) return;
    this.#samples.copyWithin(0, first, this.#used);
    this.#used -= first;
    this.droppedSamples += first;
  }
}
