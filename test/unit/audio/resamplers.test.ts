// Measured, not just run: swept sines through each streaming resampler, checked at the s16 edges.
import { describe, expect, it } from 'vitest';
import {
  Downsampler48kStereoTo16kMono,
  DOWNSAMPLER_PASSBAND_HZ,
  DOWNSAMPLER_STOPBAND_HZ,
} from '../../../main/core/audio/downsampler.ts';
import { Upsampler24kMonoTo48kStereo, UPSAMPLER_PASSBAND_HZ, UPSAMPLER_STOPBAND_HZ } from '../../../main/core/audio/upsampler.ts';
import { db, feedInChunks, foldedFrequency, monoSine, prng, stereoSine, toneAt } from '../../../bench/lib/tone-analysis.ts';

const SETTLE_S = 0.25; // skip the filter's start-up transient before analysing one whole second

function downsampleWhole(input: Int16Array): Int16Array {
  return new Downsampler48kStereoTo16kMono().process(input).slice();
}

function upsampleWhole(input: Int16Array): Int16Array {
  return new Upsampler24kMonoTo48kStereo().process(input).slice();
}

describe('Downsampler48kStereoTo16kMono', () => {
  const passband = [50, 200, 440, 1000, 2000, 3000, 4000, 5000, 6000, 6500, 6800, DOWNSAMPLER_PASSBAND_HZ];
  it.each(passband)('passes %i Hz within ±0.1 dB', (f) => {
    const out = downsampleWhole(stereoSine(48_000, 1 + SETTLE_S, f, 16_000));
    const { amplitude } = toneAt(out, 16_000, f, SETTLE_S * 16_000, 16_000);
    expect(Math.abs(db(amplitude / 16_000))).toBeLessThanOrEqual(0.1);
  });

  const aliasing = [DOWNSAMPLER_STOPBAND_HZ, 9_500, 10_000, 11_000, 12_000, 13_000, 14_500, 15_001, 17_000, 19_000, 21_000, 22_500, 23_000];
  it.each(aliasing)('rejects the alias of %i Hz by >= 90 dB', (f) => {
    const amplitude = 32_000;
    const out = downsampleWhole(stereoSine(48_000, 1 + SETTLE_S, f, amplitude));
    const alias = foldedFrequency(f, 16_000);
    expect(alias).toBeLessThanOrEqual(DOWNSAMPLER_PASSBAND_HZ);
    const measured = toneAt(out, 16_000, alias, SETTLE_S * 16_000, 16_000).amplitude;
    expect(db(amplitude / Math.max(measured, 1e-9))).toBeGreaterThanOrEqual(90);
  });

  it('downmixes as the mean of L and R', () => {
    const out = downsampleWhole(stereoSine(48_000, 1 + SETTLE_S, 1000, 20_000, 0));
    expect(toneAt(out, 16_000, 1000, SETTLE_S * 16_000, 16_000).amplitude).toBeCloseTo(10_000, -1);
  });

  it('delays by the reported group delay', () => {
    const ds = new Downsampler48kStereoTo16kMono();
    const out = ds.process(stereoSine(48_000, 1 + SETTLE_S, 1000, 16_000)).slice();
    // Output n is computed when input sample 3n arrives; a delay d shows up as a phase lag.
    const tone = toneAt(out, 16_000, 1000, SETTLE_S * 16_000, 16_000);
    const expectedPhase = -2 * Math.PI * 1000 * (ds.groupDelayMs / 1000);
    const diff = Math.atan2(Math.sin(tone.phase - expectedPhase), Math.cos(tone.phase - expectedPhase));
    expect(Math.abs(diff) / (2 * Math.PI * 1000) * 1000).toBeLessThan(0.005); // ms
    expect(ds.groupDelayMs).toBeLessThanOrEqual(2);
  });

  it('gives bit-identical output for any chunking (1 value, 3840 bytes, random sizes)', () => {
    const rnd = prng(7);
    const input = new Int16Array(2 * 48_000);
    for (let i = 0; i < input.length; i++) input[i] = Math.round((rnd() * 2 - 1) * 30_000);
    const whole = downsampleWhole(input);
    expect(whole.length).toBe(16_000);
    const a = new Downsampler48kStereoTo16kMono();
    const b = new Downsampler48kStereoTo16kMono();
    const c = new Downsampler48kStereoTo16kMono();
    const one = feedInChunks(input, 1, (p) => a.process(p));
    const frames = feedInChunks(input, 1920, (p) => b.process(p));
    const random = feedInChunks(input, () => 1 + Math.floor(rnd() * 5000), (p) => c.process(p));
    for (const got of [one, frames, random]) expect(Buffer.from(got.buffer).equals(Buffer.from(whole.buffer))).toBe(true);
  });

  it('clips instead of wrapping at full scale', () => {
    const square = new Int16Array(2 * 4800);
    for (let i = 0; i < 4800; i++) square[2 * i] = square[2 * i + 1] = (Math.floor(i / 60) % 2 === 0 ? 32_767 : -32_768);
    const out = downsampleWhole(square);
    // Gibbs overshoot of the FIR exceeds full scale: it must pin to the rails, never flip sign.
    let pinned = 0;
    for (let i = 100; i < out.length; i++) {
      const expectedSign = Math.floor((3 * i - 78) / 60) % 2 === 0 ? 1 : -1;
      if (out[i] === 32_767 || out[i] === -32_768) pinned++;
      if (Math.abs(out[i]!) > 20_000) expect(Math.sign(out[i]!)).toBe(expectedSign);
    }
    expect(pinned).toBeGreaterThan(0);
  });
});

