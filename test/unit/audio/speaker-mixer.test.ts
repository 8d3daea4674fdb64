import { describe, expect, it } from 'vitest';
import { SpeakerMixer } from '../../../main/core/audio/speaker-mixer.ts';
import { softLimit, toInt16 } from '../../../main/core/audio/pcm.ts';
import { monoSine } from '../../../bench/lib/tone-analysis.ts';

const FRAME = 960;

/** 20 ms frame `index` of a longer 48 kHz signal. */
function frameOf(signal: Int16Array, index: number): Int16Array {
  return signal.subarray(index * FRAME, (index + 1) * FRAME);
}

function constantFrame(value: number): Int16Array {
  return new Int16Array(FRAME).fill(value);
}

describe('SpeakerMixer', () => {
  it('returns null when nobody has a frame queued', () => {
    expect(new SpeakerMixer().mixNext()).toBeNull();
  });

  it('passes a single speaker through bit for bit (even above the limiter knee)', () => {
    const mixer = new SpeakerMixer();
    const loud = monoSine(48_000, 0.1, 440, 32_000);
    for (let f = 0; f < 5; f++) {
      mixer.push('alice', frameOf(loud, f));
      expect(Array.from(mixer.mixNext()!)).toEqual(Array.from(frameOf(loud, f)));
    }
  });

  it('sums two simultaneous speakers sample by sample', () => {
    const mixer = new SpeakerMixer();
    const a = monoSine(48_000, 0.1, 440, 8000);
    const b = monoSine(48_000, 0.1, 1000, 9000);
    for (let f = 0; f < 5; f++) {
      mixer.push('alice', frameOf(a, f));
      mixer.push('bob', frameOf(b, f));
      const out = mixer.mixNext()!;
      expect(out.length).toBe(FRAME);
      for (let i = 0; i < FRAME; i++) expect(out[i]).toBe(frameOf(a, f)[i]! + frameOf(b, f)[i]!);
    }
  });

  it('soft-limits a loud sum instead of wrapping around', () => {
    const mixer = new SpeakerMixer();
    const a = monoSine(48_000, 0.02, 200, 30_000);
    mixer.push('alice', a);
    mixer.push('bob', a);
    mixer.push('carol', a);
    const out = mixer.mixNext()!;
    for (let i = 0; i < FRAME; i++) {
      const sum = 3 * a[i]!;
      expect(out[i]).toBe(toInt16(softLimit(sum)));
      if (sum !== 0) expect(Math.sign(out[i]!)).toBe(Math.sign(sum)); // no wrap
      expect(Math.abs(out[i]!)).toBeLessThanOrEqual(Math.abs(sum));
    }
    expect(Math.max(...out)).toBeGreaterThan(30_000);
    expect(Math.max(...out)).toBeLessThanOrEqual(32_767);
  });

  it('a speaker who stops sending contributes silence, not stale samples', () => {
    const mixer = new SpeakerMixer();
    for (let f = 0; f < 3; f++) {
      mixer.push('alice', constantFrame(1000));
      mixer.push('bob', constantFrame(7));
      expect(mixer.mixNext()![0]).toBe(1007);
    }
    for (let f = 0; f < 3; f++) {
      mixer.push('bob', constantFrame(7));
      expect(Array.from(new Set(mixer.mixNext()!))).toEqual([7]);
    }
    expect(mixer.stats().starvedTicks).toBe(3);
    expect(mixer.mixNext()).toBeNull();
  });

  it('bounds each queue by dropping the oldest frames and counting them', () => {
    const mixer = new SpeakerMixer({ maxQueueFrames: 5 });
    for (let f = 1; f <= 8; f++) mixer.push('alice', constantFrame(f));
    const played: number[] = [];
    for (let t = 0; t < 6; t++) played.push(mixer.mixNext()?.[0] ?? -1);
    expect(played).toEqual([4, 5, 6, 7, 8, -1]);
    expect(mixer.stats().droppedFrames).toBe(3);
  });

  it('copies pushed frames (the receive side may reuse its buffer)', () => {
    const mixer = new SpeakerMixer();
    const buf = constantFrame(5);
    mixer.push('alice', buf);
    buf.fill(9);
    expect(mixer.mixNext()![0]).toBe(5);
  });

  it('forgets idle speakers and reuses their queue when someone returns', () => {
    const mixer = new SpeakerMixer({ idleTicks: 10 });
    mixer.push('alice', constantFrame(1));
    mixer.push('bob', constantFrame(2));
    mixer.mixNext();
    expect(mixer.speakerIds().sort()).toEqual(['alice', 'bob']);
    for (let t = 0; t < 9; t++) mixer.mixNext();
    expect(mixer.stats().speakers).toBe(2);
    mixer.mixNext();
    mixer.mixNext();
    expect(mixer.stats().speakers).toBe(0);
    mixer.push('carol', constantFrame(3));
    expect(mixer.mixNext()![0]).toBe(3);
    expect(mixer.speakerIds()).toEqual(['carol']);
  });

  it('pads a short frame with silence and counts it', () => {
    const mixer = new SpeakerMixer();
    mixer.push('alice', new Int16Array(100).fill(4));
    const out = mixer.mixNext()!;
    expect(out[99]).toBe(4);
    expect(out[100]).toBe(0);
    expect(mixer.stats().malformedFrames).toBe(1);
  });
});
