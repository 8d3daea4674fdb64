import { describe, expect, it } from 'vitest';
import { PlaybackBuffer, type PlaybackBufferOptions } from '../../../main/core/audio/playback-buffer.ts';
import { PlaybackUpsampler } from '../../../main/core/audio/playback-upsampler.ts';
import { Upsampler24kTo48k } from '../../../main/core/audio/upsampler.ts';
import { softLimit, toInt16 } from '../../../main/core/audio/pcm.ts';
import { generateNotificationChime } from '../../../main/core/audio/sound-effects.ts';
import { monoSine } from '../../../bench/lib/tone-analysis.ts';

const FRAME = 960; // 20 ms at 48 kHz, mono

/** The output path as a call has it: the buffer (playback, 24 kHz) pulled through the upsampler (upsample, 48 kHz). */
function outputPath(options?: PlaybackBufferOptions): { pb: PlaybackBuffer; up: PlaybackUpsampler } {
  const pb = new PlaybackBuffer(options);
  const up = new PlaybackUpsampler();
  up.pullFrom(pb);
  return { pb, up };
}

function readFrames(up: PlaybackUpsampler, count: number): Int16Array {
  const all = new Int16Array(count * FRAME);
  const out = new Int16Array(FRAME);
  for (let f = 0; f < count; f++) {
    up.readFrame(out);
    all.set(out, f * FRAME);
  }
  return all;
}

const countNonZero = (x: Int16Array): number => x.reduce((n, v) => n + (v !== 0 ? 1 : 0), 0);

