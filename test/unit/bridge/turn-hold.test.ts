// The voice gate holds a turn the service hears (issue #52): through a pause it hands on paced
// silence, in real time and in the input chunk size, until the service ends the turn or the
// silence cap runs out; nothing runs when no turn is open, and the paced silence allocates nothing.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { measureAllocationsPerFrame } from '../../../bench/lib/allocation-meter.ts';
import { wiredCallAudio } from '../../../bench/lib/call-audio-segment.ts';
import { turnCapFor } from '../../../main/core/audio/end-of-turn.ts';
import { VoiceGate } from '../../../main/core/audio/voice-gate.ts';
import type { CallAudio } from '../../../main/core/bridge/call-audio.ts';
import { CallMetrics } from '../../../main/core/bridge/metrics.ts';

const CHUNK_MS = 100;
const CAP_MS = 3000;

function sineFrame(index: number, amplitude = 8000): Int16Array {
  return Int16Array.from({ length: 960 }, (_, i) =>
    Math.round(amplitude * Math.sin((2 * Math.PI * 440 * (index * 960 + i)) / 48_000)),
  );
}

let now = 0;
let chunks: { at: number; silent: boolean; samples: number }[];
let ended: number[];
let held: boolean;
let audio: CallAudio;

function advance(ms: number): void {
  for (let i = 0; i < ms; i++) {
    now += 1;
    vi.advanceTimersByTime(1);
  }
}

/** 500 ms of one speaker's packets, then Discord sends nothing (a pause). */
function speak(frames = 25): void {
  for (let f = 0; f < frames; f++) {
    audio.pushSpeakerFrame('owner', sineFrame(f));
    advance(20);
  }
}

let metrics: CallMetrics;
beforeEach(() => {
  vi.useFakeTimers();
  metrics = new CallMetrics();
  now = 1000;
  chunks = [];
  ended = [];
  held = true;
  audio = wiredCallAudio({
    inputChunkMs: CHUNK_MS,
    holdTurn: () => held,
    metrics,
    now: () => now,
    onSpeech: (c) => chunks.push({ at: now, silent: c.every((v) => v === 0), samples: c.length }),
    onSpeechEnd: () => ended.push(now),
  });
  audio.gate.setTurnCap(CAP_MS);
  audio.start();
});
afterEach(() => {
  audio.stop();
  vi.useRealTimers();
});

