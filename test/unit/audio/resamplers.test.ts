// Measured, not just run: swept sines through each streaming resampler, checked at the s16 edges.
// "Every input frequency" means it: the alias/image sweeps step through the whole band of inputs
// that cannot be represented at the output rate (8-24 kHz down) or that make an image (0-12 kHz up),
// so a weak transition band (the 8.5 dB alias of 8-9 kHz the Kaiser design had) fails here.
import { describe, expect, it } from 'vitest';
import {
  Downsampler48kTo16k,
  DOWNSAMPLER_PASSBAND_HZ,
  DOWNSAMPLER_STOPBAND_HZ,
  designDownsamplerTaps,
} from '../../../main/core/audio/downsampler.ts';
import { firMagnitude } from '../../../main/core/audio/fir-design.ts';
import {
  Upsampler24kTo48k,
  UPSAMPLER_PASSBAND_HZ,
  UPSAMPLER_STOPBAND_HZ,
  designUpsamplerTaps,
} from '../../../main/core/audio/upsampler.ts';
import { db, feedInChunks, foldedFrequency, monoSine, prng, toneAt } from '../../../bench/lib/tone-analysis.ts';

const SETTLE_S = 0.25; // skip the filter's start-up transient before analysing one whole second
/** Sweep step and analysis window for the every-frequency sweeps: 50 Hz steps sit on whole 5 Hz bins of a 0.2 s window. */
const SWEEP_STEP_HZ = 50;
const SWEEP_WINDOW_S = 0.2;
const SWEEP_SETTLE_S = 0.05;
const REJECTION_DB = 90;

/** A tone of `seconds` at `rate` with ±1 LSB TPDF dither, so s16 rounding is noise, not a spur that could hide or fake an alias. */
function ditheredSine(rate: number, seconds: number, freqHz: number, amplitude: number, rnd: () => number): Int16Array {
  const n = Math.round(rate * seconds);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++)
    out[i] = Math.round(amplitude * Math.sin((2 * Math.PI * freqHz * i) / rate) + rnd() - rnd());
  return out;
}

/** Worst (smallest) designed attenuation in dB over [fromHz, toHz] on a 10 Hz grid, relative to `gain`. */
function designedStopband(h: Float64Array, gain: number, fromHz: number, toHz: number): number {
  let worst = Number.POSITIVE_INFINITY;
  for (let f = fromHz; f <= toHz; f += 10) worst = Math.min(worst, -db(firMagnitude(h, 48_000, f) / gain));
  return worst;
}

function designedPassbandDeviation(h: Float64Array, gain: number, toHz: number): number {
  let worst = 0;
  for (let f = 0; f <= toHz; f += 10) worst = Math.max(worst, Math.abs(db(firMagnitude(h, 48_000, f) / gain)));
  return worst;
}

function downsampleWhole(input: Int16Array): Int16Array {
  return new Downsampler48kTo16k().process(input).slice();
}

function upsampleWhole(input: Int16Array): Int16Array {
  return new Upsampler24kTo48k().process(input).slice();
}

