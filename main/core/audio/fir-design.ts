// Kaiser-windowed sinc low-pass design. Run once at construction, never on the audio path.
// The Kaiser window lets us pick the stopband attenuation directly (beta from the attenuation)
// and the length from the transition width (Kaiser's formula), which is exactly what the spec
// constrains: passband edge, alias/image band edge, >= 90 dB rejection.

export interface LowPassSpec {
  /** Sample rate the filter runs at (Hz). */
  sampleRate: number;
  /** Cutoff (Hz): the middle of the transition band; -6 dB point of the windowed sinc. */
  cutoffHz: number;
  /** Odd number of taps so the group delay is a whole number of samples. */
  taps: number;
  /** Kaiser beta. */
  beta: number;
  /** DC gain (1 for decimators, L for an interpolator by L, which compensates the zero stuffing). */
  gain: number;
}

/** Zeroth-order modified Bessel function of the first kind (power series; converges fast for beta < 20). */
export function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  const q = (x * x) / 4;
  for (let k = 1; k < 64; k++) {
    term *= q / (k * k);
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

/** Kaiser's empirical beta for a stopband attenuation of `attenuationDb`. */
export function kaiserBeta(attenuationDb: number): number {
  if (attenuationDb > 50) return 0.1102 * (attenuationDb - 8.7);
  if (attenuationDb >= 21) return 0.5842 * (attenuationDb - 21) ** 0.4 + 0.07886 * (attenuationDb - 21);
  return 0;
}

/** Symmetric (linear-phase) low-pass taps, normalised so the taps sum to `gain` exactly. */
export function designLowPass(spec: LowPassSpec): Float64Array {
  const { sampleRate, cutoffHz, taps, beta, gain } = spec;
  if (!Number.isInteger(taps) || taps < 3 || taps % 2 === 0) throw new RangeError('taps must be an odd integer >= 3');
  const h = new Float64Array(taps);
  const centre = (taps - 1) / 2;
  const fc = cutoffHz / sampleRate; // cycles per sample
  const i0Beta = besselI0(beta);
  let sum = 0;
  for (let n = 0; n < taps; n++) {
    const k = n - centre;
    const sinc = k === 0 ? 2 * fc : Math.sin(2 * Math.PI * fc * k) / (Math.PI * k);
    const r = k / centre;
    const window = besselI0(beta * Math.sqrt(Math.max(0, 1 - r * r))) / i0Beta;
    h[n] = sinc * window;
    sum += h[n]!;
  }
  for (let n = 0; n < taps; n++) h[n] = (h[n]! * gain) / sum;
  return h;
}

/** Magnitude of the filter's frequency response at `freqHz` (linear, relative to a DC gain of `gain`). */
export function firMagnitude(h: ArrayLike<number>, sampleRate: number, freqHz: number): number {
  const w = (2 * Math.PI * freqHz) / sampleRate;
  let re = 0;
  let im = 0;
  for (let n = 0; n < h.length; n++) {
    re += h[n]! * Math.cos(w * n);
    im -= h[n]! * Math.sin(w * n);
  }
  return Math.hypot(re, im);
}
