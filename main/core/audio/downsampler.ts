// 48 kHz stereo (Discord) -> 16 kHz mono (model input): downmix, then a decimate-by-3 FIR that only
// computes the samples it keeps (the polyphase form of decimation), run in WebAssembly SIMD
// (fir-kernel.wat). The filter is an equiripple design (resampler-taps.ts) with its stopband
// starting at 8 kHz, the output's Nyquist frequency, so every input that cannot be represented at
// 16 kHz is removed (>= 90 dB), not only the inputs that would fold into the passband. Streaming:
// the filter history, the decimation phase and even half a stereo pair survive between calls, so
// any chunking gives the same output bit for bit.
import { FirKernel, KERNEL_INPUT_CAPACITY } from './fir-kernel.ts';
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
  /**
   * The downmix, the mono ring and the filter run in the kernel (fir-kernel.wat, `decimate3`). Its
   * phase starts at 2 so outputs are computed at inputs 0, 3, 6, ...: with the 96-sample filter
   * delay, output n then lands exactly on input time 3(n - 32), a whole number of output samples
   * late (2.0 ms), not a fractional one.
   */
  readonly #kernel = new FirKernel(FACTOR - 1);
  /** The left value of a stereo pair whose right value has not arrived yet (an odd-length input). */
  #pendingLeft = 0;
  #hasPendingLeft = false;
  readonly #out = new ReusableInt16Output();

  constructor() {
    this.#kernel.taps.set(designDownsamplerTaps());
  }

  /**
   * Feed interleaved 48 kHz stereo s16 (any length, even an odd number of values); returns the 16 kHz
   * mono s16 produced so far. The result is a view into a reused buffer: valid until the next call.
   */
  process(pcm48kStereo: Int16Array): Int16Array {
    const n = pcm48kStereo.length;
    const out = this.#out.ensure(Math.ceil((n / 2 + FACTOR) / FACTOR) + 1);
    const kernel = this.#kernel;
    const input = kernel.input;
    let produced = 0;
    let i = 0;
    do {
      // A pending left value goes first, so the kernel always sees whole pairs.
      const carried = this.#hasPendingLeft ? 1 : 0;
      if (carried) input[0] = this.#pendingLeft;
      const take = Math.min(n - i, KERNEL_INPUT_CAPACITY - carried);
      // The whole input in one copy (the 20 ms case), no view to allocate.
      input.set(take === n ? pcm48kStereo : pcm48kStereo.subarray(i, i + take), carried);
      i += take;
      const values = carried + take;
      this.#hasPendingLeft = (values & 1) === 1;
      if (this.#hasPendingLeft) this.#pendingLeft = input[values - 1]!;
      const made = kernel.decimate3(values >> 1);
      const result = kernel.outputInt16;
      for (let k = 0; k < made; k++) out[produced + k] = result[k]!;
      produced += made;
    } while (i < n);
    return this.#out.view(produced);
  }

  /** Forget all history (silence in, as if freshly constructed). */
  reset(): void {
    this.#kernel.reset();
    this.#hasPendingLeft = false;
  }
}
