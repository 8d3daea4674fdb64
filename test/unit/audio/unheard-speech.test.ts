// The one store of unheard speech and its policies: order with ends of speech, the ring's wrap, what
// gives way (counted) or is refused, release vs keep on replay, release by tag, the pause cap, speech
// put back ahead, and no allocation per 20 ms chunk once warm.
import { describe, expect, it } from 'vitest';
import {
  UnheardSpeech,
  untilAcknowledged,
  untilAnswered,
  untilJudged,
  untilSessionUp,
  untilSocketUp,
} from '../../../main/core/audio/unheard-speech.ts';
import { measureAllocationsPerFrame } from '../../../bench/lib/allocation-meter.ts';

const chunk = (seq: number, samples = 320): Int16Array => new Int16Array(samples).fill(seq);
const ramp = (from: number, n: number) => Int16Array.from({ length: n }, (_, i) => from + i);

/** What a replay hands out: `<first sample>x<length>` per chunk (checked whole), `end` per end of speech. */
function replayed(store: UnheardSpeech, upTo: 'all' | 'an utterance' = 'all'): string[] {
  const out: string[] = [];
  store.replay(
    (pcm) => out.push(pcm.every((v) => v === pcm[0]) ? `${pcm[0]}x${pcm.length}` : `mixed x${pcm.length}`),
    () => out.push('end'),
    upTo,
  );
  return out;
}

describe('UnheardSpeech: the room it takes', () => {
  it('allocates as it first needs room, doubling up to its bound, and keeps the order through a wrapped ring', () => {
    const store = new UnheardSpeech(untilAcknowledged(30_000));
    expect(store.allocatedSamples).toBe(0);
    for (let seq = 0; seq < 50; seq++) store.push(chunk(seq), seq); // 1 s
    expect(store.allocatedSamples).toBe(16_000); // not the 30 s bound (480 000 samples, 960 kB)
    store.releaseThrough(29); // the oldest 0.6 s confirmed: the next chunks wrap round the ring's end
    for (let seq = 50; seq < 80; seq++) store.push(chunk(seq), seq);
    expect(store.allocatedSamples).toBe(16_000);
    for (let seq = 80; seq < 200; seq++) store.push(chunk(seq), seq); // grown while wrapped
    expect(store.allocatedSamples).toBe(64_000);
    expect(replayed(store)).toEqual(Array.from({ length: 170 }, (_, i) => `${30 + i}x320`));
    // Speech put back ahead grows it too, in order.
    store.prepend([chunk(7, 16_000), null]);
    store.push(chunk(8));
    expect(replayed(store)).toEqual(['7x16000', 'end', '8x320']);
    for (let seq = 0; seq < 2000; seq++) store.push(chunk(seq % 100)); // 40 s: the bound, no more
    expect(store.allocatedSamples).toBe(480_000);
  });
});

describe('UnheardSpeech: order and ends of speech', () => {
  it('replays chunks and ends in order, released as it goes (until a socket is up)', () => {
    const store = new UnheardSpeech(untilSocketUp(1000));
    store.push(chunk(1));
    store.push(chunk(2));
    expect(store.end()).toBe(true);
    store.push(chunk(3));
    expect(replayed(store)).toEqual(['1x320', '2x320', 'end', '3x320']);
    expect(store.isEmpty).toBe(true);
    expect(store.keptChunks).toBe(3);
  });

  it('keeps an end only after speech: never first, never twice in a row', () => {
    const store = new UnheardSpeech(untilSocketUp(1000));
    expect(store.end()).toBe(false);
    store.push(chunk(1));
    expect(store.end()).toBe(true);
    expect(store.end()).toBe(false);
    expect(store.size).toBe(2);
  });

  it("keeps chunk boundaries and samples exactly, and 'an utterance' stops after an end with speech behind it", () => {
    const store = new UnheardSpeech(untilSocketUp(1000));
    store.push(ramp(1, 400));
    store.end();
    store.push(ramp(401, 300));
    store.end();
    const pieces: number[][] = [];
    store.replay(
      (pcm) => pieces.push([...pcm]),
      () => pieces.push([]),
      'an utterance',
    );
    expect(pieces).toEqual([[...ramp(1, 400)], []]);
    expect(store.hasSpeech).toBe(true);
    expect(replayed(store, 'an utterance')).toEqual(['mixed x300', 'end']);
    expect(store.isEmpty).toBe(true);
  });

  it('numbers entries in order: a replay says which entry each chunk and end is', () => {
    const store = new UnheardSpeech(untilSocketUp(1000));
    store.push(chunk(1));
    store.end();
    expect(store.nextSeq).toBe(2);
    store.push(chunk(2));
    const seqs: number[] = [];
    store.replay(
      (_pcm, seq) => seqs.push(seq),
      (seq) => seqs.push(seq),
    );
    expect(seqs).toEqual([0, 1, 2]);
    expect(store.nextSeq).toBe(3);
  });
});

