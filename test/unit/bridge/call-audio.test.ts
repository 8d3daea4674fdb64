import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CallAudio } from '../../../main/core/bridge/call-audio.ts';
import { wiredCallAudio } from '../../../bench/lib/call-audio-segment.ts';
import { CallMetrics } from '../../../main/core/bridge/metrics.ts';
import { measureAllocationsPerFrame } from '../../../bench/lib/allocation-meter.ts';

/** 20 ms of a 440 Hz sine at 48 kHz (mono, as every frame inside the call), continuing the phase of frame `index`. */
function sineFrame(index: number, amplitude = 8000): Int16Array {
  return Int16Array.from({ length: 960 }, (_, i) =>
    Math.round(amplitude * Math.sin((2 * Math.PI * 440 * (index * 960 + i)) / 48_000)),
  );
}

function longestZeroRun(pcm: Int16Array): number {
  let best = 0;
  let run = 0;
  for (const v of pcm) {
    run = v === 0 ? run + 1 : 0;
    best = Math.max(best, run);
  }
  return best;
}

let now = 0;
let metrics: CallMetrics;
let sent: Int16Array[];
let ended: number;
let audio: CallAudio;

/** Advance both the fake timers and the injected monotonic clock. */
function advance(ms: number): void {
  for (let i = 0; i < ms; i++) {
    now += 1;
    vi.advanceTimersByTime(1);
  }
}

beforeEach(() => {
  vi.useFakeTimers();
  now = 1000;
  metrics = new CallMetrics();
  sent = [];
  ended = 0;
  audio = wiredCallAudio({
    inputChunkMs: 20,
    metrics,
    now: () => now,
    onSpeech: (c) => sent.push(c.slice()),
    onSpeechEnd: () => (ended += 1),
  });
  audio.start();
});
afterEach(() => {
  audio.stop();
  vi.useRealTimers();
});

/** A started CallAudio whose activity reports and player stops and restarts are counted. */
function countingPlayer(): { player: CallAudio; activity: () => number; stops: () => number; restarts: () => number } {
  let activity = 0;
  let stops = 0;
  let restarts = 0;
  const player = wiredCallAudio({
    inputChunkMs: 20,
    metrics,
    now: () => now,
    onSpeech: () => undefined,
    onSpeechEnd: () => undefined,
    onActivity: () => (activity += 1),
    onOutputIdle: () => (stops += 1),
    onOutputResume: () => (restarts += 1),
  });
  player.start();
  return { player, activity: () => activity, stops: () => stops, restarts: () => restarts };
}

describe('CallAudio input path', () => {
  it('waits out a late burst of packets instead of inserting silence into the speech', () => {
    let frame = 0;
    for (; frame < 25; frame++) {
      audio.pushSpeakerFrame('owner', sineFrame(frame));
      advance(20);
    }
    // 120 ms with no packets (jitter / a busy event loop), then the six late packets at once.
    advance(120);
    for (let k = 0; k < 6; k++) audio.pushSpeakerFrame('owner', sineFrame(frame++));
    for (let k = 0; k < 10; k++) {
      audio.pushSpeakerFrame('owner', sineFrame(frame++));
      advance(20);
    }
    const speech = Int16Array.from(sent.flatMap((c) => [...c]));
    // 41 frames of 20 ms are 13 120 samples at 16 kHz; inserted silence for the gap would add 1 920.
    expect(speech.length).toBeGreaterThanOrEqual(40 * 320);
    expect(speech.length).toBeLessThanOrEqual(41 * 320);
    expect(longestZeroRun(speech)).toBeLessThan(100);
    expect(ended).toBe(0);
    // Chunks completed by arriving packets were timed: zero here, since the clock did not move.
    expect(metrics.ingress.count).toBeGreaterThan(30);
    expect(metrics.ingress.quantile(0.95)).toBeLessThanOrEqual(0.25);
  });

  it('fills a real pause with silence, so the gate closes and the model is told the input ended', () => {
    for (let frame = 0; frame < 25; frame++) {
      audio.pushSpeakerFrame('owner', sineFrame(frame));
      advance(20);
    }
    advance(1500);
    expect(ended).toBe(1);
    const speech = Int16Array.from(sent.flatMap((c) => [...c]));
    // The hangover is sent as the silence it was, after the speech.
    expect(longestZeroRun(speech)).toBeGreaterThanOrEqual(320);
    expect(speech.slice(0, 4000).some((v) => v !== 0)).toBe(true);
  });
});

