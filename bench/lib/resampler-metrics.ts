// What the audio benchmark measures for each resampler: tone sweeps (passband gain, alias/image
// level), SNR against a reference on speech, throughput and allocations per 20 ms frame.
import { designLowPass, kaiserBeta } from '../../main/core/audio/fir-design.ts';
import { measureAllocationsPerFrame } from './allocation-meter.ts';
import type { Candidate } from './resampler-candidates.ts';
import { concatPcm } from '../../main/fakes/shared/pcm.ts';
import { db, foldedFrequency, toneAt } from './tone-analysis.ts';

export const SEGMENT_S = 1.3;
const SETTLE_S = 0.25; // analysis window [0.25 s, 1.25 s) of each segment: whole cycles, guard at both ends
export const TONE_AMPLITUDE = 30_000;
/**
 * A spur under half an LSB rounds away in s16 output (the output is then exactly the tone), so
 * nothing smaller can be measured: levels are floored there and reported as ">= floor".
 */
export const SPUR_FLOOR_DB = 20 * Math.log10(0.5 / TONE_AMPLITUDE);

export const DOWN_TONES = [100, 250, 500, 1000, 1500, 2000, 2500, 3000, 3500, 4000, 4500, 5000, 5500, 6000, 6500, 7000, 7500, 8500, 9000, 9500, 10_000, 10_500, 11_000, 11_500, 12_000, 12_500, 13_000, 13_500, 14_000, 14_500, 15_000, 15_500, 16_500, 17_000, 17_500, 18_000, 18_500, 19_000, 19_500, 20_000, 20_500, 21_000, 21_500, 22_000, 22_500, 23_000, 23_500];
export const UP_TONES = [100, 250, 500, 1000, 1500, 2000, 2500, 3000, 3500, 4000, 4500, 5000, 5500, 6000, 6500, 7000, 7500, 8000, 8500, 9000, 9500, 10_000, 10_500, 11_000, 11_500];

/** Consecutive tone segments, `channels` identical channels. */
export function toneSweep(rate: number, channels: number, tones: number[]): Int16Array {
  const seg = Math.round(SEGMENT_S * rate);
  const out = new Int16Array(tones.length * seg * channels);
  tones.forEach((f, s) => {
    for (let i = 0; i < seg; i++) {
      const t = s * seg + i;
      const v = Math.round(TONE_AMPLITUDE * Math.sin((2 * Math.PI * f * t) / rate));
      for (let c = 0; c < channels; c++) out[t * channels + c] = v;
    }
  });
  return out;
}

export interface ToneResult {
  freqHz: number;
  /** Gain of the tone itself (dB), per output channel. */
  gainDb: number[];
  /** Level of the alias (down) or image (up) relative to the input tone (dB). */
  spuriousDb: number;
  spuriousHz: number;
}

export function analyseSweep(out: Int16Array, outRate: number, channels: number, tones: number[], direction: 'down' | 'up'): ToneResult[] {
  const seg = Math.round(SEGMENT_S * outRate);
  const start = Math.round(SETTLE_S * outRate);
  return tones.map((f, s) => {
    const from = s * seg + start;
    const gainDb: number[] = [];
    for (let c = 0; c < channels; c++) gainDb.push(f < outRate / 2 ? db(toneAt(out, outRate, f, from, outRate, channels, c).amplitude / TONE_AMPLITUDE) : Number.NaN);
    const spuriousHz = direction === 'down' ? foldedFrequency(f, outRate) : outRate / 2 - f;
    const spurious = direction === 'down' && f < outRate / 2 ? Number.NaN : Math.max(SPUR_FLOOR_DB, db(toneAt(out, outRate, spuriousHz, from, outRate, channels, 0).amplitude / TONE_AMPLITUDE));
    return { freqHz: f, gainDb, spuriousDb: spurious, spuriousHz };
  });
}

/** Max |gain| (dB) over tones up to passbandHz, all channels. */
export function passbandDeviation(results: ToneResult[], passbandHz: number): number {
  let worst = 0;
  for (const r of results) if (r.freqHz <= passbandHz) for (const g of r.gainDb) worst = Math.max(worst, Math.abs(g));
  return worst;
}

/** Smallest distance (dB) between tone and its alias/image over tones whose spur lands in the passband. */
export function rejection(results: ToneResult[], passbandHz: number, fromHz: number, toHz: number): number {
  let worst = Number.POSITIVE_INFINITY;
  for (const r of results) if (r.freqHz >= fromHz && r.freqHz <= toHz && r.spuriousHz <= passbandHz && Number.isFinite(r.spuriousDb)) worst = Math.min(worst, -r.spuriousDb);
  return worst;
}

/** Channel 0 of an interleaved signal. */
export function channel0(x: Int16Array, channels: number): Float64Array {
  const out = new Float64Array(Math.floor(x.length / channels));
  for (let i = 0; i < out.length; i++) out[i] = x[i * channels]!;
  return out;
}

/**
 * SNR (dB) of `out` against `ref` after the best alignment: whole-sample lag within ±maxLag, then a
 * fractional refinement (±0.5 sample in 0.05 steps, 64-tap Kaiser-windowed sinc) so a method whose
 * delay is not a whole number of samples is not charged for a pure delay.
 */
