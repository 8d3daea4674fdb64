// Every queued text settles exactly once: handed to the model, or dropped with its reason — and a
// dropped text is never delivered afterwards.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../main/core/model/clock.ts';
import { TextInjectionQueue } from '../../../main/core/model/text-injection.ts';
import type { TextOutcome } from '../../../main/core/ports.ts';

function rig(maxQueued = 20) {
  const clock = new ManualClock();
  const sent: string[][] = [];
  const queue = new TextInjectionQueue({ clock, deliver: (texts) => (sent.push([...texts]), true), maxQueued, replyWaitMs: 1500 });
  const outcomes = new Map<string, TextOutcome[]>();
  const add = (text: string, deadlineMs?: number) => {
    outcomes.set(text, []);
    queue.enqueue(text, { deadlineMs, onSettled: (o) => outcomes.get(text)!.push(o) });
  };
  return { clock, sent, queue, outcomes, add };
}

describe('TextInjectionQueue outcomes', () => {
  it('settles delivered when handed to the model', () => {
    const r = rig();
    r.add('hello', 20_000);
    expect(r.sent).toEqual([['hello']]);
    expect(r.outcomes.get('hello')).toEqual([{ delivered: true }]);
    r.clock.advance(30_000);
    expect(r.outcomes.get('hello')).toHaveLength(1);
  });

  it('drops a text with no pause within its deadline, and never sends it later', () => {
    const r = rig();
    r.queue.userAudio();
    r.add('late', 20_000);
    r.clock.advance(20_000);
    expect(r.outcomes.get('late')).toEqual([{ delivered: false, reason: 'timeout' }]);
    r.queue.userAudioEnded();
    r.clock.advance(5_000);
    expect(r.sent).toEqual([]);
  });

  it('drops waiting texts when the call ends, and refuses new ones', () => {
    const r = rig();
    r.queue.modelActivity();
    r.add('a', 20_000);
    r.queue.close();
    r.add('b');
    expect(r.outcomes.get('a')).toEqual([{ delivered: false, reason: 'call_ended' }]);
    expect(r.outcomes.get('b')).toEqual([{ delivered: false, reason: 'call_ended' }]);
    r.clock.advance(30_000);
    expect(r.sent).toEqual([]);
  });

  it('settles the oldest as queue_full on overflow; the rest go out together at the pause', () => {
    const r = rig(2);
    r.queue.modelActivity();
    r.add('1');
    r.add('2');
    r.add('3');
    expect(r.outcomes.get('1')).toEqual([{ delivered: false, reason: 'queue_full' }]);
    r.queue.modelTurnEnded();
    expect(r.sent).toEqual([['2', '3']]);
    expect(r.outcomes.get('2')).toEqual([{ delivered: true }]);
    expect(r.outcomes.get('3')).toEqual([{ delivered: true }]);
  });
});