describe('UnheardSpeech as a ring', () => {
  it('keeps the newest audio when full and counts what gave way', () => {
    const store = new UnheardSpeech(untilSocketUp(100)); // 1600 samples = 5 chunks
    for (let seq = 0; seq < 8; seq++) store.push(chunk(seq));
    expect(replayed(store)).toEqual(['3x320', '4x320', '5x320', '6x320', '7x320']);
    expect(store.evictedSamples).toBe(3 * 320);
  });

  it('wraps a chunk around the end of the ring: whole, in order, the longest newest run that fits', () => {
    const store = new UnheardSpeech(untilSocketUp(100)); // 1600 samples
    const sizes = [480, 320, 480, 320, 480, 480, 320, 480, 160, 480];
    sizes.forEach((size, seq) => store.push(chunk(seq, size)));
    // 480 + 160 + 480 + 320 = 1440 fits; with 480 more it would not: chunks 6..9 are kept, 0..5 gave way.
    expect(replayed(store)).toEqual(['6x320', '7x480', '8x160', '9x480']);
    expect(store.evictedSamples).toBe(480 + 320 + 480 + 320 + 480 + 480);
  });

  it('keeps working through many wraps with ends between; a chunk longer than the store keeps its newest part', () => {
    const store = new UnheardSpeech(untilSocketUp(100));
    let pushed = 0;
    for (let seq = 0; seq < 500; seq++) {
      store.push(chunk(seq % 1000, seq % 3 === 0 ? 480 : 320));
      pushed += seq % 3 === 0 ? 480 : 320;
      if (seq % 7 === 6) store.end();
    }
    const out = replayed(store);
    expect(out.at(-1)).toBe('499x320');
    expect(out.every((s) => !s.startsWith('mixed'))).toBe(true);
    expect(store.evictedSamples + out.filter((s) => s !== 'end').reduce((n, s) => n + Number(s.split('x')[1]), 0)).toBe(
      pushed,
    );
    store.push(ramp(0, 2000));
    expect(store.samples).toBe(1600);
    const kept: number[] = [];
    store.replay((pcm) => kept.push(pcm[0]!, pcm.at(-1)!));
    expect(kept).toEqual([400, 1999]);
  });

  it('an end right after the chunk that gave way goes with it: an utterance with nothing left is not replayed', () => {
    const store = new UnheardSpeech(untilSessionUp(1000)); // 16_000 samples
    for (const first of [1, 2, 3]) {
      store.push(chunk(first, 6000));
      store.end();
    }
    expect(replayed(store)).toEqual(['2x6000', 'end', '3x6000', 'end']);
    expect(store.evictedSamples).toBe(6000);
  });
});