describe('PlaybackBuffer', () => {
  it('always fills a whole frame, with silence when empty', () => {
    const { pb, up } = outputPath();
    const out = new Int16Array(FRAME).fill(123);
    up.readFrame(out);
    expect(countNonZero(out)).toBe(0);
    expect(pb.stats().framesRead).toBe(1);
    expect(() => up.readFrame(new Int16Array(100))).toThrow(RangeError);
    expect(() => pb.readFrame(new Int16Array(960))).toThrow(RangeError); // the buffer's frames are 24 kHz: 480
  });

  it('starts as soon as one 20 ms frame exists, not before', () => {
    const { pb, up } = outputPath();
    const tone = monoSine(24_000, 0.02, 1000, 10_000);
    pb.write(tone.subarray(0, 479));
    expect(countNonZero(readFrames(up, 1))).toBe(0);
    pb.write(tone.subarray(479));
    expect(countNonZero(readFrames(up, 1))).toBeGreaterThan(800);
    expect(pb.stats().framesPlayed).toBe(1);
  });

  it('framesAhead: whole frames buffered past the playing point, none before playback starts or with a fade due', () => {
    const { pb, up } = outputPath();
    const tone = monoSine(24_000, 0.2, 1000, 10_000); // 10 frames
    expect(pb.framesAhead()).toBe(0);
    pb.write(tone.subarray(0, 2400 + 100)); // 5 frames and a bit: not playing yet
    expect(pb.framesAhead()).toBe(0);
    readFrames(up, 1);
    expect(pb.framesAhead()).toBe(4); // 4 whole frames and 100 samples left
    readFrames(up, 4);
    expect(pb.framesAhead()).toBe(0); // only the 100 samples: the next read would wait for more
    pb.write(tone.subarray(2500));
    expect(pb.framesAhead()).toBe(5);
    pb.interrupt(); // the fade goes out next, and the rest of the turn is dropped
    expect(pb.framesAhead()).toBe(0);
  });

  it('plays exactly the upsampled stream (same filter, no gaps) when data stays ahead', () => {
    const { pb, up } = outputPath();
    const speech = monoSine(24_000, 1, 440, 12_000);
    // Bursty writes (model chunks of 100 ms arriving faster than real time).
    for (let i = 0; i < speech.length; i += 2400) pb.write(speech.subarray(i, i + 2400));
    pb.endTurn();
    const played = readFrames(up, 51);
    const expected = new Upsampler24kTo48k().process(speech);
    expect(Array.from(played.subarray(0, expected.length))).toEqual(Array.from(expected));
    const s = pb.stats();
    expect(s.underruns).toBe(0);
    expect(s.turnPlayedMs).toBe(1000);
    expect(s.turnState).toBe('idle');
  });

  it('counts an underrun when a turn runs dry and then goes on, and grows its start margin', () => {
    const { pb, up } = outputPath({ maxMarginMs: 60 });
    const chunk = monoSine(24_000, 0.02, 440, 8000);
    pb.write(chunk);
    readFrames(up, 1);
    readFrames(up, 1); // nothing arrived in time
    // Not yet an underrun: the reply may have ended (a provider that ends turns on a quiet gap).
    expect(pb.stats().underruns).toBe(0);
    expect(pb.stats().marginMs).toBe(0);
    pb.write(chunk); // more of the same turn: that was a gap in the reply
    expect(pb.stats().underruns).toBe(1);
    expect(pb.stats().marginMs).toBe(20);
    // 20 ms is no longer enough to restart: needs 20 ms + margin
    expect(countNonZero(readFrames(up, 2).subarray(FRAME))).toBe(0);
    pb.write(chunk);
    expect(countNonZero(readFrames(up, 1))).toBeGreaterThan(800);
    for (let i = 0; i < 10; i++) readFrames(up, 1);
    expect(pb.stats().marginMs).toBeLessThanOrEqual(60);
  });

  it('a reply whose audio ran out before its turn ended is not an underrun: the next reply starts with no added margin', () => {
    const { pb, up } = outputPath();
    const reply = monoSine(24_000, 0.1, 440, 8000);
    for (let turn = 0; turn < 5; turn++) {
      pb.write(reply);
      readFrames(up, 5);
      readFrames(up, 10); // the turn stays open (GPT-Live ends it after 700 ms without audio)
      pb.endTurn();
    }
    expect(pb.stats().underruns).toBe(0);
    expect(pb.stats().marginMs).toBe(0);
    expect(pb.stats().turns).toBe(5);
    // The next reply's first 20 ms plays on the first frame read.
    pb.write(monoSine(24_000, 0.02, 440, 8000));
    expect(countNonZero(readFrames(up, 1))).toBeGreaterThan(800);
  });

  it('plays a short last frame at the end of a turn without counting an underrun', () => {
    const { pb, up } = outputPath();
    pb.write(monoSine(24_000, 0.03, 440, 8000)); // 1.5 frames
    pb.endTurn();
    readFrames(up, 3);
    expect(pb.stats().underruns).toBe(0);
    expect(pb.stats().turnPlayedMs).toBe(30);
    expect(pb.stats().turnState).toBe('idle');
  });

  it('barge-in: fades within one frame, then nothing of the stale turn, while the next turn plays', () => {
    const { pb, up } = outputPath({ fadeMs: 10 });
    const stale = monoSine(24_000, 2, 1000, 10_000);
    pb.write(stale);
    const before = readFrames(up, 10);
    expect(countNonZero(before)).toBeGreaterThan(9 * FRAME);

    const { playedMs } = pb.interrupt();
    expect(playedMs).toBe(200 + 10); // 10 frames handed to the player, plus the 10 ms faded out
    expect(pb.stats().bufferedMs).toBe(0);
    expect(pb.turnState).toBe('interrupted');

    const fadeFrame = readFrames(up, 1);
    // The fade continues the stream (no jump) and ends within 10 ms: 480 samples.
    expect(Math.abs(fadeFrame[0]! - before[before.length - 1]!)).toBeLessThan(1500);
    for (let i = 480; i < FRAME; i++) expect(fadeFrame[i]).toBe(0);
    for (let i = 1; i < 480; i++) expect(Math.abs(fadeFrame[i]!)).toBeLessThanOrEqual(10_100);

    // Late audio of the interrupted turn is dropped: silence, frame after frame.
    pb.write(stale.subarray(0, 24_000));
    expect(countNonZero(readFrames(up, 60))).toBe(0);
    expect(pb.stats().droppedLateMs).toBe(1000);

    // The model's turnComplete ends the interrupted turn; the next turn plays, with nothing stale in it.
    pb.endTurn();
    const next = monoSine(24_000, 0.5, 3000, 9000);
    pb.write(next);
    pb.endTurn();
    const played = readFrames(up, 26);
    const expected = new Upsampler24kTo48k().process(next);
    expect(Array.from(played.subarray(0, expected.length))).toEqual(Array.from(expected));
    expect(countNonZero(played.subarray(expected.length + 200))).toBe(0);
    expect(pb.stats().turnPlayedMs).toBe(500);
  });

  it('hold: fades within one frame, keeps the turn silent and buffered, and release() plays it on from the fade, rising from silence', () => {
    const { pb, up } = outputPath({ fadeMs: 10 });
    const reply = monoSine(24_000, 2, 1000, 10_000);
    pb.write(reply);
    readFrames(up, 10);
    pb.hold();
    expect(pb.held).toBe(true);
    expect(pb.framesAhead()).toBe(0);
    const fadeFrame = readFrames(up, 1);
    for (let i = 480; i < FRAME; i++) expect(fadeFrame[i]).toBe(0);
    expect(countNonZero(readFrames(up, 3))).toBe(0);
    // 200 ms played and 10 ms faded out; the rest waits, and what the model sends meanwhile is kept.
    expect(pb.stats().bufferedMs).toBe(2000 - 210);
    expect(pb.turnState).toBe('active');
    pb.release();
    const resumed = readFrames(up, 2);
    // It rises from silence over 10 ms (no click: the filter restarting alone would reach full level
    // in its first millisecond); by the frame's end it is the tone at full level.
    let peakFirst2Ms = 0;
    for (let i = 0; i < 96; i++) peakFirst2Ms = Math.max(peakFirst2Ms, Math.abs(resumed[i]!));
    expect(peakFirst2Ms).toBeLessThan(1500);
    let peakLate = 0;
    for (let i = 600; i < FRAME; i++) peakLate = Math.max(peakLate, Math.abs(resumed[i]!));
    expect(peakLate).toBeGreaterThan(9000);
    expect(pb.stats().bufferedMs).toBe(2000 - 250);
    expect(pb.stats().interrupts).toBe(0);
  });

  it('interrupt() while held drops the waiting turn with no second fade', () => {
    const { pb, up } = outputPath({ fadeMs: 10 });
    pb.write(monoSine(24_000, 2, 1000, 10_000));
    readFrames(up, 10);
    pb.hold();
    readFrames(up, 2);
    expect(pb.interrupt().playedMs).toBe(210);
    expect(pb.held).toBe(false);
    expect(pb.stats().bufferedMs).toBe(0);
    expect(countNonZero(readFrames(up, 5))).toBe(0);
  });

  it('a release after the held turn ran out owes the next reply no fade-in: it starts as played', () => {
    const { pb, up } = outputPath({ fadeMs: 10 });
    pb.write(monoSine(24_000, 0.21, 1000, 10_000));
    pb.endTurn();
    readFrames(up, 10);
    pb.hold(); // the fade takes the last 10 ms
    expect(pb.held).toBe(true);
    readFrames(up, 2);
    pb.release();
    readFrames(up, 2);
    const next = monoSine(24_000, 0.2, 1000, 10_000);
    pb.write(next);
    pb.endTurn();
    const played = readFrames(up, 1);
    const expected = new Upsampler24kTo48k().process(next);
    expect(Array.from(played.subarray(0, 200))).toEqual(Array.from(expected.subarray(0, 200)));
  });

  it("hands out 20 ms at 24 kHz and says how each frame plays: speech, the fade-out's samples, silence while held, the fade-in", () => {
    const pb = new PlaybackBuffer({ fadeMs: 10 });
    const reply = monoSine(24_000, 1, 1000, 10_000);
    pb.write(reply);
    const frame = new Int16Array(480);
    expect(pb.readFrame(frame)).toBe('speech');
    expect(Array.from(frame)).toEqual(Array.from(reply.subarray(0, 480)));
    pb.hold();
    expect(pb.fadeSamples).toBe(240);
    expect(pb.readFrame(frame), "the stream's next 10 ms, to fade out over").toBe('fade-out');
    expect(Array.from(frame.subarray(0, 240))).toEqual(Array.from(reply.subarray(480, 720)));
    expect(pb.readFrame(frame)).toBe('silence');
    pb.release();
    expect(pb.readFrame(frame), 'on from where it faded, rising').toBe('fade-in');
    expect(Array.from(frame)).toEqual(Array.from(reply.subarray(720, 1200)));
    expect(pb.readFrame(frame)).toBe('speech');
    pb.write(reply.subarray(0, 100));
    pb.endTurn();
    pb.interrupt(); // the fade takes the next 240 of what is left, the rest is dropped
    expect(pb.readFrame(frame)).toBe('fade-out');
    expect(Array.from(frame.subarray(0, 240))).toEqual(Array.from(reply.subarray(1680, 1920)));
    expect(pb.readFrame(frame)).toBe('silence');
  });

  it('hold() with nothing playing holds nothing', () => {
    const { pb } = outputPath();
    pb.hold();
    expect(pb.held).toBe(false);
  });

  it('interrupt() with nothing playing is not sticky: the next reply plays', () => {
    const { pb, up } = outputPath();
    expect(pb.interrupt()).toEqual({ playedMs: 0 });
    pb.write(monoSine(24_000, 0.1, 440, 8000));
    expect(countNonZero(readFrames(up, 1))).toBeGreaterThan(800);
  });

  it('startTurn() also lifts the barge-in silence', () => {
    const { pb, up } = outputPath();
    pb.write(monoSine(24_000, 0.5, 440, 8000));
    readFrames(up, 2);
    pb.interrupt();
    readFrames(up, 1);
    pb.startTurn();
    pb.write(monoSine(24_000, 0.1, 440, 8000));
    expect(countNonZero(readFrames(up, 1))).toBeGreaterThan(800);
  });

  it('mixes a sound effect over speech without stopping it', () => {
    const { pb, up } = outputPath();
    const speech = monoSine(24_000, 1, 440, 12_000);
    pb.write(speech);
    const reference = new Upsampler24kTo48k().process(speech).slice();
    readFrames(up, 5);
    const chime = generateNotificationChime();
    up.mixEffect(chime, 0.5);
    const frames = Math.ceil(chime.length / FRAME);
    const played = readFrames(up, frames + 3);
    for (let k = 0; k < played.length; k++) {
      const speechValue = reference[5 * FRAME + k]!;
      const effect = k < chime.length ? chime[k]! * 0.5 : 0;
      const expected = k < frames * FRAME ? toInt16(softLimit(speechValue + effect)) : speechValue;
      expect(Math.abs(played[k]! - expected)).toBeLessThanOrEqual(1); // speech is mixed before rounding
    }
    expect(up.effectStats().activeEffects).toBe(0);
  });

  it('reports output levels through its meter', () => {
    const { pb, up } = outputPath();
    pb.write(monoSine(24_000, 0.2, 1000, 16_384));
    readFrames(up, 5);
    const level = up.meter.read();
    expect(level.rmsDbfs).toBeCloseTo(-9.03, 0); // a half-scale sine: -6 dB peak, -3 dB for RMS
    expect(level.peakDbfs).toBeCloseTo(-6.02, 0);
  });
});
