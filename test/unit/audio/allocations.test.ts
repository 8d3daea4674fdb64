// Zero allocations per 20 ms frame after warm-up, measured (see bench/lib/allocation-meter.ts for the
// method): heap + array-buffer bytes over 5000-frame windows with no GC inside, minus the meter's own
// cost. One boxed number per frame would be 16 bytes/frame, one subarray view 96 bytes/frame.
import { describe, expect, it } from 'vitest';
import {
  Downsampler48kTo16k,
  LevelMeter,
  PlaybackBuffer,
  PlaybackUpsampler,
  SpeakerMixer,
  Upsampler24kTo48k,
  VoiceGate,
  generateNotificationChime,
} from '../../../main/core/audio/index.ts';
import { measureAllocationsPerFrame } from '../../../bench/lib/allocation-meter.ts';
import { monoSine } from '../../../bench/lib/tone-analysis.ts';

// The meter reads 0-2 B/frame of noise; the smallest V8 heap object (a boxed number) is 12-16 B.
const LIMIT_BYTES_PER_FRAME = 4;
/**
 * Every frame of the resampling paths runs a 99- or 193-tap filter: smaller windows keep these tests
 * inside their timeout on a loaded machine; 2000 frames still resolve one 16-byte object per frame.
 */
const RESAMPLING_WINDOWS = { warmupFrames: 1000, frames: 2000, windows: 3 };

describe('allocation meter', () => {
  it('sees a per-frame allocation as small as one typed-array view', () => {
    const buf = new Int16Array(1920);
    let keep = 0;
    const report = measureAllocationsPerFrame(() => {
      keep += buf.subarray(0, 10).length;
    });
    expect(keep).toBeGreaterThan(0);
    expect(report.bytesPerFrame).toBeGreaterThan(32);
  });
});

/** The output path: the playback buffer (24 kHz) pulled through the upsample stage's upsampler (48 kHz). */
function outputPath(): { pb: PlaybackBuffer; up: PlaybackUpsampler } {
  const pb = new PlaybackBuffer();
  const up = new PlaybackUpsampler();
  up.pullFrom(pb);
  return { pb, up };
}