describe('Downsampler48kTo16k', () => {
  const passband = [50, 200, 440, 1000, 2000, 3000, 4000, 5000, 6000, 6500, 6800, DOWNSAMPLER_PASSBAND_HZ];
  it.each(passband)('passes %i Hz within ±0.1 dB', (f) => {
    const out = downsampleWhole(monoSine(48_000, 1 + SETTLE_S, f, 16_000));
    const { amplitude } = toneAt(out, 16_000, f, SETTLE_S * 16_000, 16_000);
    expect(Math.abs(db(amplitude / 16_000))).toBeLessThanOrEqual(0.1);
  });

  it('is designed flat within 0.1 dB to 7 kHz and >= 90 dB down from 8 kHz (10 Hz grid)', () => {
    expect(DOWNSAMPLER_STOPBAND_HZ).toBe(8_000); // the output's Nyquist: every input above it aliases
    const h = designDownsamplerTaps();
    expect(designedPassbandDeviation(h, 1, DOWNSAMPLER_PASSBAND_HZ)).toBeLessThanOrEqual(0.1);
    expect(designedStopband(h, 1, DOWNSAMPLER_STOPBAND_HZ, 24_000)).toBeGreaterThanOrEqual(REJECTION_DB);
  });

  it('rejects the alias of every input from 8 to 24 kHz (50 Hz steps, dithered) by >= 90 dB', () => {
    const amplitude = 30_000;
    const rnd = prng(5);
    const window = SWEEP_WINDOW_S * 16_000;
    const failures: string[] = [];
    let worst = Number.POSITIVE_INFINITY;
    for (let f = 8_000; f < 24_000; f += SWEEP_STEP_HZ) {
      const out = downsampleWhole(ditheredSine(48_000, SWEEP_SETTLE_S + SWEEP_WINDOW_S, f, amplitude, rnd));
      const alias = foldedFrequency(f, 16_000);
      const measured = toneAt(out, 16_000, alias, SWEEP_SETTLE_S * 16_000, window).amplitude;
      const rejection = db(amplitude / Math.max(measured, 1e-9));
      worst = Math.min(worst, rejection);
      if (rejection < REJECTION_DB) failures.push(`${f} Hz -> ${alias} Hz: ${rejection.toFixed(1)} dB`);
    }
    expect(failures).toEqual([]);
    expect(worst).toBeGreaterThanOrEqual(REJECTION_DB);
  });

  it('takes mono: one 16 kHz sample per three 48 kHz samples', () => {
    expect(downsampleWhole(new Int16Array(960)).length).toBe(320);
  });

  it('delays by the reported group delay', () => {
    const ds = new Downsampler48kTo16k();
    const out = ds.process(monoSine(48_000, 1 + SETTLE_S, 1000, 16_000)).slice();
    // Output n is computed when input sample 3n arrives; a delay d shows up as a phase lag.
    const tone = toneAt(out, 16_000, 1000, SETTLE_S * 16_000, 16_000);
    const expectedPhase = -2 * Math.PI * 1000 * (ds.groupDelayMs / 1000);
    const diff = Math.atan2(Math.sin(tone.phase - expectedPhase), Math.cos(tone.phase - expectedPhase));
    expect((Math.abs(diff) / (2 * Math.PI * 1000)) * 1000).toBeLessThan(0.005); // ms
    expect(ds.groupDelayMs).toBeLessThanOrEqual(3);
  });

  it('gives bit-identical output for any chunking (1 sample, 20 ms, random sizes)', () => {
    const rnd = prng(7);
    const input = new Int16Array(48_000);
    for (let i = 0; i < input.length; i++) input[i] = Math.round((rnd() * 2 - 1) * 30_000);
    const whole = downsampleWhole(input);
    expect(whole.length).toBe(16_000);
    const a = new Downsampler48kTo16k();
    const b = new Downsampler48kTo16k();
    const c = new Downsampler48kTo16k();
    const one = feedInChunks(input, 1, (p) => a.process(p));
    const frames = feedInChunks(input, 960, (p) => b.process(p));
    const random = feedInChunks(
      input,
      () => 1 + Math.floor(rnd() * 5000),
      (p) => c.process(p),
    );
    for (const got of [one, frames, random])
      expect(Buffer.from(got.buffer).equals(Buffer.from(whole.buffer))).toBe(true);
  });

  it('clips instead of wrapping at full scale', () => {
    const square = new Int16Array(4800);
    for (let i = 0; i < 4800; i++) square[i] = Math.floor(i / 60) % 2 === 0 ? 32_767 : -32_768;
    const out = downsampleWhole(square);
    const delayIn = Math.round((new Downsampler48kTo16k().groupDelayMs * 48_000) / 1000);
    // Gibbs overshoot of the FIR exceeds full scale: it must pin to the rails, never flip sign.
    let pinned = 0;
    for (let i = 100; i < out.length; i++) {
      const expectedSign = Math.floor((3 * i - delayIn) / 60) % 2 === 0 ? 1 : -1;
      if (out[i] === 32_767 || out[i] === -32_768) pinned++;
      if (Math.abs(out[i]!) > 20_000) expect(Math.sign(out[i]!)).toBe(expectedSign);
    }
    expect(pinned).toBeGreaterThan(0);
  });
});