describe('Upsampler24kMonoTo48kStereo', () => {
  const passband = [50, 200, 440, 1000, 2000, 4000, 6000, 8000, 9000, 10_000, UPSAMPLER_PASSBAND_HZ];
  it.each(passband)('passes %i Hz within ±0.1 dB on both channels', (f) => {
    const out = upsampleWhole(monoSine(24_000, 1 + SETTLE_S, f, 16_000));
    for (const ch of [0, 1]) {
      const { amplitude } = toneAt(out, 48_000, f, SETTLE_S * 48_000, 48_000, 2, ch);
      expect(Math.abs(db(amplitude / 16_000))).toBeLessThanOrEqual(0.1);
    }
  });

  const imaging = [50, 440, 1000, 3000, 6000, 9000, 10_000, UPSAMPLER_PASSBAND_HZ];
  it.each(imaging)('keeps the image of %i Hz >= 90 dB down', (f) => {
    expect(24_000 - f).toBeGreaterThanOrEqual(UPSAMPLER_STOPBAND_HZ);
    const amplitude = 32_000;
    const out = upsampleWhole(monoSine(24_000, 1 + SETTLE_S, f, amplitude));
    const image = toneAt(out, 48_000, 24_000 - f, SETTLE_S * 48_000, 48_000, 2, 0).amplitude;
    expect(db(amplitude / Math.max(image, 1e-9))).toBeGreaterThanOrEqual(90);
  });

  it('produces identical L and R, sample for sample', () => {
    const rnd = prng(3);
    const input = new Int16Array(24_000);
    for (let i = 0; i < input.length; i++) input[i] = Math.round((rnd() * 2 - 1) * 32_000);
    const out = upsampleWhole(input);
    expect(out.length).toBe(4 * input.length);
    let mismatches = 0;
    for (let i = 0; i < out.length; i += 2) if (out[i] !== out[i + 1]) mismatches++;
    expect(mismatches).toBe(0);
  });

  it('delays by the reported group delay', () => {
    const us = new Upsampler24kMonoTo48kStereo();
    const out = us.process(monoSine(24_000, 1 + SETTLE_S, 1000, 16_000)).slice();
    const tone = toneAt(out, 48_000, 1000, SETTLE_S * 48_000, 48_000, 2, 0);
    const expectedPhase = -2 * Math.PI * 1000 * (us.groupDelayMs / 1000);
    const diff = Math.atan2(Math.sin(tone.phase - expectedPhase), Math.cos(tone.phase - expectedPhase));
    expect(Math.abs(diff) / (2 * Math.PI * 1000) * 1000).toBeLessThan(0.005);
    expect(us.groupDelayMs).toBeLessThanOrEqual(2);
  });

  it('gives bit-identical output for any chunking (1 sample, 20 ms, random sizes)', () => {
    const rnd = prng(11);
    const input = new Int16Array(24_000);
    for (let i = 0; i < input.length; i++) input[i] = Math.round((rnd() * 2 - 1) * 30_000);
    const whole = upsampleWhole(input);
    const a = new Upsampler24kMonoTo48kStereo();
    const b = new Upsampler24kMonoTo48kStereo();
    const c = new Upsampler24kMonoTo48kStereo();
    const one = feedInChunks(input, 1, (p) => a.process(p));
    const frames = feedInChunks(input, 480, (p) => b.process(p));
    const random = feedInChunks(input, () => 1 + Math.floor(rnd() * 3000), (p) => c.process(p));
    for (const got of [one, frames, random]) expect(Buffer.from(got.buffer).equals(Buffer.from(whole.buffer))).toBe(true);
  });
});
