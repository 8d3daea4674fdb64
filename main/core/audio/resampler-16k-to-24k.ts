// 16 kHz mono (the voice gate's output) -> 24 kHz mono (OpenAI's only `audio/pcm` input rate):
// interpolate by 3, low-pass at 48 kHz, keep every second sample, in polyphase form so only the
// kept samples are computed and the zero-stuffed samples are never multiplied; the branches run in
// WebAssembly SIMD (fir-kernel.wat).
// The low-pass is the downsampler's own design (193 taps at 48 kHz, stopband from 8 kHz) scaled to
// a DC gain of 3: the same band edge on the way back up, one filter design in the code base.
// Streaming: history and output phase survive between calls, so any chunking gives the same output.
import { designDownsamplerTaps, DOWNSAMPLER_TAPS } from './downsampler.ts';
import { FirKernel, KERNEL_BRANCH_STRIDE, KERNEL_INPUT_CAPACITY } from './fir-kernel.ts';
import { ReusableInt16Output } from './pcm.ts';

const UP = 3;

export class Resampler16kTo24kMono {
  /** Filter delay: (taps - 1) / 2 samples at the 48 kHz intermediate rate. */
  readonly groupDelayMs = ((DOWNSAMPLER_TAPS - 1) / 2 / 48_000) * 1000;
  /**
   * The three branches and their 65-sample ring run in the kernel (fir-kernel.wat, `resample3to2`).
   * Its parity starts even: even inputs yield outputs at phases 0 and 2, odd ones at phase 1.
   */
  readonly #kernel = new FirKernel(0);
  readonly #out = new ReusableInt16Output();

  constructor() {
    // Branch p holds h[p], h[p+3], h[p+6], ... (times 3), applied to x[m], x[m-1], ...
    const taps = designDownsamplerTaps();
    for (let p = 0; p < UP; p++) {
      for (let i = 0; p + UP * i < taps.length; i++) this.#kernel.taps[p * KERNEL_BRANCH_STRIDE + i] = taps[p + UP * i]! * UP;
    }
  }

  /** Feed 16 kHz mono s16 (any length); returns the 24 kHz samples produced (a reused view). */
  process(pcm16k: Int16Array): Int16Array {
    const n = pcm16k.length;
    const out = this.#out.ensure(Math.ceil(n * 1.5) + 2);
    const kernel = this.#kernel;
    let produced = 0;
    let i = 0;
    do {
      const take = Math.min(n - i, KERNEL_INPUT_CAPACITY);
      // The whole input in one copy (the usual case), no view to allocate.
      kernel.input.set(take === n ? pcm16k : pcm16k.subarray(i, i + take));
      i += take;
      const made = kernel.resample3to2(take);
      const result = kernel.outputInt16;
      for (let k = 0; k < made; k++) out[produced + k] = result[k]!;
      produced += made;
    } while (i < n);
    return this.#out.view(produced);
  }

  /** Forget all history (silence in, as if freshly constructed). */
  reset(): void {
    this.#kernel.reset();
  }
}