describe('CallAudio output path', () => {
  it('measures egress on the first frame of a reply and barge-in on the first silent frame after it', () => {
    const out = new Int16Array(960);
    audio.playbackSource.readFrame(out);
    expect(out.every((v) => v === 0)).toBe(true);
    const reply = new Int16Array(24_000).map((_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 300 * i) / 24_000)));
    audio.pushModelAudio(reply);
    advance(7);
    audio.playbackSource.readFrame(out);
    expect(out.some((v) => v !== 0)).toBe(true);
    expect(metrics.egress.count).toBe(1);
    // Histogram buckets are 0.25 ms wide; the quantile is the bucket's upper edge.
    expect(metrics.egress.quantile(0.5)).toBeCloseTo(7.25, 5);
    audio.playbackSource.readFrame(out);
    advance(3);
    audio.interrupt();
    let loudFramesAfter = 0;
    for (let i = 0; i < 10; i++) {
      advance(20);
      audio.playbackSource.readFrame(out);
      if (out.some((v) => v !== 0)) loudFramesAfter++;
    }
    // One fade frame, then silence for the rest of the turn even though 900 ms of it were buffered.
    expect(loudFramesAfter).toBe(1);
    expect(metrics.bargeIn.count).toBe(1);
    // Interrupted at t, the fade frame left at t + 20 ms: the last sound, so the latency is 20 ms.
    expect(metrics.bargeIn.quantile(0.5)).toBeCloseTo(20.25, 5);
    audio.pushModelAudio(reply.subarray(0, 2400));
    audio.playbackSource.readFrame(out);
    expect(out.every((v) => v === 0)).toBe(true);
  });
});

