import { describe, expect, it } from 'vitest';
import { LevelMeter, SILENCE_DBFS } from '../../../main/core/audio/level-meter.ts';
import { generateNotificationChime } from '../../../main/core/audio/sound-effects.ts';
import { monoSine, toneAt } from '../../../bench/lib/tone-analysis.ts';

describe('LevelMeter', () => {
  it('reports RMS and peak in dBFS, with a peak hold between reads', () => {
    const meter = new LevelMeter();
    meter.measure(monoSine(16_000, 0.02, 1000, 32_768 / 10)); // -20 dB peak, -23 dB RMS
    meter.measure(new Int16Array(320));
    const r = meter.read();
    expect(r.rmsDbfs).toBe(SILENCE_DBFS); // RMS of the last block
    expect(r.peakDbfs).toBeCloseTo(-20, 1); // peak since the previous read
    meter.measure(monoSine(16_000, 0.02, 1000, 32_768 / 10));
    expect(meter.read().rmsDbfs).toBeCloseTo(-23.01, 1);
    expect(meter.read().peakDbfs).toBe(SILENCE_DBFS);
    expect(meter.blocks).toBe(3);
  });
});

describe('generateNotificationChime', () => {
  const chime = generateNotificationChime();
  it('is 300 ms of 48 kHz mono', () => {
    expect(chime.length).toBe(14_400);
  });

  it('peaks at -6 dBFS, starts and ends at zero (no click)', () => {
    let peak = 0;
    for (const v of chime) peak = Math.max(peak, Math.abs(v));
    expect(peak).toBeGreaterThan(16_000);
    expect(peak).toBeLessThanOrEqual(16_384);
    expect(chime[0]).toBe(0);
    expect(chime[chime.length - 1]).toBe(0);
    for (let i = 1; i < 10; i++) expect(Math.abs(chime[i]!)).toBeLessThan(2000);
  });

  it('sounds its two notes (E6 then A6)', () => {
    const early = toneAt(chime, 48_000, 1320, 0, 4800).amplitude; // first 100 ms
    const late = toneAt(chime, 48_000, 1760, 4800, 4800).amplitude; // next 100 ms
    expect(early).toBeGreaterThan(2000);
    expect(late).toBeGreaterThan(2000);
    expect(toneAt(chime, 48_000, 1760, 0, 4320).amplitude).toBeLessThan(1000); // A6 not yet sounding
  });
});
