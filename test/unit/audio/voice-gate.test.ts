import { describe, expect, it } from 'vitest';
import { VoiceGate, type VoiceGateOptions } from '../../../main/core/audio/voice-gate.ts';
import { prng } from '../../../bench/lib/tone-analysis.ts';
import { concatPcm } from '../../../main/fakes/shared/pcm.ts';

const RATE = 16_000;
const ms = (n: number): number => (n * RATE) / 1000;

/** Concatenates the stream a model would receive, with the position of each "input ended". */
function recordingGate(options: Partial<VoiceGateOptions> = {}) {
  const chunks: Int16Array[] = [];
  const ends: number[] = [];
  let opens = 0;
  const gate = new VoiceGate({
    ...options,
    onChunk: (c) => chunks.push(c.slice()),
    onEnd: () => ends.push(chunks.length),
    onOpen: () => opens++,
  });
  const sent = () => concatPcm(chunks);
  return { gate, chunks, ends, sent, opens: () => opens };
}

/** Room noise around -66 dBFS, a 150 ms soft onset below the open threshold, loud speech, more noise. */
function utterance(seed: number, leadMs: number, speechMs: number, tailMs: number) {
  const rnd = prng(seed);
  const total = ms(leadMs + 150 + speechMs + tailMs);
  const x = new Int16Array(total);
  const onsetStart = ms(leadMs);
  const loudStart = onsetStart + ms(150);
  const loudEnd = loudStart + ms(speechMs);
  for (let i = 0; i < total; i++) {
    let v = (rnd() * 2 - 1) * 30; // noise
    if (i >= onsetStart && i < loudStart) v += 60 * Math.sin((2 * Math.PI * 300 * i) / RATE); // about -58 dBFS
    if (i >= loudStart && i < loudEnd)
      v += 6000 * Math.sin((2 * Math.PI * 220 * i) / RATE) * (0.6 + 0.4 * Math.sin((2 * Math.PI * 3 * i) / RATE));
    x[i] = Math.round(v);
  }
  return { x, onsetStart, loudStart, loudEnd };
}

function feedIn20msFrames(gate: VoiceGate, x: Int16Array): void {
  for (let i = 0; i < x.length; i += 320) gate.push(x.subarray(i, i + 320));
}

describe('VoiceGate', () => {
  it('keeps the 200+ ms before the speech energy (the whole soft onset), bit for bit', () => {
    for (const preRollMs of [200, 300]) {
      const { gate, ends, sent, opens } = recordingGate({ preRollMs, chunkMs: 40 });
      const { x, onsetStart, loudStart } = utterance(1, 1000, 600, 1500);
      feedIn20msFrames(gate, x);
      const out = sent();
      const firstSent = loudStart - ms(preRollMs);
      expect(firstSent).toBeLessThanOrEqual(onsetStart);
      expect(opens()).toBe(1);
      expect(ends).toHaveLength(1);
      // What the model receives starts preRollMs before the loud part and is the input, unchanged.
      const speechAndHangover = out.subarray(0, out.length - 640); // the last chunk may be zero-padded
      expect(Array.from(speechAndHangover)).toEqual(
        Array.from(x.subarray(firstSent, firstSent + speechAndHangover.length)),
      );
      expect(speechAndHangover.length).toBeGreaterThanOrEqual(ms(preRollMs + 600 + 500) - 640);
      expect(speechAndHangover.length).toBeLessThanOrEqual(ms(preRollMs + 600 + 500 + 20));
    }
  });

  it('sends fixed-size chunks of the configured length and pads the last one with silence', () => {
    for (const chunkMs of [20, 30, 40]) {
      const { gate, chunks, ends } = recordingGate({ chunkMs });
      feedIn20msFrames(gate, utterance(2, 500, 400, 1000).x);
      expect(chunks.length).toBeGreaterThan(5);
      for (const c of chunks) expect(c.length).toBe(ms(chunkMs));
      expect(ends).toEqual([chunks.length]); // "input ended" right after the last chunk
    }
  });

  it('sends nothing for noise and digital silence', () => {
    const { gate, chunks, ends } = recordingGate();
    const rnd = prng(3);
    const noise = new Int16Array(ms(10_000)).map(() => Math.round((rnd() * 2 - 1) * 40));
    feedIn20msFrames(gate, noise);
    gate.pushSilence(ms(5000));
    expect(chunks).toHaveLength(0);
    expect(ends).toHaveLength(0);
  });

  it('ignores a single-frame click (needs two loud 10 ms frames)', () => {
    const { gate, chunks } = recordingGate();
    const x = new Int16Array(ms(1000));
    for (let i = ms(500); i < ms(505); i++) x[i] = 20_000;
    feedIn20msFrames(gate, x);
    expect(chunks).toHaveLength(0);
  });

  it('holds through pauses shorter than the hangover and closes after a longer one', () => {
    const { gate, ends, opens } = recordingGate({ hangoverMs: 500 });
    const word = utterance(4, 0, 300, 0).x.subarray(ms(150));
    const feed = (x: Int16Array) => feedIn20msFrames(gate, x);
    feed(word);
    gate.pushSilence(ms(300));
    feed(word);
    expect(ends).toHaveLength(0);
    gate.pushSilence(ms(600));
    expect(ends).toHaveLength(1);
    expect(opens()).toBe(1);
  });

  it('a quick re-open does not send the already-sent hangover again', () => {
    const { gate, sent } = recordingGate({ hangoverMs: 200, chunkMs: 20 });
    const word = new Int16Array(ms(200)).map((_, i) => Math.round(5000 * Math.sin((2 * Math.PI * 200 * i) / RATE)));
    const silence = new Int16Array(ms(300));
    const input = new Int16Array(word.length * 2 + silence.length);
    input.set(word, 0);
    input.set(silence, word.length);
    input.set(word, word.length + silence.length);
    feedIn20msFrames(gate, input);
    gate.pushSilence(ms(400));
    const out = sent();
    // Everything that was sent, in order, with the padding zeros at each close: never more input
    // samples than exist (duplicates would make it longer than input + padding).
    expect(out.length).toBeLessThanOrEqual(input.length + ms(400) + 2 * 320);
    let nonZero = 0;
    for (const v of out) if (v !== 0) nonZero++;
    let inputNonZero = 0;
    for (const v of input) if (v !== 0) inputNonZero++;
    expect(nonZero).toBe(inputNonZero);
  });

  it('flush() closes an open gate and reports input ended', () => {
    const { gate, ends } = recordingGate();
    feedIn20msFrames(gate, utterance(5, 200, 300, 0).x);
    expect(gate.isOpen).toBe(true);
    gate.flush();
    expect(gate.isOpen).toBe(false);
    expect(ends).toHaveLength(1);
  });

  it('rejects a pre-roll under 200 ms or chunks outside 20-100 ms', () => {
    const noop = () => undefined;
    expect(() => new VoiceGate({ onChunk: noop, onEnd: noop, preRollMs: 150 })).toThrow(RangeError);
    expect(() => new VoiceGate({ onChunk: noop, onEnd: noop, chunkMs: 10 })).toThrow(RangeError);
    expect(() => new VoiceGate({ onChunk: noop, onEnd: noop, chunkMs: 120 })).toThrow(RangeError);
    expect(new VoiceGate({ onChunk: noop, onEnd: noop, chunkMs: 100 }).isOpen).toBe(false);
  });
});