describe('CallAudio barge-in hold (an onset the echo tests cannot judge yet)', () => {
  /** 1 s of a 300 Hz reply, and the same reply 18 dB down at 48 kHz: to the echo tests, our echo. */
  const reply = new Int16Array(24_000).map((_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 300 * i) / 24_000)));
  function echoLike(index: number, amplitude = 8000 / 8): Int16Array {
    return Int16Array.from({ length: 960 }, (_, i) =>
      Math.round(amplitude * Math.sin((2 * Math.PI * 300 * (index * 960 + i)) / 48_000)),
    );
  }
  function holdingCall() {
    const calls: string[] = [];
    const held = wiredCallAudio({
      inputChunkMs: 20,
      metrics,
      now: () => now,
      onSpeech: () => undefined,
      onSpeechEnd: () => undefined,
    });
    held.connectBargeIn({
      speakerTalkedOver: (id) => calls.push(`cut ${id}`),
      // What the bridge does (reply-cut.ts): hold on the onset.
      speakerMayTalkOver: (id) => {
        calls.push(`onset ${id}`);
        held.holdPlayback(id);
      },
    });
    held.start();
    held.pushModelAudio(reply);
    const out = new Int16Array(960);
    const read = () => {
      advance(20);
      held.playbackSource.readFrame(out);
      return out.some((v) => v !== 0);
    };
    for (let k = 0; k < 10; k++) read();
    return { held, calls, read };
  }

  it("unconfirmed: the reply stops within a frame, plays on after the speaker's next four frames, and that speaker holds nothing more", () => {
    const { held, calls, read } = holdingCall();
    held.pushSpeakerFrame('olga', echoLike(0));
    expect(calls).toEqual(['onset olga']);
    expect(metrics.bargeInHolds).toBe(1);
    const frames = [read()];
    for (let k = 1; k <= 4; k++) {
      held.pushSpeakerFrame('olga', echoLike(k)); // our echo again: not speech
      frames.push(read());
    }
    expect(frames, 'the fade frame, three silent ones, then the reply again').toEqual([
      true,
      false,
      false,
      false,
      true,
    ]);
    expect(metrics.bargeInHoldsReleased).toBe(1);
    expect(read(), 'the reply plays on').toBe(true);
    expect(held.playbackStats().bufferedMs).toBeGreaterThan(700);
    advance(100);
    held.pushSpeakerFrame('olga', echoLike(5));
    expect(calls, 'their onsets are taken for our echo now').toEqual(['onset olga']);
    held.stop();
  });

  // The flake in barge-in-local.test.ts: a late timer sends the player's slots 1 ms apart
  // (voice/playback.ts), and a hold counted in the player's frames ended before the speaker's
  // second frame had arrived; the reply played on for a frame and was cut again on that frame.
  /**
   * The event loop stalls 300 ms (no packet can be read), then the player's late timer sends six
   * slots 1 ms apart: returns which were loud.
   */
  function burst(held: CallAudio): boolean[] {
    const out = new Int16Array(960);
    now += 300;
    return Array.from({ length: 6 }, () => {
      now += 1;
      held.playbackSource.readFrame(out);
      return out.some((v) => v !== 0);
    });
  }

  it("a late timer's slots, read in a burst, do not end the hold: the speaker's next frames decide it", () => {
    const { held, calls, read } = holdingCall();
    held.pushSpeakerFrame('olga', echoLike(0));
    expect(burst(held), 'the fade, then silence however many slots go out, however late').toEqual([
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
    for (let k = 1; k <= 3; k++) {
      held.pushSpeakerFrame('olga', echoLike(k));
      expect(read(), `held after their frame ${k}`).toBe(false);
    }
    expect(metrics.bargeInHoldsReleased).toBe(0);
    held.pushSpeakerFrame('olga', echoLike(4));
    expect(read(), 'their fourth frame was not speech either: the reply plays on').toBe(true);
    expect(metrics.bargeInHoldsReleased).toBe(1);
    expect(calls).toEqual(['onset olga']);
    held.stop();
  });

  it('the word that comes after such a burst cuts a reply that never played on', () => {
    const { held, calls, read } = holdingCall();
    held.pushSpeakerFrame('olga', echoLike(0));
    burst(held);
    advance(40); // the rest of the word, late
    held.pushSpeakerFrame('olga', sineFrame(1, 8000));
    expect(calls).toEqual(['onset olga', 'cut olga']);
    held.interrupt(); // what the bridge does on the cut
    expect([read(), read(), read(), read()].some((loud) => loud)).toBe(false);
    expect(metrics).toMatchObject({ bargeInHolds: 1, bargeInHoldsReleased: 0 });
    held.stop();
  });

  it('a speaker who sends nothing after the onset: the hold ends after 200 ms without a frame of theirs', () => {
    const { held, read } = holdingCall();
    held.pushSpeakerFrame('olga', echoLike(0));
    const frames = Array.from({ length: 12 }, () => read());
    // The fade, then silence; the read 200 ms after their onset ends the hold, and the next one plays.
    expect(frames.indexOf(true, 1), 'the first loud frame after the fade').toBe(10);
    expect(metrics.bargeInHoldsReleased).toBe(1);
    held.stop();
  });

  it('confirmed: a later frame of speech cuts the held reply, with no second fade and nothing played on', () => {
    const { held, calls, read } = holdingCall();
    held.pushSpeakerFrame('olga', echoLike(0));
    expect(read()).toBe(true); // the fade
    held.pushSpeakerFrame('olga', sineFrame(1, 8000));
    expect(calls).toEqual(['onset olga', 'cut olga']);
    held.interrupt(); // what the bridge does on the cut
    const after = [read(), read(), read(), read(), read(), read()];
    expect(after.every((loud) => !loud)).toBe(true);
    expect(metrics.bargeInHoldsReleased).toBe(0);
    held.stop();
  });
});