export function alignedSnr(out: Float64Array, ref: Float64Array, maxLag: number, rate: number): { snrDb: number; lagMs: number } {
  const half = 32;
  const edge = maxLag + half + Math.round(0.1 * rate);
  const n = Math.min(out.length, ref.length, edge + 3 * rate) - edge; // 3 s is plenty and keeps it quick
  let bestLag = 0;
  let bestCorr = Number.NEGATIVE_INFINITY;
  for (let lag = -maxLag; lag <= maxLag; lag++) {
    let c = 0;
    for (let i = edge; i < n; i += 4) c += out[i + lag]! * ref[i]!;
    if (c > bestCorr) {
      bestCorr = c;
      bestLag = lag;
    }
  }
  const fracs = [-0.5, -0.4, -0.3, -0.2, -0.1, 0, 0.1, 0.2, 0.3, 0.4, 0.5];
  let best = { snrDb: Number.NEGATIVE_INFINITY, lagMs: 0, frac: 0 };
  const taps = new Float64Array(2 * half);
  const beta = 8;
  const i0 = (x: number): number => {
    let sum = 1;
    let term = 1;
    for (let k = 1; k < 40; k++) {
      term *= (x * x) / 4 / (k * k);
      sum += term;
    }
    return sum;
  };
  const evaluate = (frac: number): void => {
    for (let k = 0; k < 2 * half; k++) {
      const t = k - half + 1 - frac; // tap k multiplies out[i + lag + k - half + 1]
      const r = t / half;
      const w = Math.abs(r) >= 1 ? 0 : i0(beta * Math.sqrt(1 - r * r)) / i0(beta);
      taps[k] = (t === 0 ? 1 : Math.sin(Math.PI * t) / (Math.PI * t)) * w;
    }
    let sig = 0;
    let err = 0;
    for (let i = edge; i < n; i++) {
      let y = 0;
      const base = i + bestLag - half + 1;
      for (let k = 0; k < 2 * half; k++) y += taps[k]! * out[base + k]!;
      const e = y - ref[i]!;
      sig += ref[i]! * ref[i]!;
      err += e * e;
    }
    const snrDb = 10 * Math.log10(sig / Math.max(err, 1e-9));
    if (snrDb > best.snrDb) best = { snrDb, lagMs: ((bestLag + frac) / rate) * 1000, frac };
  };
  for (const frac of fracs) evaluate(frac); // coarse 0.1-sample grid, then refine around the best
  const coarse = best.frac;
  for (const d of [-0.05, -0.025, 0.025, 0.05]) evaluate(coarse + d);
  return { snrDb: best.snrDb, lagMs: best.lagMs };
}

/**
 * Zero-phase-equivalent band limit for the in-band SNR: the same long linear-phase low-pass applied
 * to output and reference (its delay is identical on both, so alignment is unaffected). It removes
 * the transition band, where each resampler legitimately chooses differently, and keeps everything
 * that lands in the band the model or the listener gets: passband error and aliases folded into it.
 */
export function bandLimit(x: Float64Array, rate: number, cutoffHz: number, taps: number): Float64Array {
  const h = designLowPass({ sampleRate: rate, cutoffHz, taps, beta: kaiserBeta(100), gain: 1 });
  const out = new Float64Array(x.length);
  for (let i = taps; i < x.length; i++) {
    let acc = 0;
    for (let k = 0; k < taps; k++) acc += h[k]! * x[i - k]!;
    out[i] = acc;
  }
  return out;
}

/** Whole-signal output of a candidate (streamed frame by frame when it streams). */
export async function runWhole(candidate: Candidate, input: Int16Array): Promise<Int16Array> {
  if (candidate.runWhole !== undefined) return candidate.runWhole(input);
  const run = await candidate.open!(input);
  const parts: Int16Array[] = [];
  for (let i = 0; i < run.frames; i++) parts.push(run.output.slice(0, run.step(i)));
  run.close();
  return concatPcm(parts);
}

/** Audio seconds processed per wall second on this thread (best of `repeats`). */
export async function throughput(candidate: Candidate, input: Int16Array, inputSeconds: number, repeats = 3): Promise<number> {
  let best = 0;
  for (let r = 0; r < repeats; r++) {
    if (candidate.runWhole !== undefined) {
      const t0 = performance.now();
      candidate.runWhole(input);
      best = Math.max(best, inputSeconds / ((performance.now() - t0) / 1000));
      continue;
    }
    const run = await candidate.open!(input);
    let sink = 0;
    const t0 = performance.now();
    for (let i = 0; i < run.frames; i++) sink += run.step(i);
    const elapsed = performance.now() - t0;
    run.close();
    if (sink < 0) throw new Error('unreachable');
    best = Math.max(best, inputSeconds / (elapsed / 1000));
  }
  return best;
}

export async function allocationsPerFrame(candidate: Candidate, input: Int16Array): Promise<number | null> {
  if (candidate.open === undefined) return null;
  const run = await candidate.open(input);
  const report = measureAllocationsPerFrame((f) => run.step(f % run.frames), { warmupFrames: 1000, frames: 2000, windows: 3 });
  run.close();
  return report.bytesPerFrame;
}