describe('hot path allocates nothing per frame after warm-up', () => {
  it('Downsampler48kTo16k.process (and returns the same view every frame)', () => {
    const ds = new Downsampler48kTo16k();
    const frames = [monoSine(48_000, 0.02, 440, 9000), monoSine(48_000, 0.02, 3000, 9000)];
    const first = ds.process(frames[0]!);
    expect(ds.process(frames[1]!)).toBe(first);
    const report = measureAllocationsPerFrame((f) => ds.process(frames[f & 1]!), RESAMPLING_WINDOWS);
    expect(report.bytesPerFrame).toBeLessThan(LIMIT_BYTES_PER_FRAME);
  });

  it('Downsampler48kTo16k.process with a clipping full-scale square', () => {
    const ds = new Downsampler48kTo16k();
    const square = new Int16Array(960).map((_, i) => (Math.floor(i / 60) % 2 === 0 ? 32_767 : -32_768));
    const report = measureAllocationsPerFrame(() => ds.process(square), RESAMPLING_WINDOWS);
    expect(Math.max(...ds.process(square))).toBe(32_767); // the FIR's overshoot really clips
    expect(report.bytesPerFrame).toBeLessThan(LIMIT_BYTES_PER_FRAME);
  });

  it('Upsampler24kTo48k.process with a clipping full-scale square', () => {
    const us = new Upsampler24kTo48k();
    const square = new Int16Array(480).map((_, i) => (i % 40 < 20 ? 32_767 : -32_768));
    const report = measureAllocationsPerFrame(() => us.process(square), RESAMPLING_WINDOWS);
    expect(Math.min(...us.process(square))).toBe(-32_768);
    expect(report.bytesPerFrame).toBeLessThan(LIMIT_BYTES_PER_FRAME);
  });

  it('Upsampler24kTo48k.process', () => {
    const us = new Upsampler24kTo48k();
    const frame = monoSine(24_000, 0.02, 440, 9000);
    expect(us.process(frame)).toBe(us.process(frame));
    const report = measureAllocationsPerFrame(() => us.process(frame), RESAMPLING_WINDOWS);
    expect(report.bytesPerFrame).toBeLessThan(LIMIT_BYTES_PER_FRAME);
  });

  it('SpeakerMixer with the soft limiter engaged (three loud speakers)', () => {
    const mixer = new SpeakerMixer();
    const loud = [
      monoSine(48_000, 0.02, 200, 25_000),
      monoSine(48_000, 0.02, 300, 25_000),
      monoSine(48_000, 0.02, 400, 25_000),
    ];
    const step = (): void => {
      mixer.push('a', loud[0]!);
      mixer.push('b', loud[1]!);
      mixer.push('c', loud[2]!);
      mixer.mixNext();
    };
    const report = measureAllocationsPerFrame(step);
    step();
    expect(report.bytesPerFrame).toBeLessThan(LIMIT_BYTES_PER_FRAME);
  });

  it('receive path: SpeakerMixer (3 speakers, one intermittent) -> downsampler -> VoiceGate -> meter', () => {
    const mixer = new SpeakerMixer();
    const ds = new Downsampler48kTo16k();
    let sentValues = 0;
    let ends = 0;
    const gate = new VoiceGate({ onChunk: (c) => (sentValues += c.length), onEnd: () => ends++, chunkMs: 40 });
    const meter = new LevelMeter();
    const voices = [
      monoSine(48_000, 0.02, 220, 6000),
      monoSine(48_000, 0.02, 330, 6000),
      monoSine(48_000, 0.02, 500, 6000),
    ];
    const step = (f: number): void => {
      // A talk spurt of 1 s every 2 s, so the gate opens, sends, closes and pre-rolls over and over.
      if (f % 100 < 50) {
        mixer.push('alice', voices[0]!);
        mixer.push('bob', voices[1]!);
        if (f % 3 === 0) mixer.push('carol', voices[2]!);
      }
      const mixed = mixer.mixNext();
      if (mixed === null) gate.pushSilence(320);
      else {
        const pcm16k = ds.process(mixed);
        meter.measure(pcm16k);
        gate.push(pcm16k);
      }
    };
    const report = measureAllocationsPerFrame(step, RESAMPLING_WINDOWS);
    expect(sentValues).toBeGreaterThan(0);
    expect(ends).toBeGreaterThan(10);
    expect(report.bytesPerFrame).toBeLessThan(LIMIT_BYTES_PER_FRAME);
  });

  it('playback and upsample: bursty writes, readFrame, barge-in, a hold, turn ends and a sound effect', () => {
    const { pb, up } = outputPath();
    const chunk = monoSine(24_000, 0.1, 440, 9000); // one 100 ms model chunk
    const chime = generateNotificationChime();
    const out = new Int16Array(960);
    const step = (f: number): void => {
      const t = f % 250; // a 5 s cycle: 3 s of reply, barge-in on every other cycle, then quiet
      if (t < 150 && t % 5 === 0) pb.write(chunk);
      if (t === 100 && (f / 250) % 2 < 1) pb.interrupt();
      if (t === 60) pb.hold();
      if (t === 64) pb.release();
      if (t === 150) pb.endTurn();
      if (t === 50) up.mixEffect(chime, 0.5);
      up.readFrame(out);
    };
    const report = measureAllocationsPerFrame(step, RESAMPLING_WINDOWS);
    expect(pb.stats().framesPlayed).toBeGreaterThan(1000);
    expect(pb.stats().interrupts).toBeGreaterThan(1);
    expect(report.bytesPerFrame).toBeLessThan(LIMIT_BYTES_PER_FRAME);
  });

  it('playback and upsample with clipping speech and a loud effect (limiter engaged)', () => {
    const { pb, up } = outputPath();
    const loud = new Int16Array(2400).map((_, i) => (i % 40 < 20 ? 32_767 : -32_768));
    const chime = generateNotificationChime();
    const out = new Int16Array(960);
    const step = (f: number): void => {
      if (f % 5 === 0) pb.write(loud);
      if (f % 20 === 0) up.mixEffect(chime, 2);
      up.readFrame(out);
    };
    const report = measureAllocationsPerFrame(step, RESAMPLING_WINDOWS);
    up.readFrame(out);
    expect(Math.max(...out)).toBeGreaterThan(30_000);
    expect(report.bytesPerFrame).toBeLessThan(LIMIT_BYTES_PER_FRAME);
  });
});