describe('CallAudio metrics', () => {
  it('mixes a burst from one speaker instead of holding it for a late one (nothing dropped)', () => {
    // Nine packets at once from one speaker while another is active but late: waiting for the late
    // speaker used to overflow the first one's queue (5 frames) and drop its 4 oldest frames. Now a
    // speaker a whole frame ahead is mixed at once (the late one contributes silence that frame).
    audio.pushSpeakerFrame('b', sineFrame(0));
    audio.pushSpeakerFrame('a', sineFrame(0));
    for (let i = 1; i <= 8; i++) audio.pushSpeakerFrame('a', sineFrame(i));
    audio.syncMetrics();
    expect(metrics.framesIn).toBe(10);
    expect(metrics.droppedFrames).toBe(0);
    expect(metrics.snapshot().dropped_frames).toBe(0);
  });
});

describe('CallAudio in a quiet call', () => {
  it('runs no clock without audio: the input clock stops after a pause, the output asks the player to stop', () => {
    audio.stop();
    const { player: quiet, activity, stops: outputIdle, restarts: outputResume } = countingPlayer();
    expect(vi.getTimerCount()).toBe(0); // joined, nobody speaking: nothing scheduled
    for (let f = 0; f < 50; f++) {
      quiet.pushSpeakerFrame('owner', sineFrame(f));
      advance(20);
    }
    expect(vi.getTimerCount()).toBe(1); // while there is input: the pause watchdog (one speaker)
    expect(activity()).toBe(1);
    advance(2000); // the pause closes the gate (500 ms hangover), then the clock stops
    expect(vi.getTimerCount()).toBe(0);

    // Output: five silent frames pulled by the player (100 ms, as Discord's clients send before
    // they stop) and nothing queued -> stop the player; not one frame sooner.
    const out = new Int16Array(960);
    for (let f = 0; f < 4; f++) quiet.playbackSource.readFrame(out);
    expect(outputIdle()).toBe(0);
    quiet.playbackSource.readFrame(out);
    expect(outputIdle()).toBe(1);
    for (let f = 0; f < 30; f++) quiet.playbackSource.readFrame(out);
    expect(outputIdle()).toBe(1);
    expect(quiet.outputActive).toBe(false);
    // A reply restarts it.
    quiet.pushModelAudio(new Int16Array(960).fill(3000));
    expect(outputResume()).toBe(1);
    expect(quiet.outputActive).toBe(true);
    quiet.stop();
  });
});

describe('CallAudio output at the end of a reply whose turn is still open', () => {
  it('stops the player five silent frames after the audio ran out, before the turn ends; audio of the same turn restarts it', () => {
    const { player, stops, restarts } = countingPlayer();
    const out = new Int16Array(960);
    // A reply of 100 ms (five frames at 24 kHz); no turnComplete follows (GPT-Live ends a turn on
    // 700 ms without audio), so the turn stays open while the player drains it.
    player.pushModelAudio(new Int16Array(2400).fill(3000));
    expect(restarts()).toBe(0); // the player had not been stopped yet
    let frames = 0;
    let sounding = 0;
    while (stops() === 0 && frames < 40) {
      player.playbackSource.readFrame(out);
      frames += 1;
      if (out.some((v) => v !== 0)) sounding += 1;
    }
    expect(player.playbackStats().turnState).toBe('active');
    expect(stops()).toBe(1);
    // The reply's frames (plus the interpolator's tail), then five silent frames: not the 35 a
    // 700 ms turn gap would have sent.
    expect(frames - sounding).toBe(5);
    expect(player.outputActive).toBe(false);
    // More audio of the same turn: the player runs again, and the reply plays on.
    player.pushModelAudio(new Int16Array(2400).fill(3000));
    expect(restarts()).toBe(1);
    expect(player.outputActive).toBe(true);
    let resumed = 0;
    for (let f = 0; f < 10; f++) {
      player.playbackSource.readFrame(out);
      if (out.some((v) => v !== 0)) resumed += 1;
    }
    expect(resumed).toBeGreaterThanOrEqual(5);
    expect(player.playbackStats().turns).toBe(1);
    player.stop();
  });

  it('an interruption after the reply ran out and the player stopped measures no barge-in (nothing was cut)', () => {
    const { player } = countingPlayer();
    const out = new Int16Array(960);
    player.pushModelAudio(new Int16Array(2400).fill(3000));
    for (let f = 0; f < 20 && player.outputActive; f++) {
      player.playbackSource.readFrame(out);
      advance(20);
    }
    expect(player.outputActive).toBe(false);
    // The model yields with the turn still open (GPT-Live's inferred yield), the player stopped.
    player.interrupt();
    player.turnComplete();
    advance(3000);
    // The next reply plays and ends: its end is not the earlier interruption's barge-in.
    player.pushModelAudio(new Int16Array(2400).fill(3000));
    for (let f = 0; f < 20 && player.outputActive; f++) {
      player.playbackSource.readFrame(out);
      advance(20);
    }
    expect(metrics.interrupts).toBe(1);
    expect(metrics.bargeIn.count).toBe(0);
    player.stop();
  });

  it('keeps the player running while queued audio waits for its start margin', () => {
    const { player, stops } = countingPlayer();
    const out = new Int16Array(960);
    // Less than a frame of a reply: it waits in the buffer for more; the player must not stop on it.
    player.pushModelAudio(new Int16Array(200).fill(3000));
    for (let f = 0; f < 20; f++) player.playbackSource.readFrame(out);
    expect(stops()).toBe(0);
    expect(player.outputActive).toBe(true);
    player.stop();
  });
});

