// A socket that goes silent after the service said generationComplete but before turnComplete
// (the reply's audio already sent, faster than real time) is a stall like any other: the words the
// person says meanwhile must reach the resumed socket whole and once. Traced for the day soak's
// lost words (issue #55): this path holds.
import { afterEach, describe, expect, it } from 'vitest';
import { numberedChunk, startHarness, waitUntil, type Harness } from './helpers.ts';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe('a stall between generationComplete and turnComplete', () => {
  it('the utterance said after it reaches the resumed socket whole, once', async () => {
    h = await startHarness({}, { stallMs: 300 });
    const first = await h.fake.connection(0);
    void first.reply({ toneMs: 3000, chunkMs: 40, paceMs: 5, transcript: 'a reply sent fast' });
    await waitUntil(
      () =>
        first.sent.some(
          (m) => (m as { serverContent?: { generationComplete?: boolean } }).serverContent?.generationComplete === true,
        ),
      'generationComplete',
    );
    first.stall();
    for (let seq = 0; seq < 30; seq++) h.session.sendAudio(numberedChunk(seq));
    h.session.endAudioInput();
    const second = await h.fake.connection(1);
    await second.waitFor(() => second.audioStreamEnds === 1, 8000, 'the utterance on the resumed socket');
    expect(second.audio.map((a) => a.pcm[0])).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(h.session.stats.stalls).toBe(1);
    await waitUntil(() => h!.rec.turnCompletes >= 1, 'the stalled turn closed');
  });
});
