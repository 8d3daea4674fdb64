// 24 kHz mono (model output) -> 48 kHz mono (Discord playback): an interpolate-by-2 FIR in
// polyphase form. The filter (resampler-taps.ts) is an equiripple low-pass with its stopband
// starting at 12 kHz, the input's Nyquist frequency, so the image of every input frequency
// (at 24 kHz - f) is removed (>= 90 dB), including those of 10-12 kHz that a half-band filter
// would leave at 12-14 kHz. The two polyphase branches (50 and 49 taps) run in WebAssembly SIMD,
// four taps at a time (fir-kernel.wat). The output stays mono: the bot's voice is coded as mono
// Opus (voice/playback.ts), and any decoder plays a mono packet on both channels.
import { FirKernel, KERNEL_BRANCH_STRIDE, KERNEL_INPUT_CAPACITY } from './fir-kernel.ts';
import { ReusableInt16Output, roundClipInto } from './pcm.ts';
import { UPSAMPLER_TAPS_48K } from './resampler-taps.ts';

const OUTPUT_RATE = 48_000;
/** 99 taps at 48 kHz: passband ripple 0.03 dB to 10 kHz, >= 98 dB (designed) from 12 kHz. */
export const UPSAMPLER_TAPS = UPSAMPLER_TAPS_48K.length;
export const UPSAMPLER_PASSBAND_HZ = 10_000;
/** Images of every input frequency (0-12 kHz) land at 12-24 kHz, where the filter is >= 90 dB down. */
export const UPSAMPLER_STOPBAND_HZ = 12_000;
const CENTRE = (UPSAMPLER_TAPS - 1) / 2; // 49: the group delay in output samples
/** Input samples spanned by the even branch h[0], h[2], ... h[98] (the odd branch spans one fewer). */
const SPAN = CENTRE + 1; // 50

/** The full interpolation filter (DC gain 2), the first half of the table mirrored so it is exactly symmetric. */
export function designUpsamplerTaps(): Float64Array {
  const h = Float64Array.from(UPSAMPLER_TAPS_48K);
  for (let k = 0; k < CENTRE; k++) h[UPSAMPLER_TAPS - 1 - k] = h[k]!;
  return h;
}

/** Float core shared by the s16 upsampler and the playback buffer. */
export class PolyphaseInterpolator2x {
  readonly groupDelayMs = (CENTRE / OUTPUT_RATE) * 1000;
  /** The two branches and their 50-sample ring run in the kernel (fir-kernel.wat, `interpolate2`). */
  readonly #kernel = new FirKernel();

  constructor() {
    // With the ring's oldest sample at j = 0 and its newest at j = 49, output 2m is the sum over j
    // of h[2j] x[m - 49 + j] and output 2m + 1 that of h[2j - 1] x[m - 49 + j] (h is symmetric,
    // h[n] = h[98 - n]), j = 1..49: the odd branch is shifted by one tap, its first a zero.
    const h = designUpsamplerTaps();
    const taps = this.#kernel.taps;
    for (let j = 0; j < SPAN; j++) {
      taps[j] = h[2 * j]!;
      if (j > 0) taps[KERNEL_BRANCH_STRIDE + j] = h[2 * j - 1]!;
    }
  }

  /**
   * Interpolate `count` input samples starting at `input[start]` (pass null for digital silence) into
   * 2 * count float mono samples at `out[outOffset]`.
   */
  run(input: Int16Array | null, start: number, count: number, out: Float32Array, outOffset: number): void {
    const kernel = this.#kernel;
    const kernelInput = kernel.input;
    const result = kernel.outputFloat32;
    let o = outOffset;
    for (let done = 0; done < count;) {
      const take = Math.min(count - done, KERNEL_INPUT_CAPACITY);
      if (input !== null) for (let k = 0; k < take; k++) kernelInput[k] = input[start + done + k]!;
      kernel.interpolate2(take, input === null);
      for (let k = 0; k < 2 * take; k++) out[o++] = result[k]!;
      done += take;
    }
  }

  reset(): void {
    this.#kernel.reset();
  }
}

export class Upsampler24kTo48k {
  readonly #core = new PolyphaseInterpolator2x();
  readonly groupDelayMs = this.#core.groupDelayMs;
  #float = new Float32Array(0);
  readonly #out = new ReusableInt16Output();

  /**
   * Feed 24 kHz mono s16 (any length); returns 48 kHz mono s16, two samples per input sample. The
   * result is a view into a reused buffer: valid until the next call.
   */
  process(pcm24k: Int16Array): Int16Array {
    const n = pcm24k.length;
    if (this.#float.length < 2 * n) this.#float = new Float32Array(2 * n);
    const float = this.#float;
    const out = this.#out.ensure(2 * n);
    this.#core.run(pcm24k, 0, n, float, 0);
    roundClipInto(float, out, 2 * n);
    return this.#out.view(2 * n);
  }

  reset(): void {
    this.#core.reset();
  }
}