describe('CallAudio input clock', () => {
  it('one speaker talking: no 20 ms clock runs while packets flow; a pause starts it; a second speaker needs it', () => {
    const intervals = vi.spyOn(globalThis, 'setInterval');
    let frame = 0;
    for (; frame < 100; frame++) {
      audio.pushSpeakerFrame('owner', sineFrame(frame));
      advance(20);
    }
    // Two seconds of one speaker: every frame mixed on arrival, no clock (the watchdog is re-armed).
    expect(intervals).not.toHaveBeenCalled();
    expect(metrics.ingress.count).toBeGreaterThan(90);
    // The pause: the watchdog fills in the silence until the gate closes, then nothing runs.
    advance(1500);
    expect(intervals).not.toHaveBeenCalled();
    expect(ended).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
    // Two speakers, one late by half a frame: the clock runs while both are heard.
    for (let k = 0; k < 20; k++, frame++) {
      audio.pushSpeakerFrame('owner', sineFrame(frame));
      advance(10);
      audio.pushSpeakerFrame('guest', sineFrame(frame, 4000));
      advance(10);
    }
    expect(intervals).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(1);
    intervals.mockRestore();
  });

  it('a pause wakes up only when the gate has something for the model: the same chunks, each once its silence has passed', () => {
    audio.stop();
    const chunks: { at: number; pcm: Int16Array }[] = [];
    let endedAt = 0;
    const paced = wiredCallAudio({
      inputChunkMs: 100,
      metrics,
      now: () => now,
      onSpeech: (c) => chunks.push({ at: now, pcm: c.slice() }),
      onSpeechEnd: () => (endedAt = now),
    });
    paced.start();
    const speechStart = now;
    for (let frame = 0; frame < 50; frame++) {
      paced.pushSpeakerFrame('owner', sineFrame(frame));
      advance(20);
    }
    const lastPacketAt = now - 20;
    const timeouts = vi.spyOn(globalThis, 'setTimeout');
    const intervals = vi.spyOn(globalThis, 'setInterval');
    advance(2000);
    // The hangover (500 ms of silence after the last loud frame) went to the model in 100 ms chunks,
    // then the input ended; the 20 ms clock of before woke 45 times for this, now 1 + 6 wake-ups.
    expect(intervals).not.toHaveBeenCalled();
    expect(timeouts.mock.calls.length).toBeLessThanOrEqual(7);
    expect(endedAt).toBeGreaterThan(0);
    expect(vi.getTimerCount()).toBe(0);
    // Every chunk left once the real time its audio covers had passed, and at most one tick later
    // (a packet arriving at t carries the 20 ms before t; the pause's silence starts at the last one),
    // except that the first 200 ms of a pause are waited out (a late packet may still come).
    let samples = 0;
    for (const chunk of chunks) {
      samples += chunk.pcm.length;
      const coveredUntil = speechStart - 20 + (samples * 1000) / 16_000;
      expect(chunk.at).toBeGreaterThanOrEqual(coveredUntil);
      expect(chunk.at).toBeLessThanOrEqual(Math.max(coveredUntil + 20, lastPacketAt + 200));
    }
    // 1 s of speech plus the 500 ms hangover, the last chunk padded.
    expect(samples).toBeGreaterThanOrEqual(1.5 * 16_000);
    expect(samples).toBeLessThanOrEqual(1.6 * 16_000 + 1600);
    expect(endedAt - lastPacketAt).toBeLessThanOrEqual(540);
    timeouts.mockRestore();
    intervals.mockRestore();
    paced.stop();
  });

  it('a packet during a pause hears the silence before it (whole ticks), then the pause starts over', () => {
    audio.stop();
    const received: Int16Array[] = [];
    const paced = wiredCallAudio({
      inputChunkMs: 100,
      metrics,
      now: () => now,
      onSpeech: (c) => received.push(c.slice()),
      onSpeechEnd: () => undefined,
    });
    paced.start();
    let frame = 0;
    for (; frame < 50; frame++) {
      paced.pushSpeakerFrame('owner', sineFrame(frame));
      advance(20);
    }
    advance(330); // 350 ms after the last packet: inside the hangover, the gate still open
    for (let k = 0; k < 10; k++, frame++) {
      paced.pushSpeakerFrame('owner', sineFrame(frame));
      advance(20);
    }
    const speech = Int16Array.from(received.flatMap((c) => [...c]));
    // The gap reached the model as silence of its own length (17 whole ticks of 20 ms), not shorter.
    const gap = longestZeroRun(speech);
    expect(gap).toBeGreaterThanOrEqual(17 * 320 - 160);
    expect(gap).toBeLessThanOrEqual(18 * 320 + 160);
    paced.stop();
  });
});

