// The resamplers' WebAssembly kernel against the filters' textbook definitions: each output is the
// convolution of the (zero-stuffed) input with the designed taps, computed here in float64 from
// scratch. The kernel sums in float32, four lanes at a time, so an s16 output may differ by the
// rounding of a value sitting on a .5 boundary (at most 1 LSB); anything else (a tap off by one, a
// wrong branch, a ring read past its window) is hundreds of LSB off. And the assembled module must
// be the one the .wat source makes.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Downsampler48kTo16k, designDownsamplerTaps } from '../../../main/core/audio/downsampler.ts';
import { toInt16 } from '../../../main/core/audio/pcm.ts';
import { Resampler16kTo24kMono } from '../../../main/core/audio/resampler-16k-to-24k.ts';
import { PolyphaseInterpolator2x, designUpsamplerTaps } from '../../../main/core/audio/upsampler.ts';
import { firKernelModuleSource } from '../../../scripts/build-fir-kernel.ts';
import { feedInChunks, prng } from '../../../bench/lib/tone-analysis.ts';

function noise(length: number, amplitude: number, seed: number): Int16Array {
  const rnd = prng(seed);
  const out = new Int16Array(length);
  for (let i = 0; i < length; i++) out[i] = Math.round((rnd() * 2 - 1) * amplitude);
  return out;
}

/** y[n] = sum over i of h[i] * x[n - i], x = 0 before the start. */
function convolveAt(h: Float64Array, x: (i: number) => number, n: number): number {
  let acc = 0;
  for (let i = 0; i < h.length; i++) if (n - i >= 0) acc += h[i]! * x(n - i);
  return acc;
}

function maxAbsDiff(got: ArrayLike<number>, want: ArrayLike<number>): number {
  expect(got.length).toBe(want.length);
  let worst = 0;
  for (let i = 0; i < got.length; i++) worst = Math.max(worst, Math.abs(got[i]! - want[i]!));
  return worst;
}

describe('fir-kernel', () => {
  it('is assembled from fir-kernel.wat as it stands (node scripts/build-fir-kernel.ts)', async () => {
    const wat = readFileSync(
      fileURLToPath(new URL('../../../main/core/audio/fir-kernel.wat', import.meta.url)),
      'utf8',
    );
    const generated = readFileSync(
      fileURLToPath(new URL('../../../main/core/audio/fir-kernel-wasm.ts', import.meta.url)),
      'utf8',
    );
    expect(await firKernelModuleSource(wat)).toBe(generated);
  });

  it('decimates 48 to 16 kHz as the 193-tap convolution of the input, every third input', () => {
    const input = noise(4800, 30_000, 11); // 100 ms, frames of 960 samples
    const h = designDownsamplerTaps();
    const want = Array.from({ length: 1600 }, (_, k) => toInt16(convolveAt(h, (i) => input[i]!, 3 * k)));
    const resampler = new Downsampler48kTo16k();
    expect(
      maxAbsDiff(
        feedInChunks(input, 960, (p) => resampler.process(p)),
        want,
      ),
    ).toBeLessThanOrEqual(1);
  });

  it('interpolates 24 to 48 kHz as the 99-tap convolution of the zero-stuffed input, in float', () => {
    const input = noise(2400, 30_000, 12);
    const h = designUpsamplerTaps();
    const stuffed = (i: number): number => (i % 2 === 0 ? input[i / 2]! : 0);
    const want = Array.from({ length: 4800 }, (_, n) => convolveAt(h, stuffed, n));
    const interpolator = new PolyphaseInterpolator2x();
    const got = new Float32Array(4800);
    for (let start = 0; start < input.length; start += 480) interpolator.run(input, start, 480, got, 2 * start);
    // float32 sums of 50 products of up to 30,000: a few thousandths of an LSB apart
    expect(maxAbsDiff(got, want)).toBeLessThan(0.05);
    // silence (null input) runs the same filter on zeros: the tail of the last samples, then zeros
    const tail = new Float32Array(200);
    interpolator.run(null, 0, 100, tail, 0);
    const extended = (i: number): number => (i % 2 === 0 && i / 2 < input.length ? input[i / 2]! : 0);
    const wantTail = Array.from({ length: 200 }, (_, n) => convolveAt(h, extended, 4800 + n));
    expect(maxAbsDiff(tail, wantTail)).toBeLessThan(0.05);
  });

  it('resamples 16 to 24 kHz as every second sample of the 3x zero-stuffed input convolved with the taps (times 3)', () => {
    const input = noise(1600, 30_000, 13);
    const h = designDownsamplerTaps().map((tap) => 3 * tap);
    const stuffed = (i: number): number => (i % 3 === 0 ? input[i / 3]! : 0);
    const want = Array.from({ length: 2400 }, (_, k) => toInt16(convolveAt(h, stuffed, 2 * k)));
    const resampler = new Resampler16kTo24kMono();
    expect(
      maxAbsDiff(
        feedInChunks(input, 320, (p) => resampler.process(p)),
        want,
      ),
    ).toBeLessThanOrEqual(1);
  });

  it('reset() forgets the history: a reset resampler repeats a fresh one bit for bit', () => {
    const input = noise(1920, 20_000, 14);
    const used = new Downsampler48kTo16k();
    used.process(noise(1921, 20_000, 15)); // leaves history and a decimation phase behind
    used.reset();
    const fresh = new Downsampler48kTo16k();
    expect(Array.from(used.process(input))).toEqual(Array.from(fresh.process(input)));
    const upUsed = new Resampler16kTo24kMono();
    upUsed.process(noise(321, 20_000, 16)); // an odd count leaves the parity odd
    upUsed.reset();
    expect(Array.from(upUsed.process(input))).toEqual(Array.from(new Resampler16kTo24kMono().process(input)));
  });
});

describe('the kernel run over inputs longer than its buffer (FirKernel.runInt16)', () => {
  it('one call of 3 s gives the samples that 20 ms calls give, for both s16 passes', () => {
    const random = prng(7);
    const input = Int16Array.from({ length: 144_000 }, () => toInt16((random() * 2 - 1) * 16_000));
    const whole48 = new Downsampler48kTo16k().process(input).slice();
    const pieces48 = new Downsampler48kTo16k();
    const joined48 = Int16Array.from(
      Array.from({ length: input.length / 960 }, (_, k) => [
        ...pieces48.process(input.subarray(k * 960, (k + 1) * 960)),
      ]).flat(),
    );
    expect(whole48.length).toBe(48_000);
    expect(whole48).toEqual(joined48);
    const input16 = input.subarray(0, 48_000);
    const whole16 = new Resampler16kTo24kMono().process(input16).slice();
    const pieces16 = new Resampler16kTo24kMono();
    const joined16 = Int16Array.from(
      Array.from({ length: input16.length / 320 }, (_, k) => [
        ...pieces16.process(input16.subarray(k * 320, (k + 1) * 320)),
      ]).flat(),
    );
    expect(whole16.length).toBe(72_000);
    expect(whole16).toEqual(joined16);
  });
});
