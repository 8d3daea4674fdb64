// What the audio benchmark measures for each resampler: tone sweeps (passband gain, alias/image
// level), SNR against a reference on speech, throughput and allocations per 20 ms frame.
import { designLowPass, kaiserBeta } from '../../main/core/audio/fir-design.ts';
import { measureAllocationsPerFrame } from './allocation-meter.ts';
import type { Candidate } from './resampler-candidates.ts';
import { concatPcm } from '../../main/fakes/shared/pcm.ts';
import { db, foldedFrequency, toneAt } from './tone-analysis.ts';

/**
 * Dense sweep: one tone every SWEEP_STEP_HZ over every input frequency, each a segment of
 * SEGMENT_S with 10 ms raised-cosine ramps, analysed over [SETTLE_S, SETTLE_S + WINDOW_S): 0.1 s
 * lets even soxr's ~40 ms filter settle after the ramp, and the 0.2 s window holds whole cycles of
 * every 25 Hz multiple (exact 5 Hz DFT bins, no leakage).
 */
export const SWEEP_STEP_HZ = 25;
export const SEGMENT_S = 0.32;
const SETTLE_S = 0.1;
const WINDOW_S = 0.2;
const RAMP_S = 0.01;
export const TONE_AMPLITUDE = 30_000;

export const DOWN_TONES = sweepTones(24_000);
export const UP_TONES = sweepTones(12_000);

function sweepTones(nyquistHz: number): number[] {
  const tones: number[] = [];
  for (let f = SWEEP_STEP_HZ; f < nyquistHz; f += SWEEP_STEP_HZ) tones.push(f);
  return tones;
}

/**
 * Consecutive ramped tone segments, `channels` identical channels, with ±1 LSB TPDF dither added
 * before rounding to s16: rounding error then becomes noise spread over all frequencies instead of
 * spurs correlated with the tone, so a 0.2 s DFT bin can see aliases far below the s16 step
 * (the measurement floor is about -125 dB re. the tone; see docs/audio.md).
 */
export function toneSweep(rate: number, channels: number, tones: number[], rnd: () => number): Int16Array {
  const seg = Math.round(SEGMENT_S * rate);
  const ramp = Math.round(RAMP_S * rate);
  const out = new Int16Array(tones.length * seg * channels);
  tones.forEach((f, s) => {
    for (let i = 0; i < seg; i++) {
      const t = s * seg + i;
      const edge = Math.min(i, seg - 1 - i);
      const gain = edge >= ramp ? 1 : 0.5 - 0.5 * Math.cos((Math.PI * edge) / ramp);
      const v = Math.round(gain * TONE_AMPLITUDE * Math.sin((2 * Math.PI * f * t) / rate) + rnd() - rnd());
      for (let c = 0; c < channels; c++) out[t * channels + c] = v;
    }
  });
  return out;
}

export interface ToneResult {
  freqHz: number;
  /** Gain of the tone itself (dB), per output channel (NaN when the output cannot carry it). */
  gainDb: number[];
  /** Level of the alias (down) or image (up) relative to the input tone (dB); NaN when the input makes none. */
  spuriousDb: number;
  spuriousHz: number;
}

export function analyseSweep(
  out: Int16Array,
  outRate: number,
  channels: number,
  tones: number[],
  direction: 'down' | 'up',
): ToneResult[] {
  const seg = Math.round(SEGMENT_S * outRate);
  const start = Math.round(SETTLE_S * outRate);
  const length = Math.round(WINDOW_S * outRate);
  return tones.map((f, s) => {
    const from = s * seg + start;
    const gainDb: number[] = [];
    for (let c = 0; c < channels; c++)
      gainDb.push(
        f < outRate / 2
          ? db(toneAt(out, outRate, f, from, length, channels, c).amplitude / TONE_AMPLITUDE)
          : Number.NaN,
      );
    const spuriousHz = direction === 'down' ? foldedFrequency(f, outRate) : outRate / 2 - f;
    const makesSpur = direction === 'up' || f > outRate / 2;
    const spurious = makesSpur
      ? db(Math.max(1e-9, toneAt(out, outRate, spuriousHz, from, length, channels, 0).amplitude) / TONE_AMPLITUDE)
      : Number.NaN;
    return { freqHz: f, gainDb, spuriousDb: spurious, spuriousHz };
  });
}

/** Max |gain| (dB) over tones up to passbandHz, all channels. */
export function passbandDeviation(results: ToneResult[], passbandHz: number): number {
  let worst = 0;
  for (const r of results) if (r.freqHz <= passbandHz) for (const g of r.gainDb) worst = Math.max(worst, Math.abs(g));
  return worst;
}