describe('a held turn (the service decides)', () => {
  it('no turn open, no timer: a joined call in which nobody speaks schedules nothing', () => {
    expect(vi.getTimerCount()).toBe(0);
    advance(5000);
    expect(vi.getTimerCount()).toBe(0);
    expect(chunks).toHaveLength(0);
  });

  it('a pause goes on as silence in real time, in 20 ms pieces once the turn is held, past the old 500 ms hangover; the cap ends it and then nothing runs', () => {
    speak();
    const lastSpeech = now;
    const before = chunks.length;
    advance(1500);
    expect(ended, 'no end of input 1.5 s into the pause').toEqual([]);
    const paced = chunks.slice(before);
    expect(paced.every((c) => c.silent)).toBe(true);
    // Real time: 1500 ms of pause handed on as it passes, never ahead (the service counts what it receives).
    // (The first paced chunk also carries the utterance's last frames: up to a chunk of them.)
    let sent = 0;
    for (const c of paced) {
      sent += c.samples;
      expect(sent / 16, `audio sent by ${c.at - lastSpeech} ms into the pause`).toBeLessThanOrEqual(
        c.at - lastSpeech + CHUNK_MS,
      );
    }
    expect(sent / 16).toBeGreaterThanOrEqual(1500 - CHUNK_MS);
    // Once the turn is held (the 500 ms hangover), a piece every 20 ms: the service's window never waits on a chunk.
    const held = paced.filter((c) => c.at - lastSpeech > 500 + CHUNK_MS);
    expect(held.length).toBeGreaterThan(30);
    for (let i = 1; i < held.length; i++) expect(held[i]!.at - held[i - 1]!.at).toBeLessThanOrEqual(20);
    expect(held.every((c) => c.samples <= 320)).toBe(true);
    advance(CAP_MS);
    expect(ended).toHaveLength(1);
    // The cap counts from the last loud 10 ms frame: within a chunk of it.
    expect(ended[0]! - lastSpeech).toBeGreaterThanOrEqual(CAP_MS - CHUNK_MS);
    expect(ended[0]! - lastSpeech).toBeLessThanOrEqual(CAP_MS + CHUNK_MS + 20);
    const silenceSent = chunks.slice(before).reduce((n, c) => n + c.samples, 0) / 16;
    expect(silenceSent).toBeLessThanOrEqual(CAP_MS + CHUNK_MS);
    // The call's figures (bench:cost reads them): one utterance ended, its trailing quiet the cap's.
    expect(metrics.snapshot()).toMatchObject({
      turns_ended: 1,
      turn_silence_ms_max: CAP_MS,
      turn_silence_ms_total: CAP_MS,
    });
    const atEnd = chunks.length;
    advance(200); // the last fill-in wake-up sees the gate closed and the input goes idle
    expect(vi.getTimerCount()).toBe(0);
    advance(5000);
    expect(chunks).toHaveLength(atEnd);
  });

  it("the service's end closes it at once, mid-pause, and the timers stop", () => {
    speak();
    advance(700);
    expect(ended).toEqual([]);
    audio.gate.serviceEndedTurn();
    expect(ended).toEqual([now]);
    advance(CHUNK_MS + 20);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("the service's end while the speaker is loud waits for 200 ms of quiet (a late event cannot cut a word)", () => {
    speak();
    const lastSpeech = now - 20; // the last packet's arrival (speak() advances past it)
    audio.gate.serviceEndedTurn();
    expect(ended).toEqual([]);
    advance(300);
    expect(ended).toHaveLength(1);
    expect(ended[0]! - lastSpeech).toBeGreaterThanOrEqual(200);
    expect(ended[0]! - lastSpeech).toBeLessThanOrEqual(200 + 20);
  });

  it("speech after the service's end cancels it: the utterance goes on and is held as before", () => {
    speak();
    audio.gate.serviceEndedTurn();
    speak(10);
    advance(1500);
    expect(ended).toEqual([]);
  });

  it('speech after a pause continues the same turn: no end in between, no pre-roll sent twice', () => {
    speak();
    advance(700);
    const before = chunks.length;
    speak();
    expect(ended).toEqual([]);
    // 500 ms of speech: five chunks (no re-sent pre-roll: the gate never closed).
    expect(chunks.length - before).toBeLessThanOrEqual(6);
  });

  it('an utterance nobody downstream owns (withheld by the wake-name gate) closes at the hangover, as before', () => {
    held = false;
    speak();
    advance(700);
    expect(ended).toHaveLength(1);
  });
});

describe('the silence cap', () => {
  it('is never shorter than the patience window plus a margin', () => {
    // A level: at least semantic_vad's longest wait at its eagerness (2 / 4 / 8 s) + 1 s, so the
    // bridge never ends a turn the service's content-aware detector is still weighing.
    expect(turnCapFor(3000, 'quick')).toBe(3000);
    expect(turnCapFor(3000, 'natural')).toBe(5000);
    expect(turnCapFor(3000, 'patient')).toBe(9000);
    expect(turnCapFor(10_000, 'natural')).toBe(10_000);
    // Explicit ms map to a silence window everywhere: that window + 1 s.
    expect(turnCapFor(3000, 2500)).toBe(3500);
    expect(turnCapFor(1000, 800)).toBe(1800);
  });

  it('paced silence through a held gate allocates nothing per frame', () => {
    const gate = new VoiceGate({
      chunkMs: CHUNK_MS,
      onChunk: () => undefined,
      onEnd: () => undefined,
      holdTurn: () => true,
      turnCapMs: 1e9,
    });
    const loud = Int16Array.from({ length: 320 }, (_, i) =>
      Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 16_000)),
    );
    for (let i = 0; i < 10; i++) gate.push(loud);
    expect(gate.isOpen).toBe(true);
    const report = measureAllocationsPerFrame(() => gate.pushSilence(320), {
      warmupFrames: 1000,
      frames: 5000,
      windows: 3,
    });
    expect(gate.isOpen).toBe(true);
    expect(report.bytesPerFrame).toBeLessThan(4);
  });
});
