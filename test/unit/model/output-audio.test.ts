// The model's output rate is read from its MIME type: 24 kHz passes through, another rate is
// resampled to the 24 kHz the bridge plays, a broken rate is refused instead of played wrong.
import { describe, expect, it } from 'vitest';
import { pcmRateOf, toModelOutputRate } from '../../../main/core/model/output-audio.ts';

describe('model output audio rate', () => {
  it('parses the rate from the MIME type', () => {
    expect(pcmRateOf('audio/pcm;rate=24000')).toBe(24_000);
    expect(pcmRateOf('audio/pcm; rate=16000')).toBe(16_000);
    expect(pcmRateOf('audio/pcm')).toBe(24_000);
    expect(pcmRateOf('audio/pcm;rate=abc')).toBeNull();
    expect(pcmRateOf('audio/pcm;rate=5')).toBeNull();
  });

  it('24 kHz is passed through untouched; 16 kHz becomes 1.5x as many samples of the same tone', () => {
    const same = new Int16Array([1, 2, 3]);
    expect(toModelOutputRate(same, 24_000)).toBe(same);
    const tone16 = new Int16Array(1600).map((_, i) => Math.round(10_000 * Math.sin((2 * Math.PI * 440 * i) / 16_000)));
    const out = toModelOutputRate(tone16, 16_000);
    expect(out.length).toBe(2400);
    // Same frequency at the new rate: zero crossings per second stay ~880.
    let crossings = 0;
    for (let i = 1; i < out.length; i++) if (out[i - 1]! < 0 !== out[i]! < 0) crossings++;
    expect(crossings).toBeGreaterThan(80);
    expect(crossings).toBeLessThan(96);
  });
});