/** The weakest alias/image among `results` whose input passes `include`: rejection (dB) and where. */
export function worstRejection(
  results: ToneResult[],
  include: (r: ToneResult) => boolean,
): { db: number; inputHz: number; spurHz: number } {
  let worst = { db: Number.POSITIVE_INFINITY, inputHz: 0, spurHz: 0 };
  for (const r of results)
    if (Number.isFinite(r.spuriousDb) && include(r) && -r.spuriousDb < worst.db)
      worst = { db: -r.spuriousDb, inputHz: r.freqHz, spurHz: r.spuriousHz };
  return worst;
}

/** Worst rejection per 1 kHz band of input frequency (for the JSON: where a weak band is). */
export function worstPerKiloHertz(results: ToneResult[]): { fromHz: number; worstDb: number }[] {
  const bands = new Map<number, number>();
  for (const r of results) {
    if (!Number.isFinite(r.spuriousDb)) continue;
    const band = Math.floor(r.freqHz / 1000) * 1000;
    bands.set(band, Math.min(bands.get(band) ?? Number.POSITIVE_INFINITY, -r.spuriousDb));
  }
  return [...bands].map(([fromHz, worstDb]) => ({ fromHz, worstDb: +worstDb.toFixed(1) }));
}

/**
 * Group delay at 1 kHz: two tones at 1000 and 1010 Hz in one 1.3 s signal, delay from the slope of
 * their phase (unambiguous within ±50 ms). For linear-phase filters this is the delay at every frequency.
 */
export function delaySignal(rate: number, channels: number): Int16Array {
  const n = Math.round(1.3 * rate);
  const out = new Int16Array(n * channels);
  for (let t = 0; t < n; t++) {
    const v = Math.round(
      14_000 * (Math.sin((2 * Math.PI * 1000 * t) / rate) + Math.sin((2 * Math.PI * 1010 * t) / rate)),
    );
    for (let c = 0; c < channels; c++) out[t * channels + c] = v;
  }
  return out;
}

export function measuredDelayMs(out: Int16Array, outRate: number, channels: number): number {
  const from = Math.round(0.25 * outRate);
  const a = toneAt(out, outRate, 1000, from, outRate, channels, 0).phase;
  const b = toneAt(out, outRate, 1010, from, outRate, channels, 0).phase;
  // b - a = -2π·10·delay (mod 2π); read the delay in [-50, 50) ms (a method that trims its own delay lands near 0).
  const turns = -(b - a) / (2 * Math.PI);
  const wrapped = turns - Math.round(turns);
  return (wrapped / 10) * 1000;
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
export function alignedSnr(
  out: Float64Array,
  ref: Float64Array,
  maxLag: number,
  rate: number,
): { snrDb: number; lagMs: number } {
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

/**
 * Audio seconds processed per second of this process's CPU time (user + system, process.cpuUsage),
 * best of `repeats`. CPU time, not wall time: on a shared machine the time the thread waits for a
 * core is not the resampler's cost. Process candidates report their own CPU time (`cpuSeconds`).
 */
export async function throughput(
  candidate: Candidate,
  input: Int16Array,
  inputSeconds: number,
  repeats = 3,
): Promise<number> {
  let best = 0;
  const cpuNow = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  };
  for (let r = 0; r < repeats; r++) {
    if (candidate.cpuSeconds !== undefined) {
      best = Math.max(best, inputSeconds / candidate.cpuSeconds(input));
      continue;
    }
    if (candidate.runWhole !== undefined) {
      const t0 = cpuNow();
      candidate.runWhole(input);
      best = Math.max(best, inputSeconds / Math.max(1e-6, cpuNow() - t0));
      continue;
    }
    const run = await candidate.open!(input);
    let sink = 0;
    const t0 = cpuNow();
    for (let i = 0; i < run.frames; i++) sink += run.step(i);
    const elapsed = cpuNow() - t0;
    run.close();
    if (sink < 0) throw new Error('unreachable');
    best = Math.max(best, inputSeconds / Math.max(1e-6, elapsed));
  }
  return best;
}

export async function allocationsPerFrame(candidate: Candidate, input: Int16Array): Promise<number | null> {
  if (candidate.open === undefined) return null;
  const run = await candidate.open(input);
  const report = measureAllocationsPerFrame((f) => run.step(f % run.frames), {
    warmupFrames: 1000,
    frames: 2000,
    windows: 3,
  });
  run.close();
  return report.bytesPerFrame;
}
