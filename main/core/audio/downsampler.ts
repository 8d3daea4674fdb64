// 48 kHz stereo (Discord) -> 16 kHz mono (model input): downmix, then a decimate-by-3 FIR that only
// computes the samples it keeps (the polyphase form of decimation). The filter is an equiripple
// design (resampler-taps.ts) with its stopband starting at 8 kHz, the output's Nyquist frequency, so
// every input that cannot be represented at 16 kHz is removed (>= 90 dB), not only the inputs that
// would fold into the passband. Streaming: the filter history,
// the decimation phase and even half a stereo pair survive between calls, so any chunking gives the
// same output bit for bit.
import { ReusableInt16Output } from './pcm.ts';
import { DOWNSAMPLER_TAPS_48K } from './resampler-taps.ts';

const INPUT_RATE = 48_000;
const FACTOR = 3;
/** 193 taps: passband ripple 0.04 dB to 7 kHz, >= 96 dB (designed) from 8 kHz. */
export const DOWNSAMPLER_TAPS = DOWNSAMPLER_TAPS_48K.length;
export const DOWNSAMPLER_PASSBAND_HZ = 7_000;
/** Every input at or above this frequency (the output's Nyquist) would alias; the filter is >= 90 dB down there. */
export const DOWNSAMPLER_STOPBAND_HZ = 8_000;

/** The taps the downsampler runs: the first half of the table mirrored, so exactly symmetric. */
export function designDownsamplerTaps(): Float64Array {
  const h = Float64Array.from(DOWNSAMPLER_TAPS_48K);
  for (let k = 0; k < (DOWNSAMPLER_TAPS - 1) / 2; k++) h[DOWNSAMPLER_TAPS - 1 - k] = h[k]!;
  return h;
}

export class Downsampler48kStereoTo16kMono {
  /** Filter delay: (taps - 1) / 2 input samples at 48 kHz. */
  readonly groupDelayMs = ((DOWNSAMPLER_TAPS - 1) / 2 / INPUT_RATE) * 1000;
  /** First half of the symmetric taps including the centre; the loop folds the mirror image. */
  readonly #half: Float32Array;
  /** Mono history written twice (i and i + N) so the newest N samples are always contiguous. */
  readonly #hist = new Float32Array(2 * DOWNSAMPLER_TAPS);
  #pos = 0;
  /**
   * Starts at 2 so outputs are computed at inputs 0, 3, 6, ...: with the 96-sample filter delay,
   * output n then lands exactly on input time 3(n - 32), a whole number of output samples late
   * (2.0 ms), not a fractional one.
   */
  #phase = FACTOR - 1;
  #pendingLeft = 0;
  #hasPendingLeft = false;
  readonly #out = new ReusableInt16Output();

  constructor() {
    const taps = designDownsamplerTaps();
    this.#half = Float32Array.from(taps.subarray(0, (DOWNSAMPLER_TAPS + 1) / 2));
  }

  /**
   * Feed interleaved 48 kHz stereo s16 (any length, even an odd number of values); returns the 16 kHz
   * mono s16 produced so far. The result is a view into a reused buffer: valid until the next call.
   */
  process(pcm48kStereo: Int16Array): Int16Array {
    const n = pcm48kStereo.length;
    const out = this.#out.ensure(Math.ceil((n / 2 + 1 + this.#phase) / FACTOR) + 1);
    const hist = this.#hist;
    const half = this.#half;
    const centre = half.length - 1;
    // One flat loop with locals: a helper that took or returned a fractional number would box it
    // (a heap allocation per sample) whenever the JIT chose not to inline it.
    let pos = this.#pos;
    let phase = this.#phase;
    let produced = 0;
    let i = 0;
    let carry = this.#hasPendingLeft;
    while (true) {
      let mono: number;
      if (carry) {
        if (n === 0) break;
        mono = (this.#pendingLeft + pcm48kStereo[0]!) * 0.5;
        carry = false;
        i = 1;
      } else if (i + 1 < n) {
        mono = (pcm48kStereo[i]! + pcm48kStereo[i + 1]!) * 0.5;
        i += 2;
      } else break;
      hist[pos] = mono;
      hist[pos + DOWNSAMPLER_TAPS] = mono;
      if (++pos === DOWNSAMPLER_TAPS) pos = 0;
      if (++phase === FACTOR) {
        phase = 0;
        // Symmetric FIR over the newest N samples (oldest at pos), folding the mirror-image taps.
        const last = pos + DOWNSAMPLER_TAPS - 1;
        let acc = half[centre]! * hist[pos + centre]!;
        for (let k = 0; k < centre; k++) acc += half[k]! * (hist[pos + k]! + hist[last - k]!);
        const r = Math.round(acc);
        out[produced++] = r > 32767 ? 32767 : r < -32768 ? -32768 : r;
      }
    }
    this.#hasPendingLeft = carry || i < n;
    if (i < n) this.#pendingLeft = pcm48kStereo[i]!;
    this.#pos = pos;
    this.#phase = phase;
    return this.#out.view(produced);
  }

  /** Forget all history (silence in, as if freshly constructed). */
  reset(): void {
    this.#hist.fill(0);
    this.#pos = 0;
    this.#phase = FACTOR - 1;
    this.#hasPendingLeft = false;
  }

}