describe('CallAudio mute / push-to-talk gate', () => {
  it('closed: frames are dropped before the model, no input clock starts; reopened: speech flows again', () => {
    let activity = 0;
    audio.stop();
    audio = wiredCallAudio({
      inputChunkMs: 20,
      metrics,
      now: () => now,
      onSpeech: (c) => sent.push(c.slice()),
      onSpeechEnd: () => (ended += 1),
      onActivity: () => (activity += 1),
    });
    audio.start();
    audio.setUserAudioOpen(false);
    for (let frame = 0; frame < 50; frame++) {
      audio.pushSpeakerFrame('owner', sineFrame(frame));
      advance(20);
    }
    expect(sent).toHaveLength(0);
    expect([metrics.framesIn, metrics.framesMuted, activity, vi.getTimerCount()]).toEqual([0, 50, 0, 0]);
    audio.setUserAudioOpen(true);
    for (let frame = 0; frame < 25; frame++) {
      audio.pushSpeakerFrame('owner', sineFrame(frame));
      advance(20);
    }
    expect(sent.length).toBeGreaterThan(0);
  });

  it('a muted frame allocates nothing (one comparison and a counter)', () => {
    audio.setUserAudioOpen(false);
    const frame = sineFrame(0);
    const report = measureAllocationsPerFrame(() => audio.pushSpeakerFrame('owner', frame), {
      warmupFrames: 1000,
      frames: 5000,
      windows: 3,
    });
    expect(report.bytesPerFrame).toBeLessThan(4);
    expect(sent).toHaveLength(0);
  });

  it('closing mid-utterance ends the audio input at once (the model sees the turn end)', () => {
    for (let frame = 0; frame < 25; frame++) {
      audio.pushSpeakerFrame('owner', sineFrame(frame));
      advance(20);
    }
    expect(ended).toBe(0);
    audio.setUserAudioOpen(false);
    expect(ended).toBe(1);
    const sentAtClose = sent.length;
    advance(1000);
    expect([sent.length, ended, vi.getTimerCount()]).toEqual([sentAtClose, 1, 0]);
  });
});
