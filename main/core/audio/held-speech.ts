// The speech of one utterance held back while a screener decides whether it is for the bot. One
// buffer allocated up front (a bounded FIFO of 16 kHz samples); pushing copies into it, draining
// hands it out in fixed-size chunks through one reused chunk buffer: nothing is allocated per 20 ms.

export class HeldSpeech {
  readonly #samples: Int16Array;
  readonly #chunk: Int16Array;
  #length = 0;
  #overflowed = false;

  /** `capacitySamples`: the most that can be held; `chunkSamples`: the size drain() hands out. */
  constructor(capacitySamples: number, chunkSamples: number) {
    this.#samples = new Int16Array(capacitySamples);
    this.#chunk = new Int16Array(chunkSamples);
  }

  get length(): number {
    return this.#length;
  }

  /** True once a push did not fit (the held audio would no longer start at the utterance's start). */
  get overflowed(): boolean {
    return this.#overflowed;
  }

  /** Copy `pcm` in; false (and nothing kept of it) when it does not fit. */
  push(pcm: Int16Array): boolean {
    if (this.#length + pcm.length > this.#samples.length) {
      this.#overflowed = true;
      return false;
    }
    this.#samples.set(pcm, this.#length);
    this.#length += pcm.length;
    return true;
  }

  /**
   * Everything held, in order, as chunks of the chunk size (the last one zero-padded); the chunk
   * is a reused buffer, valid during the call only. Empties the buffer.
   */
  drain(onChunk: (chunk: Int16Array) => void): void {
    const size = this.#chunk.length;
    for (let at = 0; at < this.#length; at += size) {
      const n = Math.min(size, this.#length - at);
      // A plain copy loop: subarray() would allocate a view per chunk.
      for (let i = 0; i < n; i++) this.#chunk[i] = this.#samples[at + i]!;
      if (n < size) this.#chunk.fill(0, n);
      onChunk(this.#chunk);
    }
    this.clear();
  }

  clear(): void {
    this.#length = 0;
    this.#overflowed = false;
  }
}
