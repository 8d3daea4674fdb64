// Band energies of a 10 ms mono window at 24 kHz, for the barge-in test's echo comparison
// (barge-in.ts): a Hann window, a 256-point FFT (93.75 Hz bins), the bins summed into bands of about
// a third to half an octave from 100 Hz up. 24 kHz: the model speaks at 24 kHz, so what we play
// holds nothing above 12 kHz, nor does its echo; a voice's energy above it is slight. Each band's value is that band's share of the window's
// mean square (fraction of full scale squared), so the bands add up to the window's level: a frame's
// bands compare directly with a played frame's, and their sum with the floor in dBFS.
// The FFT is fft.js's (radix-4). Everything is allocated once; analyze() allocates nothing.
import FFT from 'fft.js';

const FFT_SIZE = 256;
/** 10 ms at 24 kHz: what one analysis covers. */
export const BAND_WINDOW = 240;
const BIN_HZ = 24_000 / FFT_SIZE;
/** Upper band edges, Hz. Under 100 Hz (hum, handling noise) counts in no band. */
const BAND_EDGES_HZ = [300, 500, 700, 1000, 1400, 2000, 2800, 4000, 5600, 8000, 12_000];
export const BAND_COUNT = BAND_EDGES_HZ.length;
const LOWEST_HZ = 100;
const FULL_SCALE_SQ = 32768 * 32768;

export class BandAnalyzer {
  readonly #window = new Float64Array(BAND_WINDOW);
  readonly #fft = new FFT(FFT_SIZE);
  /** Interleaved complex input and spectrum (re, im, re, im …): fft.js's layout. */
  readonly #input = new Float64Array(2 * FFT_SIZE);
  readonly #spectrum = new Float64Array(2 * FFT_SIZE);
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
  analyze(
    mono: Int16Array,
    from: number,
    out: Float64Array,
    at: number,
    second = -1,
    secondOut: Float64Array = out,
    secondAt = 0,
  ): void {
    const input = this.#input;
    const window = this.#window;
    input.fill(0);
    for (let n = 0; n < BAND_WINDOW; n++) input[2 * n] = mono[from + n]! * window[n]!;
    if (second >= 0) for (let n = 0; n < BAND_WINDOW; n++) input[2 * n + 1] = mono[second + n]! * window[n]!;
    const z = this.#spectrum;
    this.#fft.transform(z, input);
    out.fill(0, at, at + BAND_COUNT);
    if (second >= 0) secondOut.fill(0, secondAt, secondAt + BAND_COUNT);
    const bandOf = this.#bandOf;
    const scale = this.#scale;
    for (let k = 1; k < FFT_SIZE / 2; k++) {
      const band = bandOf[k]!;
      if (band < 0) continue;
      if (second < 0) {
        out[at + band] = out[at + band]! + (z[2 * k]! * z[2 * k]! + z[2 * k + 1]! * z[2 * k + 1]!) * scale;
        continue;
      }
      // Z = X + iY of two real windows: X[k] = (Z[k] + conj Z[N-k]) / 2, Y[k] = (Z[k] - conj Z[N-k]) / 2i.
      const m = 2 * (FFT_SIZE - k);
      const xr = (z[2 * k]! + z[m]!) / 2;
      const xi = (z[2 * k + 1]! - z[m + 1]!) / 2;
      const yr = (z[2 * k + 1]! + z[m + 1]!) / 2;
      const yi = (z[m]! - z[2 * k]!) / 2;
      out[at + band] = out[at + band]! + (xr * xr + xi * xi) * scale;
      secondOut[secondAt + band] = secondOut[secondAt + band]! + (yr * yr + yi * yi) * scale;
    }
  }
}
