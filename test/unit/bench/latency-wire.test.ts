// The latency bench's wire figures (bench/lib/latency-wire.ts): barge-in is what a user lives, the
// barging owner's first sounding packet sent → the interrupted reply's last speech RTP received; a
// reply heard to its end before the owner's next utterance is no barge-in; egress counts from the
// fake's first chunk (after the modelled first-audio delay), not from when the reply was asked for;
// the service's own signal is measured separately.
import { describe, expect, it } from 'vitest';
import {
  cutAfterOnset,
  FRAME_VALUES,
  onsetWithin,
  PLAYING_GAP_MS,
  wireLatencies,
  type WireReply,
} from '../../../bench/lib/latency-wire.ts';

/** Received packets every 20 ms from `from`, each at `peak` (the fake Discord's recorder, decoded). */
function received(spans: { from: number; count: number; peak: number }[]): {
  packets: { receivedAt: number }[];
  pcm: Int16Array;
} {
  const all = spans.flatMap(({ from, count, peak }) =>
    Array.from({ length: count }, (_, i) => ({ receivedAt: from + 20 * i, peak })),
  );
  all.sort((a, b) => a.receivedAt - b.receivedAt);
  const pcm = new Int16Array(all.length * FRAME_VALUES);
  all.forEach((p, i) => (pcm[i * FRAME_VALUES + 7] = p.peak));
  return { packets: all.map(({ receivedAt }) => ({ receivedAt })), pcm };
}

const reply = (startedAt: number, firstAudioSentAt: number, interruptedAt: number | null = null): WireReply => ({
  startedAt,
  interruptedAt,
  outcome: interruptedAt === null ? 'complete' : 'interrupted',
  firstAudioSentAt: () => firstAudioSentAt,
});

describe('cutAfterOnset', () => {
  it('is the last reply packet at or after the onset, minus the onset', () => {
    expect(cutAfterOnset(1000, [940, 960, 980, 1001, 1021, 1042])).toBe(42);
  });

  it('is 0 when the reply was playing and nothing of it came after the onset', () => {
    expect(cutAfterOnset(1000, [960, 980, 995])).toBe(0);
  });

  it('is null when the reply had gone quiet before the onset (heard to its end)', () => {
    expect(cutAfterOnset(1000, [500, 520, 1000 - PLAYING_GAP_MS - 1])).toBeNull();
    expect(cutAfterOnset(1000, [])).toBeNull();
  });
});

describe('onsetWithin', () => {
  it('takes the first onset inside the window', () => {
    expect(onsetWithin([100, 900, 1500], 200, 2000)).toBe(900);
    expect(onsetWithin([100, 2500], 200, 2000)).toBeNull();
  });
});

describe('wireLatencies', () => {
  it("measures barge-in from the owner's onset to the last speech RTP, egress from the fake's first chunk", () => {
    // Reply 1 asked for at 0, its first chunk sent at 400 (the modelled delay), heard from 404; the
    // owner talks over it from 1001; three loud packets follow (1004, 1024, 1044), then a residue
    // packet under the speech level (1064), then silence. The service's signal came at 1030.
    // Reply 2 asked for at 3000, first chunk at 3400, heard from 3403 to its end (3403 + 20 × 49 = 4383);
    // the owner's next utterance starts at 5000: no barge-in.
    const { packets, pcm } = received([
      { from: 404, count: 33, peak: 8000 }, // 404 … 1044
      { from: 1064, count: 1, peak: 300 },
      { from: 1084, count: 20, peak: 0 },
      { from: 3403, count: 50, peak: 8000 },
      { from: 4403, count: 20, peak: 0 },
    ]);
    const wire = wireLatencies(packets, pcm, [reply(0, 400, 1030), reply(3000, 3400)], [1001, 5000]);
    expect(wire.egress?.count).toBe(2);
    expect(wire.egress?.p95_ms).toBe(4); // 404 − 400 and 3403 − 3400, not 404 − 0
    expect(wire.firstAudioAt).toEqual([404, 3403]);
    expect(wire.bargeIn?.count).toBe(1);
    expect(wire.bargeIn?.p95_ms).toBe(43); // 1044 − 1001
    expect(wire.bargeInInclResidue?.p95_ms).toBe(63); // 1064 − 1001
    expect(wire.serviceSignalToCut?.p95_ms).toBe(14); // 1044 − 1030
  });

  it("reads 0 from the service's signal when the reply was already cut before it", () => {
    const { packets, pcm } = received([
      { from: 100, count: 10, peak: 8000 },
      { from: 300, count: 10, peak: 0 },
    ]);
    const wire = wireLatencies(packets, pcm, [reply(0, 98, 400)], [265]);
    expect(wire.bargeIn?.p95_ms).toBe(15); // 280 − 265
    expect(wire.serviceSignalToCut?.p95_ms).toBe(0);
  });

  it('skips when the recording does not decode to 20 ms per packet', () => {
    const wire = wireLatencies([{ receivedAt: 1 }], new Int16Array(10), [], []);
    expect(wire.bargeIn).toBeNull();
    expect(wire.note).toMatch(/^skipped/);
  });
});
