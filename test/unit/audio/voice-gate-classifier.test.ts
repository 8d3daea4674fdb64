// The voice gate with a classifier (main/core/audio/voice-classifier.ts; docs/audio.md "Phantom
// turns"): an onset waits for a speech verdict, opens on it with nothing lost, is dropped when it
// falls quiet first, and the pending path allocates nothing per frame. Fakes answer at once or when
// the test says, so every assertion is about frames, never time.
import { describe, expect, it } from 'vitest';
import { VoiceGate, type VoiceGateOptions } from '../../../main/core/audio/voice-gate.ts';
import type { VoiceActivityClassifier } from '../../../main/core/audio/voice-classifier.ts';
import { measureAllocationsPerFrame } from '../../../bench/lib/allocation-meter.ts';
import { prng } from '../../../bench/lib/tone-analysis.ts';
import { concatPcm } from '../../../main/fakes/shared/pcm.ts';

const RATE = 16_000;
const ms = (n: number): number => (n * RATE) / 1000;

/** Answers when the test calls `answer(p)` (a model running off the audio thread); counts windows. */
class ManualClassifier implements VoiceActivityClassifier {
  readonly windowSamples = 512;
  windows = 0;
  resets = 0;
  #waiting: ((p: number) => void)[] = [];
  reset(): void {
    this.resets++;
    this.#waiting = [];
  }
  classify(_window: Int16Array, onResult: (p: number) => void): void {
    this.windows++;
    this.#waiting.push(onResult);
  }
  answer(p: number): void {
    for (const onResult of this.#waiting.splice(0)) onResult(p);
  }
}

function recordingGate(options: Partial<VoiceGateOptions> = {}) {
  const chunks: Int16Array[] = [];
  let ends = 0;
  let opens = 0;
  const gate = new VoiceGate({
    chunkMs: 20,
    ...options,
    onChunk: (c) => chunks.push(c.slice()),
    onEnd: () => ends++,
    onOpen: () => opens++,
  });
  return { gate, sent: () => concatPcm(chunks), ends: () => ends, opens: () => opens };
}

/** Faint noise, then a loud 220 Hz voice-like tone from `loudAt` ms for `loudMs`, then noise. */
function utterance(totalMs: number, loudAt: number, loudMs: number): Int16Array {
  const rnd = prng(7);
  const x = new Int16Array(ms(totalMs));
  for (let i = 0; i < x.length; i++) {
    const loud = i >= ms(loudAt) && i < ms(loudAt + loudMs);
    x[i] = Math.round((rnd() * 2 - 1) * 30 + (loud ? 6000 * Math.sin((2 * Math.PI * 220 * i) / RATE) : 0));
  }
  return x;
}

function feed(gate: VoiceGate, x: Int16Array, fromMs: number, toMs: number): void {
  for (let i = ms(fromMs); i < ms(toMs); i += 320) gate.push(x.subarray(i, Math.min(ms(toMs), i + 320)));
}

describe('VoiceGate with a classifier', () => {
  it('sends nothing while an onset waits, then on a speech verdict exactly what the gate alone sends', () => {
    const x = utterance(1800, 500, 600);
    const classifier = new ManualClassifier();
    const withClassifier = recordingGate({ classifier });
    const alone = recordingGate();
    feed(withClassifier.gate, x, 0, 700); // 200 ms into the sound: the verdict is late
    expect(withClassifier.gate.isPending).toBe(true);
    expect(withClassifier.sent()).toHaveLength(0);
    expect(withClassifier.opens()).toBe(0);
    expect(classifier.windows).toBeGreaterThan(1);
    classifier.answer(0.9);
    expect(withClassifier.gate.isOpen).toBe(true);
    feed(withClassifier.gate, x, 700, 1800);
    feed(alone.gate, x, 0, 1800);
    // Pre-roll, the pending audio and the rest, bit for bit: the wait cost nothing but its delay.
    expect(withClassifier.sent()).toEqual(alone.sent());
    expect([withClassifier.opens(), withClassifier.ends()]).toEqual([1, 1]);
  });

  it('drops an onset the classifier never calls speech once it falls quiet for the hangover', () => {
    const x = utterance(1500, 500, 300);
    const classifier = new ManualClassifier();
    const { gate, sent, opens, ends } = recordingGate({ classifier });
    feed(gate, x, 0, 600);
    classifier.answer(0.1);
    feed(gate, x, 600, 1500);
    expect(gate.isPending).toBe(false);
    expect([sent().length, opens(), ends()]).toEqual([0, 0, 0]);
    expect(gate.stats().rejectedOnsets).toBe(1);
    // A verdict still in flight for the dropped onset opens nothing.
    classifier.answer(1);
    expect(gate.isOpen).toBe(false);
  });

  it('opens on the same frame as the gate alone when the verdict comes at once', () => {
    const x = utterance(1200, 500, 400);
    let openedWith = -1;
    let openedAlone = -1;
    let fed = 0;
    const speech: VoiceActivityClassifier = {
      windowSamples: 512,
      reset: () => undefined,
      classify: (_w, onResult) => onResult(1),
    };
    const a = new VoiceGate({
      classifier: speech,
      onChunk: () => undefined,
      onEnd: () => undefined,
      onOpen: () => (openedWith = fed),
    });
    const b = new VoiceGate({ onChunk: () => undefined, onEnd: () => undefined, onOpen: () => (openedAlone = fed) });
    for (fed = 160; fed <= x.length; fed += 160) {
      a.push(x.subarray(fed - 160, fed));
      b.push(x.subarray(fed - 160, fed));
    }
    expect(openedAlone).toBeGreaterThan(0);
    expect(openedWith).toBe(openedAlone);
  });

  it('runs the classifier only while an onset waits: not on silence, not while the turn is open', () => {
    const x = utterance(3000, 1000, 1000);
    const classifier = new ManualClassifier();
    const { gate } = recordingGate({ classifier });
    feed(gate, x, 0, 1000);
    expect(classifier.windows).toBe(0);
    feed(gate, x, 1000, 1040);
    classifier.answer(1);
    const atOpen = classifier.windows;
    feed(gate, x, 1040, 3000);
    gate.pushSilence(ms(2000));
    expect(classifier.windows).toBe(atOpen);
  });

  it('allocates nothing per frame on the pending path (onsets confirmed and dropped over and over)', () => {
    let verdict = 0;
    const classifier: VoiceActivityClassifier = {
      windowSamples: 512,
      reset: () => undefined,
      classify: (_w, onResult) => onResult(verdict),
    };
    let opens = 0;
    const gate = new VoiceGate({
      classifier,
      chunkMs: 20,
      onChunk: () => undefined,
      onEnd: () => undefined,
      onOpen: () => opens++,
    });
    const loud = new Int16Array(320);
    for (let i = 0; i < loud.length; i++) loud[i] = Math.round(6000 * Math.sin((2 * Math.PI * 220 * i) / RATE));
    const report = measureAllocationsPerFrame((f) => {
      // 300 ms of sound every 1.2 s; every other onset is speech.
      const phase = f % 60;
      if (phase === 0) verdict = (f / 60) % 2 === 0 ? 1 : 0;
      if (phase < 15) gate.push(loud);
      else gate.pushSilence(320);
    });
    expect(opens).toBeGreaterThan(10);
    expect(gate.stats().rejectedOnsets).toBeGreaterThan(10);
    expect(report.bytesPerFrame).toBeLessThan(4);
  });

  it('tells the caller how much silence drops a pending onset, so a cough is not kept for the next speech', () => {
    const x = utterance(800, 500, 200); // a 200 ms burst, then the stream stops (Discord sends nothing)
    const classifier = new ManualClassifier();
    const { gate, sent } = recordingGate({ classifier });
    feed(gate, x, 0, 720);
    expect(gate.isPending).toBe(true);
    const silence = gate.silenceSamplesUntilOutput();
    expect(silence).toBeLessThanOrEqual(ms(500));
    gate.pushSilence(silence);
    expect(gate.isPending).toBe(false);
    expect(gate.stats().rejectedOnsets).toBe(1);
    classifier.answer(1);
    expect(sent()).toHaveLength(0);
  });

  it('stops asking about a stationary sound (a fan from the first packet) the classifier never calls speech', () => {
    const rnd = prng(5);
    const fan = new Int16Array(ms(6000));
    let a = 0;
    let b = 0;
    for (let i = 0; i < fan.length; i++) {
      a += 0.08 * (rnd() * 2 - 1 - a);
      b += 0.08 * (a - b);
      fan[i] = Math.round(b * 4000); // about -46 dBFS RMS
    }
    let windows = 0;
    const never: VoiceActivityClassifier = {
      windowSamples: 512,
      reset: () => undefined,
      classify: (_w, onResult) => (windows++, onResult(0)),
    };
    const { gate, sent } = recordingGate({ classifier: never });
    feed(gate, fan, 0, 3000);
    expect(gate.stats().rejectedOnsets).toBeGreaterThanOrEqual(1);
    const after = windows;
    feed(gate, fan, 3000, 6000);
    expect(gate.isPending).toBe(false);
    expect(windows).toBe(after);
    expect(sent()).toHaveLength(0);
  });
});