describe('UnheardSpeech policies', () => {
  it('until judged: a chunk that does not fit is refused, nothing kept of it, overflowed until cleared', () => {
    const store = new UnheardSpeech(untilJudged(40)); // 640 samples
    expect(store.push(ramp(1, 600))).toBe(true);
    expect(store.push(ramp(601, 100))).toBe(false);
    expect(store.overflowed).toBe(true);
    expect(store.samples).toBe(600);
    expect(store.refusedSamples).toBe(100);
    expect(store.evictedSamples).toBe(0);
    store.clear();
    expect(store.overflowed).toBe(false);
    expect(store.isEmpty).toBe(true);
  });

  it('until answered: a replay keeps what it sent (a second drop replays it again), also after a wrap', () => {
    const store = new UnheardSpeech(untilAnswered(100));
    for (let seq = 0; seq < 50; seq++) {
      store.push(chunk(seq, seq % 3 === 0 ? 480 : 320));
      if (seq % 7 === 6) store.end();
    }
    const first = replayed(store);
    expect(first.at(-1)).toBe('49x320');
    expect(replayed(store)).toEqual(first);
    store.clear(); // answered
    expect(replayed(store)).toEqual([]);
  });

  it('until answered, an utterance at a time: the replay stops after an end with speech behind it', () => {
    const store = new UnheardSpeech(untilAnswered(1000));
    store.push(chunk(1));
    store.end();
    store.push(chunk(2));
    expect(replayed(store, 'an utterance')).toEqual(['1x320', 'end']);
    expect(replayed(store)).toEqual(['1x320', 'end', '2x320']);
  });

  it('until acknowledged: releasing through a tag forgets exactly the entries it covers, not counted as lost', () => {
    const store = new UnheardSpeech(untilAcknowledged(30_000));
    for (let i = 1; i <= 5; i++) store.push(chunk(i), i);
    store.end(6);
    store.push(chunk(7), 7);
    store.releaseThrough(3);
    const tags: number[] = [];
    store.replay(
      (_pcm, _seq, tag) => tags.push(tag),
      (_seq, tag) => tags.push(tag),
    );
    expect(tags).toEqual([4, 5, 6, 7]);
    expect(store.evictedSamples).toBe(0);
  });

  it('until a session is up: digital silence is kept for 1 s in a row at most; speech or an end starts a new run', () => {
    const store = new UnheardSpeech(untilSessionUp(30_000));
    store.push(chunk(1));
    let kept = 0;
    for (let i = 0; i < 250; i++) if (store.push(new Int16Array(320))) kept++;
    expect(kept).toBe(50);
    store.end();
    expect(store.push(new Int16Array(320))).toBe(true);
    // A session's holds cut pauses the same way; only the tail the service must consume exactly keeps them whole.
    for (const policy of [untilSocketUp(30_000), untilAnswered(30_000)]) {
      const held = new UnheardSpeech(policy);
      held.push(chunk(1));
      for (let i = 0; i < 250; i++) held.push(new Int16Array(320));
      expect(held.size).toBe(51);
    }
    const tail = new UnheardSpeech(untilAcknowledged(30_000));
    for (let i = 0; i < 250; i++) tail.push(new Int16Array(320));
    expect(tail.size).toBe(250);
  });

  it('prepend: speech handed back goes ahead of what is held, under the pause cap; what does not fit gives way, oldest first', () => {
    const store = new UnheardSpeech(untilSessionUp(100)); // 1600 samples
    store.push(chunk(9));
    store.end();
    store.prepend([chunk(7), null, chunk(8)]);
    expect(replayed(store)).toEqual(['7x320', 'end', '8x320', '9x320', 'end']);

    store.push(chunk(5, 640));
    store.end();
    // 960 + 640 held would be 1600: chunk 1 (and the end after it) gives way.
    store.prepend([chunk(1, 320), null, chunk(2, 480), chunk(3, 480)]);
    expect(replayed(store)).toEqual(['2x480', '3x480', '5x640', 'end']);
    expect(store.evictedSamples).toBe(320);

    // A word and 2 s of paced pause: the pause is cut at 1 s, and of that only the newest 1600 samples
    // fit (the word gave way); the end stays.
    store.prepend([chunk(1), ...Array.from({ length: 100 }, () => new Int16Array(320)), null]);
    expect(replayed(store)).toEqual([...Array<string>(5).fill('0x320'), 'end']);
    expect(store.evictedSamples).toBe(320 + 320 + 45 * 320);
  });

  it('clear() forgets what is held; the figures stay', () => {
    const store = new UnheardSpeech(untilSocketUp(100));
    for (let seq = 0; seq < 8; seq++) store.push(chunk(seq));
    store.clear();
    expect(store.isEmpty).toBe(true);
    expect(store.samples).toBe(0);
    expect(store.evictedSamples).toBe(3 * 320);
    store.push(chunk(1));
    expect(replayed(store)).toEqual(['1x320']);
  });
});

describe('UnheardSpeech allocates nothing per 20 ms chunk once warm', () => {
  let sum = 0;
  const consume = (pcm: Int16Array): void => {
    sum += pcm[0]!;
  };

  it('pushing into a full ring (the oldest giving way) and releasing through tags', () => {
    const store = new UnheardSpeech(untilAcknowledged(1000));
    const pcm = ramp(0, 320);
    const report = measureAllocationsPerFrame((f) => {
      store.push(pcm, f);
      if (f % 3 === 0) store.end(f);
      if (f % 40 === 39) store.releaseThrough(f - 20);
    });
    expect(report.bytesPerFrame).toBeLessThan(4);
  });

  it('replaying: released (until judged) and kept (until answered)', () => {
    const judged = new UnheardSpeech(untilJudged(6000));
    const answered = new UnheardSpeech(untilAnswered(1000));
    const pcm = ramp(0, 320);
    const report = measureAllocationsPerFrame((f) => {
      judged.push(pcm);
      answered.push(pcm);
      if (f % 40 === 39) {
        judged.replay(consume);
        answered.replay(consume);
        answered.clear();
      }
    });
    expect(sum).toBeGreaterThanOrEqual(0);
    expect(report.bytesPerFrame).toBeLessThan(4);
  });
});
