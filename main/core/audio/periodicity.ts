// Whether a 20 ms frame is voiced: a pitch period repeats in it. A voice's vowels are a pulse train
// (80-400 Hz), so the frame correlates with itself one period later; a cough or a throat clear is
// shaped noise and does not. Measured on the noise corpus (docs/audio.md "Phantom turns"): a 20 ms
// frame of a cough peaks at a normalised autocorrelation of 0.2-0.67, the vowels of the speech
// controls and of the espeak-ng pause corpus at 0.8-1.0 (their fricatives at 0.2-0.4). Music is
// periodic too and is not told apart here, nor is a steady tone (the fakes' voices are tones, and
// pass); a decaying ring (a key's body) is left to the caller (barge-in.ts checks the frame's decay).
// Cost: the frame at 8 kHz (160 samples) against itself at up to 81 lags, ~13 k multiply-adds
// (about 30 µs measured here), run only on a frame that would confirm a barge-in.

const DECIMATION = 6; // 48 kHz → 8 kHz: the mean of six samples
const MIN_LAG = 20; // 400 Hz at 8 kHz
const MAX_LAG = 100; // 80 Hz at 8 kHz

export class Periodicity {
  readonly #x: Float64Array;

  /** `frameSamples`: the 48 kHz frame's length (960: 20 ms). */
  constructor(frameSamples = 960) {
    this.#x = new Float64Array(Math.floor(frameSamples / DECIMATION));
  }

  /**
   * Whether `pcm48k` (its first frameSamples) correlates with itself, one lag in 80-400 Hz later, at
   * `minCorrelation` or more (normalised, mean removed). A boolean: a fractional return is boxed.
   */
  isVoiced(pcm48k: Int16Array, minCorrelation: number): boolean {
    const x = this.#x;
    const n = x.length;
    let mean = 0;
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (let j = i * DECIMATION; j < (i + 1) * DECIMATION; j++) sum += pcm48k[j]!;
      x[i] = sum / DECIMATION;
      mean += x[i]!;
    }
    mean /= n;
    for (let i = 0; i < n; i++) x[i] = x[i]! - mean;
    for (let lag = MIN_LAG; lag <= MAX_LAG && lag < n; lag++) if (this.#correlation(lag) >= minCorrelation) return true;
    return false;
  }

  /** Normalised correlation of the frame with itself `lag` samples later (0 for silence). */
  #correlation(lag: number): number {
    const x = this.#x;
    let xy = 0;
    let xx = 0;
    let yy = 0;
    for (let i = 0; i + lag < x.length; i++) {
      const a = x[i]!;
      const b = x[i + lag]!;
      xy += a * b;
      xx += a * a;
      yy += b * b;
    }
    return xx > 0 && yy > 0 ? xy / Math.sqrt(xx * yy) : 0;
  }
}
