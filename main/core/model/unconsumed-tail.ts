// Lossless handover with Gemini's transparent resumption (`SessionResumptionConfig.transparent`):
// each `sessionResumptionUpdate` then says which client message the new handle's state includes
// (`lastConsumedClientMessageIndex`, @google/genai 3.1.0 LiveServerSessionResumptionUpdate), and a
// client that numbers and keeps what it sent can resume and send again exactly what the service did
// not consume: nothing lost, nothing twice. Messages are numbered per socket from 0 (the `setup`).
//
// This keeps the user audio (chunks and stream ends) sent on the current socket after the last
// index the service confirmed, bounded (30 s by default; older audio gives way, counted): the
// unheard-speech store under its 'until acknowledged' policy (audio/unheard-speech.ts), each entry
// tagged with its message number, so a confirmation releases exactly the entries it covers. Two
// stores per session, each growing as it first needs room (up to 960 kB at 30 s: unheard-speech.ts):
// a replay drains one while the sends re-record into the other with the new socket's numbers.
import { UnheardSpeech, untilAcknowledged } from '../audio/unheard-speech.ts';

export class UnconsumedTail {
  #current: UnheardSpeech;
  #spare: UnheardSpeech;
  /** Samples sent again after a transparent resume (replayedMs = this / 16). */
  replayedSamples = 0;
  /** Samples that gave way before the service confirmed them (a tail longer than the bound). */
  get lostSamples(): number {
    return this.#current.evictedSamples + this.#spare.evictedSamples;
  }

  constructor(maxMs: number) {
    this.#current = new UnheardSpeech(untilAcknowledged(maxMs));
    this.#spare = new UnheardSpeech(untilAcknowledged(maxMs));
  }

  get isEmpty(): boolean {
    return this.#current.isEmpty;
  }

  /** A chunk sent as message `index` on the current socket. Hot path: no allocation once warm. */
  audio(pcm: Int16Array, index: number): void {
    this.#current.push(pcm, index);
  }

  /** `audioStreamEnd` sent as message `index`. */
  end(index: number): void {
    this.#current.end(index);
  }

  /** The service's state includes every message up to `index` on the current socket. */
  consumed(index: number): void {
    this.#current.releaseThrough(index);
  }

  clear(): void {
    this.#current.clear();
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
    const samples = old.replay(send, end);
    this.replayedSamples += samples;
    return samples;
  }
}
