// The transcript aggregator's notes, and the soak's alignment of replies to utterances.
import { describe, expect, it } from 'vitest';
import { TranscriptAggregator } from '../../../main/core/bridge/transcripts.ts';

describe('TranscriptAggregator: one utterance, one note', () => {
  it('input fragments that arrive after the model started speaking join the same note, written before the reply', () => {
    const notes: string[] = [];
    const transcripts = new TranscriptAggregator((kind, text) => notes.push(`${kind}: ${text}`));
    transcripts.input('what is the ');
    transcripts.output('It is ');
    transcripts.input('weather today');
    transcripts.output('sunny.');
    transcripts.flush();
    expect(notes).toEqual(['input_transcript: what is the weather today', 'output_transcript: It is sunny.']);
  });
});

describe('soak reply alignment', async () => {
  const { alignReplies, repliesPerUtterance, PHRASES } = await import('../../../bench/lib/soak-call.ts');
  it('a late reply still counts for its utterance; a repeat is doubled; nothing nearby is stray', () => {
    // utterances 0..4 said 10 apart; the reply to 1 came after 2 was said (late), 3 was answered twice, 4 never
    const at = [0, 10, 20, 30, 40];
    const replies = [
      [0, 5],
      [2, 25],
      [1, 26],
      [3, 35],
      [3, 36],
      [7 % PHRASES, 45],
    ].map(([k, t]) => ({ k: k!, at: t! }));
    const { counts, stray } = alignReplies(at, replies);
    expect(counts).toEqual([1, 1, 1, 2, 0]);
    expect(stray).toBe(1);
  });

  it('a run of lost utterances (an outage) is skipped: no doubles before it, nothing lost after it', () => {
    // 61 utterances 7 s apart, each answered 3 s in, but 23..28 never (the day soak's 60 s outage).
    // Matched by phrase alone this read as 3 doubled (20-22) and the last 12 lost (issue #55's first run).
    const at = Array.from({ length: 61 }, (_, n) => n * 7000);
    const replies = at.flatMap((t, n) => (n >= 23 && n <= 28 ? [] : [{ k: n % PHRASES, at: t + 3000 }]));
    const { counts, stray } = alignReplies(at, replies);
    expect(counts.flatMap((c, n) => (c === 0 ? [n] : []))).toEqual([23, 24, 25, 26, 27, 28]);
    expect(counts.filter((c) => c > 1)).toEqual([]);
    expect(stray).toBe(0);
  });

  it('a reply cannot answer an utterance not yet said', () => {
    // Phrase 1's reply arrives before utterance 1 began: it answers nothing said (stray), not utterance 1.
    const { counts, stray } = alignReplies([0, 10], [{ k: 1, at: 5 }]);
    expect(counts).toEqual([0, 0]);
    expect(stray).toBe(1);
  });

  it('answers to speech held through an outage are late, not stale; a reply to nothing said is stale', () => {
    // 10 utterances 7 s apart. 3, 4 and 5 fell in the outage: nobody answered them then; once the model
    // was back (after 6 began) they were answered in order, then 6. Until 2026-12-02 the soak counted
    // the three as stale (each arrived in a later phrase's window); they answer what was said, late.
    const at = Array.from({ length: 10 }, (_, n) => n * 7000);
    const reply = (n: number, t: number) => ({ k: n % PHRASES, at: t });
    const replies = [
      ...[0, 1, 2].map((n) => reply(n, at[n]! + 3000)),
      reply(3, 43_000),
      reply(4, 44_000),
      reply(5, 45_000),
      reply(6, 46_000),
      ...[7, 8].map((n) => reply(n, at[n]! + 3000)),
      // A phrase not said recently (a leftover of a replaced reply) in 9's window.
      { k: (9 + 1) % PHRASES, at: at[9]! + 2000 },
      reply(9, at[9]! + 3000),
    ];
    const aligned = alignReplies(at, replies);
    expect(aligned.counts).toEqual(new Array(10).fill(1));
    const { late, lateByMs, stale } = repliesPerUtterance(at, replies, aligned);
    expect(late).toEqual([0, 0, 0, 1, 1, 1, 0, 0, 0, 0]);
    expect(lateByMs[3]).toBe(43_000 - 21_000);
    expect(stale).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
  });
});
