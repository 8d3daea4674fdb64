// Every queued text settles exactly once: handed to the model, or dropped with its reason — and a
// dropped text is never delivered afterwards.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../main/core/contracts/clock.ts';
import { TextInjectionQueue } from '../../../main/core/model/text-injection.ts';
import type { TextOutcome } from '../../../main/core/ports.ts';

function rig(maxQueued = 20) {
  const clock = new ManualClock();
  const sent: string[][] = [];
  const queue = new TextInjectionQueue({
    clock,
    deliver: (texts) => (sent.push([...texts]), true),
    maxQueued,
    replyWaitMs: 1500,
  });
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

  it('after speech sent again on a new socket, a text waits for the reply to it, not for a pause that is already there', () => {
    const r = rig();
    r.queue.replyExpected();
    r.add('after the answer');
    expect(r.sent).toEqual([]); // the reply to the replayed question goes first
    r.clock.advance(400);
    r.queue.modelActivity();
    r.clock.advance(5000);
    expect(r.sent).toEqual([]);
    r.queue.modelTurnEnded();
    expect(r.sent).toEqual([['after the answer']]);
    // No reply within the wait: the text goes anyway.
    r.queue.replyExpected();
    r.add('unanswered');
    r.clock.advance(1499);
    expect(r.sent).toHaveLength(1);
    r.clock.advance(1);
    expect(r.sent.at(-1)).toEqual(['unanswered']);
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

  it('a session that gives up lets its waiting texts go unsettled, with what is left of their deadline', () => {
    const r = rig();
    r.queue.modelActivity();
    r.add('a', 20_000);
    r.add('b');
    r.clock.advance(5000);
    const taken = r.queue.take();
    expect(taken.map((t) => [t.text, t.delivery.deadlineMs, t.delivery.asMessage])).toEqual([
      ['a', 15_000, true],
      ['b', undefined, true],
    ]);
    // Not settled here: the next session settles them, through the callbacks that went with them.
    r.clock.advance(30_000);
    expect(r.outcomes.get('a')).toEqual([]);
    taken[0]!.delivery.onSettled?.({ delivered: true });
    expect(r.outcomes.get('a')).toEqual([{ delivered: true }]);
    // The queue is done: a later text is refused, nothing is sent from it.
    r.add('c');
    expect(r.outcomes.get('c')).toEqual([{ delivered: false, reason: 'call_ended' }]);
    r.queue.close();
    expect(r.outcomes.get('b')).toEqual([]);
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

  it('asks beforeHandOver only at the pause the text goes out in; a refused text is dropped (`refused`), the others go', async () => {
    const r = rig();
    const asked: string[] = [];
    const answers = new Map<string, (ok: boolean) => void>();
    const confirm = (text: string) => () =>
      new Promise<boolean>((resolve) => (asked.push(text), answers.set(text, resolve)));
    r.queue.modelActivity();
    for (const text of ['claimed', 'refused']) {
      r.outcomes.set(text, []);
      r.queue.enqueue(text, {
        deadlineMs: 20_000,
        beforeHandOver: confirm(text),
        onSettled: (o) => r.outcomes.get(text)!.push(o),
      });
    }
    r.add('plain');
    r.clock.advance(10_000); // the model talks on: nobody is asked while the texts wait
    expect(asked).toEqual([]);
    r.queue.modelTurnEnded();
    expect(asked).toEqual(['claimed', 'refused']);
    r.queue.tryFlush(); // nothing goes while the answers are out
    expect(r.sent).toEqual([]);
    answers.get('claimed')!(true);
    answers.get('refused')!(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(r.sent).toEqual([['claimed', 'plain']]);
    expect(r.outcomes.get('claimed')).toEqual([{ delivered: true }]);
    expect(r.outcomes.get('refused')).toEqual([{ delivered: false, reason: 'refused' }]);
    expect(r.outcomes.get('plain')).toEqual([{ delivered: true }]);
  });

  it('a text whose deadline passes before any pause is never asked, and a rejected confirmation is a refusal', async () => {
    const r = rig();
    let asked = 0;
    r.queue.userAudio();
    r.outcomes.set('late', []);
    r.queue.enqueue('late', {
      deadlineMs: 5_000,
      beforeHandOver: async () => (asked++, true),
      onSettled: (o) => r.outcomes.get('late')!.push(o),
    });
    r.clock.advance(5_000);
    r.queue.userAudioEnded();
    r.clock.advance(5_000);
    expect(asked).toBe(0);
    expect(r.outcomes.get('late')).toEqual([{ delivered: false, reason: 'timeout' }]);

    r.outcomes.set('broken', []);
    r.queue.enqueue('broken', {
      beforeHandOver: () => Promise.reject(new Error('disk full')),
      onSettled: (o) => r.outcomes.get('broken')!.push(o),
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(r.outcomes.get('broken')).toEqual([{ delivered: false, reason: 'refused' }]);
    expect(r.sent).toEqual([]);
  });
});
