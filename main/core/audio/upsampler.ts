// 24 kHz mono (model output) -> 48 kHz stereo (Discord playback): an interpolate-by-2 FIR in
// polyphase form. The filter (resampler-taps.ts) is an equiripple low-pass with its stopband
// starting at 12 kHz, the input's Nyquist frequency, so the image of every input frequency
// (at 24 kHz - f) is removed (>= 90 dB), including those of 10-12 kHz that a half-band filter
// would leave at 12-14 kHz. With an odd length both polyphase branches are symmetric, so each is
// computed folded: 50 multiplies per input sample. Mono is resampled once and duplicated, so L and
// R are identical by construction.
import { ReusableInt16Output, roundClipMonoToStereo } from './pcm.ts';
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
/** Folded taps per branch: the even branch pairs all 50 taps; the odd one has 49 with a lone centre. */
const EVEN_PAIRS = SPAN / 2; // 25
const ODD_PAIRS = (SPAN - 2) / 2; // 24, plus the centre tap g1[24]

/** The full interpolation filter (DC gain 2), the first half of the table mirrored so it is exactly symmetric. */
export function designUpsamplerTaps(): Float64Array {
  const h = Float64Array.from(UPSAMPLER_TAPS_48K);
  for (let k = 0; k < CENTRE; k++) h[UPSAMPLER_TAPS - 1 - k] = h[k]!;
  return h;
}

/** Float core shared by the s16 upsampler and the playback buffer. */
export class PolyphaseInterpolator2x {
  readonly groupDelayMs = (CENTRE / OUTPUT_RATE) * 1000;
  /** Even branch h[0], h[2], ..., first half (it is symmetric). */
  readonly #even: Float32Array;
  /** Odd branch h[1], h[3], ..., first half plus its centre h[49]. */
  readonly #odd: Float32Array;
  /** History written twice (i and i + SPAN) so the newest SPAN samples are always contiguous. */
  readonly #hist = new Float32Array(2 * SPAN);
  #pos = 0;

  constructor() {
    const h = designUpsamplerTaps();
    this.#even = new Float32Array(EVEN_PAIRS);
    for (let k = 0; k < EVEN_PAIRS; k++) this.#even[k] = h[2 * k]!;
    this.#odd = new Float32Array(ODD_PAIRS + 1);
    for (let k = 0; k <= ODD_PAIRS; k++) this.#odd[k] = h[2 * k + 1]!;
  }

  /**
   * Interpolate `count` input samples starting at `input[start]` (pass null for digital silence) into
   * 2 * count float mono samples at `out[outOffset]`.
   */
  run(input: Int16Array | null, start: number, count: number, out: Float32Array, outOffset: number): void {
    const hist = this.#hist;
    const even = this.#even;
    const odd = this.#odd;
    let pos = this.#pos;
    let o = outOffset;
    for (let i = 0; i < count; i++) {
      const x = input === null ? 0 : input[start + i]!;
      hist[pos] = x;
      hist[pos + SPAN] = x;
      if (++pos === SPAN) pos = 0;
      // Newest sample x[m] at pos + SPAN - 1, x[m - k] at newest - k; the oldest (x[m - 49]) at pos.
      const newest = pos + SPAN - 1;
      // Output 2m: sum over k of h[2k] x[m - k], k = 0..49, folded (h[2k] = h[98 - 2k]).
      let accEven = 0;
      for (let k = 0; k < EVEN_PAIRS; k++) accEven += even[k]! * (hist[newest - k]! + hist[pos + k]!);
      // Output 2m + 1: sum over k of h[2k + 1] x[m - k], k = 0..48, folded around k = 24.
      let accOdd = odd[ODD_PAIRS]! * hist[newest - ODD_PAIRS]!;
      for (let k = 0; k < ODD_PAIRS; k++) accOdd += odd[k]! * (hist[newest - k]! + hist[pos + 1 + k]!);
      out[o++] = accEven;
      out[o++] = accOdd;
    }
    this.#pos = pos;
  }

  reset(): void {
    this.#hist.fill(0);
    this.#pos = 0;
  }
}

export class Upsampler24kMonoTo48kStereo {
  readonly #core = new PolyphaseInterpolator2x();
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
