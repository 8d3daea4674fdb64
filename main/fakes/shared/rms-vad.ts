// The voice activity detection of the fakes whose service detects turns itself (OpenAI Realtime's
// server VAD, GPT-Live's full duplex): input louder than an RMS threshold is speech, and a turn ends
// after `silenceSamples` of quiet following speech. Counted in samples, not wall time, so a test's
// audio decides and a loaded machine does not.
import { rms } from './pcm.ts';

export type VadChange = 'speech-started' | 'speech-stopped' | null;

export class RmsVad {
  speaking = false;
  #speechSamples = 0;
  #quietSamples = 0;

  /** Speech of the turn in progress or just ended, without its trailing quiet, in samples. */
  get spokenSamples(): number {
    return this.#speechSamples - this.#quietSamples;
  }

  /** Speech samples heard since the turn began (its trailing quiet included). */
  get turnSamples(): number {
    return this.#speechSamples;
  }

  /** True when `pcm` is louder than `threshold` (RMS). */
  static loud(pcm: Int16Array, threshold: number): boolean {
    return rms(pcm) > threshold;
  }

  /** Feeds one chunk; reports where speech started or, after `silenceSamples` of quiet, stopped. */
  feed(pcm: Int16Array, loud: boolean, silenceSamples: number): VadChange {
    let change: VadChange = null;
    if (!this.speaking && loud) {
      this.speaking = true;
      this.#speechSamples = 0;
      this.#quietSamples = 0;
      change = 'speech-started';
    }
    if (!this.speaking) return change;
    this.#speechSamples += pcm.length;
    this.#quietSamples = loud ? 0 : this.#quietSamples + pcm.length;
    if (this.#quietSamples >= silenceSamples) {
      this.speaking = false;
      return 'speech-stopped';
    }
    return change;
  }
}
