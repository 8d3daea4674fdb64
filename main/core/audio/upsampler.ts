// 24 kHz mono (model output) -> 48 kHz stereo (Discord playback): an interpolate-by-2 half-band FIR
// in polyphase form. With the cutoff at a quarter of the output rate, every other tap of the
// windowed sinc is zero except the centre, so one output phase is a pure delay of the input and
// the other is a short symmetric filter: about 27 multiplies per input sample. Mono is resampled
// once and duplicated, so L and R are identical by construction.
import { designLowPass, kaiserBeta } from './fir-design.ts';
import { ReusableInt16Output, roundClipMonoToStereo } from './pcm.ts';

const OUTPUT_RATE = 48_000;
/** 107 taps at 48 kHz, Kaiser beta for 100 dB: flat to < 0.001 dB up to 10.5 kHz, >= 100 dB from 13.5 kHz. */
export const UPSAMPLER_TAPS = 107;
export const UPSAMPLER_PASSBAND_HZ = 10_500;
/** Images of 0-10.5 kHz land at 13.5-24 kHz, where the filter is >= 90 dB down. */
export const UPSAMPLER_STOPBAND_HZ = 13_500;
const CENTRE = (UPSAMPLER_TAPS - 1) / 2; // 53: odd, so the centre tap sits in the odd output phase
/** Input samples spanned by the even (filtering) phase. */
const SPAN = CENTRE + 1; // 54
/** The odd phase is x[n - DELAY_IN]. */
const DELAY_IN = (CENTRE - 1) / 2; // 26

/** Full interpolation filter (gain 2), with the half-band structure made exact. */
export function designUpsamplerTaps(): Float64Array {
  const h = designLowPass({ sampleRate: OUTPUT_RATE, cutoffHz: 12_000, taps: UPSAMPLER_TAPS, beta: kaiserBeta(100), gain: 2 });
  let evenSum = 0;
  for (let j = 0; j < UPSAMPLER_TAPS; j++) {
    const offset = j - CENTRE;
    if (offset === 0) h[j] = 1;
    else if (offset % 2 === 0) h[j] = 0;
    else evenSum += h[j]!;
  }
  // Each polyphase branch gets a DC gain of exactly 1, so a constant input has no image at 24 kHz.
  for (let j = 0; j < UPSAMPLER_TAPS; j += 2) h[j] = h[j]! / evenSum;
  return h;
}

/** Float core shared by the s16 upsampler and the playback buffer. */
export class HalfbandInterpolator2x {
  readonly groupDelayMs = (CENTRE / OUTPUT_RATE) * 1000;
  /** Even-phase taps g[0], g[2], ... g[52] (the other half is their mirror image). */
  readonly #half: Float32Array;
  readonly #hist = new Float32Array(2 * SPAN);
  #pos = 0;

  constructor() {
    const h = designUpsamplerTaps();
    this.#half = new Float32Array(SPAN / 2);
    for (let k = 0; k < SPAN / 2; k++) this.#half[k] = h[2 * k]!;
  }

  /**
   * Interpolate `count` input samples starting at `input[start]` (pass null for digital silence) into
   * 2 * count float mono samples at `out[outOffset]`.
   */
  run(input: Int16Array | null, start: number, count: number, out: Float32Array, outOffset: number): void {
    const hist = this.#hist;
    const half = this.#half;
    const taps = half.length;
    let o = outOffset;
    for (let i = 0; i < count; i++) {
      const x = input === null ? 0 : input[start + i]!;
      hist[this.#pos] = x;
      hist[this.#pos + SPAN] = x;
      if (++this.#pos === SPAN) this.#pos = 0;
      // Oldest of the newest SPAN samples is at #pos, newest at #pos + SPAN - 1.
      const oldest = this.#pos;
      const newest = oldest + SPAN - 1;
      let acc = 0;
      for (let k = 0; k < taps; k++) acc += half[k]! * (hist[newest - k]! + hist[oldest + k]!);
      out[o++] = acc;
      out[o++] = hist[newest - DELAY_IN]!;
    }
  }

  reset(): void {
    this.#hist.fill(0);
    this.#pos = 0;
  }
}

export class Upsampler24kMonoTo48kStereo {
  readonly #core = new HalfbandInterpolator2x();
  readonly groupDelayMs = this.#core.groupDelayMs;
  #mono = new Float32Array(0);
  readonly #out = new ReusableInt16Output();

  /**
   * Feed 24 kHz mono s16 (any length); returns 48 kHz interleaved stereo s16 with L = R, four values
   * per input sample. The result is a view into a reused buffer: valid until the next call.
   */
  process(pcm24kMono: Int16Array): Int16Array {
    const n = pcm24kMono.length;
    if (this.#mono.length < 2 * n) this.#mono = new Float32Array(2 * n);
    const mono = this.#mono;
    const out = this.#out.ensure(4 * n);
    this.#core.run(pcm24kMono, 0, n, mono, 0);
    roundClipMonoToStereo(mono, out, 2 * n);
    return this.#out.view(4 * n);
  }

  reset(): void {
    this.#core.reset();
  }
}
