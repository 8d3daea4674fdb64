// Band energies of a 10 ms mono window at 24 kHz, for the barge-in test's echo comparison
// (barge-in.ts): a Hann window, a 256-point FFT (93.75 Hz bins), the bins summed into bands of about
// a third to half an octave from 100 Hz up. 24 kHz: the model speaks at 24 kHz, so what we play
// holds nothing above 12 kHz, nor does its echo; a voice's energy above it is slight. Each band's value is that band's share of the window's
// mean square (fraction of full scale squared), so the bands add up to the window's level: a frame's
// bands compare directly with a played frame's, and their sum with the floor in dBFS.
// Everything is allocated once; analyze() allocates nothing.

const FFT_SIZE = 256;
const LOG2_SIZE = 8;
/** 10 ms at 24 kHz: what one analysis covers. */
export const BAND_WINDOW = 240;
const BIN_HZ = 24_000 / FFT_SIZE;
/** Upper band edges, Hz. Under 100 Hz (hum, handling noise) counts in no band. */
const BAND_EDGES_HZ = [300, 500, 700, 1000, 1400, 2000, 2800, 4000, 5600, 8000, 12_000];
export const BAND_COUNT = BAND_EDGES_HZ.length;
const LOWEST_HZ = 100;
const FULL_SCALE_SQ = 32768 * 32768;

/** In-place radix-2 FFT of `re`/`im` (FFT_SIZE values, already in bit-reversed order). */
function transform(re: Float64Array, im: Float64Array, cos: Float64Array, sin: Float64Array): void {
  // Twiddle outer, butterflies inner: each twiddle is read once per stage (3× faster in V8).
  for (let size = 2; size <= FFT_SIZE; size <<= 1) {
    const half = size >> 1;
    const step = FFT_SIZE / size;
    for (let j = 0, t = 0; j < half; j++, t += step) {
      const c = cos[t]!;
      const s = sin[t]!;
      for (let a = j; a < FFT_SIZE; a += size) {
        const b = a + half;
        const rb = re[b]!;
        const ib = im[b]!;
        const tr = rb * c - ib * s;
        const ti = rb * s + ib * c;
        const ra = re[a]!;
        const ia = im[a]!;
        re[b] = ra - tr;
        im[b] = ia - ti;
        re[a] = ra + tr;
        im[a] = ia + ti;
      }
    }
  }
}

export class BandAnalyzer {
  readonly #window = new Float64Array(BAND_WINDOW);
  readonly #re = new Float64Array(FFT_SIZE);
  readonly #im = new Float64Array(FFT_SIZE);
  readonly #cos = new Float64Array(FFT_SIZE / 2);
  readonly #sin = new Float64Array(FFT_SIZE / 2);
  readonly #reversed = new Uint16Array(FFT_SIZE);
  /** Band of each bin 0..FFT_SIZE/2 (-1: none). */
  readonly #bandOf = new Int8Array(FFT_SIZE / 2 + 1);
  /** |X|² → share of the mean square: 2 (both halves of the spectrum) / (N · Σw² · full scale²). */
  readonly #scale: number;

  constructor() {
    let windowPower = 0;
    for (let n = 0; n < BAND_WINDOW; n++) {
      const w = 0.5 - 0.5 * Math.cos((2 * Math.PI * (n + 0.5)) / BAND_WINDOW);
      this.#window[n] = w;
      windowPower += w * w;
    }
    this.#scale = 2 / (FFT_SIZE * windowPower * FULL_SCALE_SQ);
    for (let k = 0; k < FFT_SIZE / 2; k++) {
      this.#cos[k] = Math.cos((2 * Math.PI * k) / FFT_SIZE);
      this.#sin[k] = -Math.sin((2 * Math.PI * k) / FFT_SIZE);
    }
    for (let i = 0; i < FFT_SIZE; i++) {
      let r = 0;
      for (let b = 0; b < LOG2_SIZE; b++) r |= ((i >> b) & 1) << (LOG2_SIZE - 1 - b);
      this.#reversed[i] = r;
    }
    for (let k = 0; k <= FFT_SIZE / 2; k++) {
      const hz = k * BIN_HZ;
      this.#bandOf[k] = hz < LOWEST_HZ ? -1 : BAND_EDGES_HZ.findIndex((edge) => hz < edge);
    }
  }

  /**
   * Band energies of BAND_WINDOW samples of `mono` from `from` into `out` at `at` (BAND_COUNT
   * values). With `second`, the window from `second` too, into `secondOut` at `secondAt`, in the
   * same FFT (two real windows as one complex one).
   */
  analyze(mono: Int16Array, from: number, out: Float64Array, at: number, second = -1, secondOut: Float64Array = out, secondAt = 0): void {
    const re = this.#re;
    const im = this.#im;
    const reversed = this.#reversed;
    const window = this.#window;
    re.fill(0);
    im.fill(0);
    for (let n = 0; n < BAND_WINDOW; n++) re[reversed[n]!] = mono[from + n]! * window[n]!;
    if (second >= 0) for (let n = 0; n < BAND_WINDOW; n++) im[reversed[n]!] = mono[second + n]! * window[n]!;
    transform(re, im, this.#cos, this.#sin);
    out.fill(0, at, at + BAND_COUNT);
    if (second >= 0) secondOut.fill(0, secondAt, secondAt + BAND_COUNT);
    const bandOf = this.#bandOf;
    const scale = this.#scale;
    for (let k = 1; k < FFT_SIZE / 2; k++) {
      const band = bandOf[k]!;
      if (band < 0) continue;
      if (second < 0) {
        out[at + band] = out[at + band]! + (re[k]! * re[k]! + im[k]! * im[k]!) * scale;
        continue;
      }
      // Z = X + iY of two real windows: X[k] = (Z[k] + conj Z[N-k]) / 2, Y[k] = (Z[k] - conj Z[N-k]) / 2i.
      const xr = (re[k]! + re[FFT_SIZE - k]!) / 2;
      const xi = (im[k]! - im[FFT_SIZE - k]!) / 2;
      const yr = (im[k]! + im[FFT_SIZE - k]!) / 2;
      const yi = (re[FFT_SIZE - k]! - re[k]!) / 2;
      out[at + band] = out[at + band]! + (xr * xr + xi * xi) * scale;
      secondOut[secondAt + band] = secondOut[secondAt + band]! + (yr * yr + yi * yi) * scale;
    }
  }
}
