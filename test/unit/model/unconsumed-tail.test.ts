// The unconsumed tail keeps exactly the audio the service has not confirmed (transparent
// resumption) and sends it again in order, under the new socket's numbers; a bound evicts the oldest.
import { describe, expect, it } from 'vitest';
import { UnconsumedTail } from '../../../main/core/model/unconsumed-tail.ts';
import { RecentTranscript, seededInstruction } from '../../../main/core/model/conversation-seed.ts';

const chunk = (seq: number): Int16Array => new Int16Array(320).fill(seq);

function replayed(tail: UnconsumedTail): (number | 'end')[] {
  const out: (number | 'end')[] = [];
  let index = 100;
  tail.replay(
    (pcm) => {
      out.push(pcm[0]!);
      tail.audio(pcm, index++);
    },
    () => {
      out.push('end');
      tail.end(index++);
    },
  );
  return out;
}

describe('UnconsumedTail', () => {
  it('sends again only what comes after the consumed index, and re-records it under the new numbers', () => {
    const tail = new UnconsumedTail(30_000);
    for (let i = 1; i <= 5; i++) tail.audio(chunk(i), i);
    tail.end(6);
    tail.audio(chunk(7), 7);
    tail.consumed(3);
    expect(replayed(tail)).toEqual([4, 5, 'end', 7]);
    expect(tail.replayedSamples).toBe(3 * 320);
    // Now numbered 100.. on the new socket: consumed up to 101 leaves 'end' and 7.
    tail.consumed(101);
    expect(replayed(tail)).toEqual(['end', 7]);
  });

  it('keeps its message numbers right when the bound evicts the oldest audio', () => {
    const tail = new UnconsumedTail(100); // 5 chunks of 20 ms
    for (let i = 1; i <= 8; i++) tail.audio(chunk(i), i);
    expect(tail.lostSamples).toBe(3 * 320);
    tail.consumed(5);
    expect(replayed(tail)).toEqual([6, 7, 8]);
  });
});

describe('RecentTranscript and the seed', () => {
  it("joins one turn's late user words to its line, bounds the text, and seeds the persona with it", () => {
    const t = new RecentTranscript(60);
    t.add('user', 'my name ');
    t.add('model', 'Hello ');
    t.add('user', 'is Ada');
    t.add('model', 'Ada.');
    t.turnEnded();
    t.add('user', 'what time is it');
    expect(t.lines()).toEqual([
      { role: 'user', text: 'my name is Ada' },
      { role: 'model', text: 'Hello Ada.' },
      { role: 'user', text: 'what time is it' },
    ]);
    for (let i = 0; i < 10; i++) t.add('model', 'blah blah ');
    expect(t.lines().map((l) => l.role)).toEqual(['model']);
    const instruction = seededInstruction('You are Kore.', {
      transcript: [{ role: 'user', text: 'hi' }],
      pending: 'Reminder: tea',
    })!;
    expect(instruction.startsWith('You are Kore.')).toBe(true);
    expect(instruction).toContain('User: hi');
    expect(instruction).toContain('Reminder: tea');
  });
});
