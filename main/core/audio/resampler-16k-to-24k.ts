// 16 kHz mono (the voice gate's output) -> 24 kHz mono (OpenAI's only `audio/pcm` input rate):
// interpolate by 3, low-pass at 48 kHz, keep every second sample, in polyphase form so only the
// kept samples are computed and the zero-stuffed samples are never multiplied; the branches run in
// WebAssembly SIMD (fir-kernel.wat).
// The low-pass is the downsampler's own design (193 taps at 48 kHz, stopband from 8 kHz) scaled to
// a DC gain of 3: the same band edge on the way back up, one filter design in the code base.
// Streaming: history and output phase survive between calls, so any chunking gives the same output.
import { designDownsamplerTaps, DOWNSAMPLER_TAPS } from './downsampler.ts';
import { FirKernel, KERNEL_BRANCH_STRIDE } from './fir-kernel.ts';
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
      for (let i = 0; p + UP * i < taps.length; i++)
        this.#kernel.taps[p * KERNEL_BRANCH_STRIDE + i] = taps[p + UP * i]! * UP;
    }
  }

  /** Feed 16 kHz mono s16 (any length); returns the 24 kHz samples produced (a reused view). */
  process(pcm16k: Int16Array): Int16Array {
    const out = this.#out.ensure(Math.ceil(pcm16k.length * 1.5) + 2);
    return this.#out.view(this.#kernel.runInt16('resample3to2', pcm16k, out));
  }

  /** Forget all history (silence in, as if freshly constructed). */
  reset(): void {
    this.#kernel.reset();
  }
}
