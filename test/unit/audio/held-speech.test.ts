// The hold buffer of the wake-name gate: bounded, in order, drained in fixed chunks, allocation-free.
import { describe, expect, it } from 'vitest';
import { HeldSpeech } from '../../../main/core/audio/held-speech.ts';
import { measureAllocationsPerFrame } from '../../../bench/lib/allocation-meter.ts';

const ramp = (from: number, n: number) => Int16Array.from({ length: n }, (_, i) => from + i);

describe('HeldSpeech', () => {
  it('gives back what was pushed, in order, in chunks of the chunk size (the last one zero-padded)', () => {
    const held = new HeldSpeech(1000, 320);
    expect(held.push(ramp(1, 400))).toBe(true);
    expect(held.push(ramp(401, 300))).toBe(true);
    expect(held.length).toBe(700);
    const out: number[][] = [];
    held.drain((chunk) => out.push([...chunk]));
    expect(out.map((c) => c.length)).toEqual([320, 320, 320]);
    expect(out.flat().slice(0, 700)).toEqual([...ramp(1, 700)]);
    expect(out.flat().slice(700)).toEqual(new Array(260).fill(0));
    expect(held.length).toBe(0);
  });

  it('refuses what does not fit, keeps what it had, and says it overflowed until cleared', () => {
    const held = new HeldSpeech(640, 320);
    expect(held.push(ramp(1, 600))).toBe(true);
    expect(held.push(ramp(601, 100))).toBe(false);
    expect(held.overflowed).toBe(true);
    expect(held.length).toBe(600);
    held.clear();
    expect(held.overflowed).toBe(false);
    expect(held.length).toBe(0);
  });

  it('allocates nothing per 20 ms chunk (push, and drain into the reused chunk)', () => {
    const held = new HeldSpeech(16_000, 320);
    const chunk = ramp(0, 320);
    let sum = 0;
    const consume = (c: Int16Array): void => {
      sum += c[0]!;
    };
    const report = measureAllocationsPerFrame((f) => {
      held.push(chunk);
      if (f % 40 === 39) held.drain(consume);
    });
    expect(sum).toBeGreaterThanOrEqual(0);
    expect(report.bytesPerFrame).toBeLessThan(4);
  });
});
