// The 16 → 24 kHz input resampler of the OpenAI providers: 3 samples out per 2 in, the same output
// whatever the chunking, unity gain in the passband, and images of the 16 kHz grid removed.
import { describe, expect, it } from 'vitest';
import { Resampler16kTo24kMono } from '../../../main/core/audio/index.ts';
import { amplitudeAt } from '../../../bench/lib/tone-analysis.ts';

function sine(n: number, hz: number, rate: number, amplitude = 10_000): Int16Array {
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate));
  return out;
}

describe('Resampler16kTo24kMono', () => {
  it('makes 1.5 samples per input sample and gives the same output for any chunking', () => {
    const input = sine(16_000, 1000, 16_000);
    const whole = Array.from(new Resampler16kTo24kMono().process(input));
    expect(whole).toHaveLength(24_000);
    const chunked: number[] = [];
    const r = new Resampler16kTo24kMono();
    for (let at = 0, size = 1; at < input.length; at += size, size = (size % 997) + 3)
      chunked.push(...r.process(input.subarray(at, at + size)));
    expect(chunked).toEqual(whole);
  });

  it('keeps a 1 kHz tone at its level and removes the 15 kHz image of the 16 kHz grid', () => {
    const out = new Resampler16kTo24kMono().process(sine(16_000, 1000, 16_000)).slice(2400);
    expect(amplitudeAt(out, 1000, 24_000)).toBeGreaterThan(9_900);
    expect(amplitudeAt(out, 1000, 24_000)).toBeLessThan(10_100);
    // 1 kHz zero-stuffed to 48 kHz has an image at 16 - 1 = 15 kHz, which folds to 9 kHz at 24 kHz.
    expect(amplitudeAt(out, 9000, 24_000)).toBeLessThan(10);
  });
});