describe('Upsampler24kTo48k', () => {
  const passband = [50, 200, 440, 1000, 2000, 4000, 6000, 8000, 9000, 10_000, UPSAMPLER_PASSBAND_HZ];
  it.each(passband)('passes %i Hz within ±0.1 dB', (f) => {
    const out = upsampleWhole(monoSine(24_000, 1 + SETTLE_S, f, 16_000));
    const { amplitude } = toneAt(out, 48_000, f, SETTLE_S * 48_000, 48_000);
    expect(Math.abs(db(amplitude / 16_000))).toBeLessThanOrEqual(0.1);
  });

  it('is designed flat within 0.1 dB to 10 kHz and >= 90 dB down from 12 kHz (10 Hz grid)', () => {
    expect(UPSAMPLER_STOPBAND_HZ).toBe(12_000); // the input's Nyquist: the image of every input lands above it
    const h = designUpsamplerTaps();
    expect(designedPassbandDeviation(h, 2, UPSAMPLER_PASSBAND_HZ)).toBeLessThanOrEqual(0.1);
    expect(designedStopband(h, 2, UPSAMPLER_STOPBAND_HZ, 24_000)).toBeGreaterThanOrEqual(REJECTION_DB);
  });

  it('keeps the image (24 kHz - f) of every input from 0 to 12 kHz (50 Hz steps, dithered) >= 90 dB down', () => {
    const amplitude = 30_000;
    const rnd = prng(9);
    const window = SWEEP_WINDOW_S * 48_000;
    const failures: string[] = [];
    let worst = Number.POSITIVE_INFINITY;
    for (let f = SWEEP_STEP_HZ; f < 12_000; f += SWEEP_STEP_HZ) {
      const out = upsampleWhole(ditheredSine(24_000, SWEEP_SETTLE_S + SWEEP_WINDOW_S, f, amplitude, rnd));
      const image = toneAt(out, 48_000, 24_000 - f, SWEEP_SETTLE_S * 48_000, window).amplitude;
      const rejection = db(amplitude / Math.max(image, 1e-9));
      worst = Math.min(worst, rejection);
      if (rejection < REJECTION_DB) failures.push(`${f} Hz -> image at ${24_000 - f} Hz: ${rejection.toFixed(1)} dB`);
    }
    expect(failures).toEqual([]);
    expect(worst).toBeGreaterThanOrEqual(REJECTION_DB);
  });

  it('gives mono: two 48 kHz samples per 24 kHz sample', () => {
    expect(upsampleWhole(new Int16Array(480)).length).toBe(960);
  });

  it('delays by the reported group delay', () => {
    const us = new Upsampler24kTo48k();
    const out = us.process(monoSine(24_000, 1 + SETTLE_S, 1000, 16_000)).slice();
    const tone = toneAt(out, 48_000, 1000, SETTLE_S * 48_000, 48_000);
    const expectedPhase = -2 * Math.PI * 1000 * (us.groupDelayMs / 1000);
    const diff = Math.atan2(Math.sin(tone.phase - expectedPhase), Math.cos(tone.phase - expectedPhase));
    expect((Math.abs(diff) / (2 * Math.PI * 1000)) * 1000).toBeLessThan(0.005);
    expect(us.groupDelayMs).toBeLessThanOrEqual(3);
  });

  it('gives bit-identical output for any chunking (1 sample, 20 ms, random sizes)', () => {
    const rnd = prng(11);
    const input = new Int16Array(24_000);
    for (let i = 0; i < input.length; i++) input[i] = Math.round((rnd() * 2 - 1) * 30_000);
    const whole = upsampleWhole(input);
    const a = new Upsampler24kTo48k();
    const b = new Upsampler24kTo48k();
    const c = new Upsampler24kTo48k();
    const one = feedInChunks(input, 1, (p) => a.process(p));
    const frames = feedInChunks(input, 480, (p) => b.process(p));
    const random = feedInChunks(
      input,
      () => 1 + Math.floor(rnd() * 3000),
      (p) => c.process(p),
    );
    for (const got of [one, frames, random])
      expect(Buffer.from(got.buffer).equals(Buffer.from(whole.buffer))).toBe(true);
  });
});
