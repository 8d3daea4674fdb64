// Lossless handover with Gemini's transparent resumption (`SessionResumptionConfig.transparent`):
// each `sessionResumptionUpdate` then says which client message the new handle's state includes
// (`lastConsumedClientMessageIndex`, @google/genai 3.1.0 LiveServerSessionResumptionUpdate), and a
// client that numbers and keeps what it sent can resume and send again exactly what the service did
// not consume: nothing lost, nothing twice. Messages are numbered per socket from 0 (the `setup`).
//
// This keeps the user audio (chunks and stream ends) sent on the current socket after the last
// index the service confirmed, bounded (30 s by default; older audio gives way, counted). Two rings,
// each allocated once per call: a replay drains one while the sends re-record into the other with
// the new socket's numbers.
import { AudioHold } from './audio-hold.ts';

export class UnconsumedTail {
  #current: AudioHold;
  #spare: AudioHold;
  /** Message index of each entry of #current, oldest first. */
  #indices: number[] = [];
  #evictedSeen = 0;
  /** Samples sent again after a transparent resume (replayedMs = this / 16). */
  replayedSamples = 0;
  /** Samples that gave way before the service confirmed them (a tail longer than the bound). */
  get lostSamples(): number {
    return this.#current.droppedSamples + this.#spare.droppedSamples;
  }

  constructor(maxMs: number) {
    this.#current = new AudioHold(maxMs);
    this.#spare = new AudioHold(maxMs);
  }

  get isEmpty(): boolean {
    return this.#current.isEmpty;
  }

  /** A chunk sent as message `index` on the current socket. Hot path: no allocation once warm. */
  audio(pcm: Int16Array, index: number): void {
    this.#current.push(pcm);
    this.#indices.push(index);
    this.#syncEvicted();
  }

  /** `audioStreamEnd` sent as message `index`. */
  end(index: number): void {
    const before = this.#current.size;
    this.#current.end();
    if (this.#current.size > before) this.#indices.push(index);
  }

  /** The service's state includes every message up to `index` on the current socket. */
  consumed(index: number): void {
    let count = 0;
    while (count < this.#indices.length && this.#indices[count]! <= index) count++;
    if (count === 0) return;
    this.#current.dropOldest(count);
    this.#indices.splice(0, count);
  }

  clear(): void {
    this.#current.clear();
    this.#indices.length = 0;
  }

  /**
   * After a transparent resume: sends again, in order, what the service did not consume. The
   * callbacks send on the new socket and record there (through `audio`/`end`), so the tail then
   * holds them under the new socket's numbers.
   */
  replay(send: (pcm: Int16Array) => void, end: () => void): number {
    const old = this.#current;
    this.#current = this.#spare;
    this.#spare = old;
    this.#current.clear();
    this.#indices.length = 0;
    this.#evictedSeen = this.#current.evictedEntries;
    let samples = 0;
    old.drain((pcm) => {
      samples += pcm.length;
      send(pcm);
    }, end);
    this.replayedSamples += samples;
    return samples;
  }

  #syncEvicted(): void {
    const evicted = this.#current.evictedEntries - this.#evictedSeen;
    if (evicted <= 0) return;
    this.#evictedSeen = this.#current.evictedEntries;
    this.#indices.splice(0, evicted);
  }
}
