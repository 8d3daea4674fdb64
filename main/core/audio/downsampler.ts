// 48 kHz mono (Discord, decoded) -> 16 kHz mono (model input): a decimate-by-3 FIR that only
// computes the samples it keeps (the polyphase form of decimation), run in WebAssembly SIMD
// (fir-kernel.wat). The filter is an equiripple design (resampler-taps.ts) with its stopband
// starting at 8 kHz, the output's Nyquist frequency, so every input that cannot be represented at
// 16 kHz is removed (>= 90 dB), not only the inputs that would fold into the passband. Streaming:
// the filter history and the decimation phase survive between calls, so any chunking gives the
// same output bit for bit. Mono in: libopus downmixes in the decoder (voice/receive.ts), so the
// call's audio is mono from the decoder on (docs/audio.md "Mono inside").
import { FirKernel } from './fir-kernel.ts';
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

export class Downsampler48kTo16k {
  /** Filter delay: (taps - 1) / 2 input samples at 48 kHz. */
  readonly groupDelayMs = ((DOWNSAMPLER_TAPS - 1) / 2 / INPUT_RATE) * 1000;
  /**
   * The ring and the filter run in the kernel (fir-kernel.wat, `decimate3`). Its phase starts at 2
   * so outputs are computed at inputs 0, 3, 6, ...: with the 96-sample filter delay, output n then
   * lands exactly on input time 3(n - 32), a whole number of output samples late (2.0 ms), not a
   * fractional one.
   */
  readonly #kernel = new FirKernel(FACTOR - 1);
  readonly #out = new ReusableInt16Output();

  constructor() {
    this.#kernel.taps.set(designDownsamplerTaps());
  }

  /**
   * Feed 48 kHz mono s16 (any length); returns the 16 kHz mono s16 produced so far. The result is a
   * view into a reused buffer: valid until the next call.
   */
  process(pcm48k: Int16Array): Int16Array {
    const out = this.#out.ensure(Math.ceil((pcm48k.length + FACTOR) / FACTOR) + 1);
    return this.#out.view(this.#kernel.runInt16('decimate3', pcm48k, out));
  }

  /** Forget all history (silence in, as if freshly constructed). */
  reset(): void {
    this.#kernel.reset();
  }
}
