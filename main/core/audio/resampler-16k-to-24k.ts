// 16 kHz mono (the voice gate's output) -> 24 kHz mono (OpenAI's only `audio/pcm` input rate):
// interpolate by 3, low-pass at 48 kHz, keep every second sample, in polyphase form so only the
// kept samples are computed and the zero-stuffed samples are never multiplied.
// The low-pass is the downsampler's own design (cutoff 8 kHz at 48 kHz, 157 taps, 100 dB) scaled
// to a DC gain of 3: the same band edge on the way back up, one filter design in the code base.
// Streaming: history and output phase survive between calls, so any chunking gives the same output.
import { designDownsamplerTaps, DOWNSAMPLER_TAPS } from './downsampler.ts';
import { ReusableInt16Output } from './pcm.ts';

const UP = 3;
/** Input samples each polyphase branch spans. */
const BRANCH = Math.ceil(DOWNSAMPLER_TAPS / UP); // 53

export class Resampler16kTo24kMono {
  /** Filter delay: (taps - 1) / 2 samples at the 48 kHz intermediate rate. */
  readonly groupDelayMs = ((DOWNSAMPLER_TAPS - 1) / 2 / 48_000) * 1000;
  /** Branch p holds h[p], h[p+3], h[p+6], ... (times 3): applied to x[m], x[m-1], ... */
  readonly #branches: Float32Array[];
  /** Input history written twice (i and i + BRANCH) so the newest BRANCH samples are contiguous. */
  readonly #hist = new Float32Array(2 * BRANCH);
  #pos = 0;
  /** Parity of the input index: even inputs yield outputs at phases 0 and 2, odd ones at phase 1. */
  #odd = false;
  readonly #out = new ReusableInt16Output();

  constructor() {
    const taps = designDownsamplerTaps();
    this.#branches = [0, 1, 2].map((p) => {
      const branch = new Float32Array(BRANCH);
      for (let i = 0; p + UP * i < taps.length; i++) branch[i] = taps[p + UP * i]! * UP;
      return branch;
    });
  }

  /** Feed 16 kHz mono s16 (any length); returns the 24 kHz samples produced (a reused view). */
  process(pcm16k: Int16Array): Int16Array {
    const n = pcm16k.length;
    const out = this.#out.ensure(Math.ceil(n * 1.5) + 2);
    const hist = this.#hist;
    let pos = this.#pos;
    let odd = this.#odd;
    let produced = 0;
    for (let i = 0; i < n; i++) {
      const x = pcm16k[i]!;
      // Newest sample at the highest index of the contiguous window [pos, pos + BRANCH).
      pos = pos === 0 ? BRANCH - 1 : pos - 1;
      hist[pos] = x;
      hist[pos + BRANCH] = x;
      if (odd) out[produced++] = this.#dot(1, pos);
      else {
        out[produced++] = this.#dot(0, pos);
        out[produced++] = this.#dot(2, pos);
      }
      odd = !odd;
    }
    this.#pos = pos;
    this.#odd = odd;
    return this.#out.view(produced);
  }

  /** Forget all history (silence in, as if freshly constructed). */
  reset(): void {
    this.#hist.fill(0);
    this.#pos = 0;
    this.#odd = false;
  }

  /** One output sample: branch `p` against the window starting at the newest input. */
  #dot(p: number, pos: number): number {
    const branch = this.#branches[p]!;
    const hist = this.#hist;
    let acc = 0;
    for (let k = 0; k < BRANCH; k++) acc += branch[k]! * hist[pos + k]!;
    const r = Math.round(acc);
    return r > 32767 ? 32767 : r < -32768 ? -32768 : r;
  }
}
