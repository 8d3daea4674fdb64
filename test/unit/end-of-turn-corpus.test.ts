// The end-of-turn choice per provider (main/core/audio/end-of-turn.ts), pinned on the committed
// pause corpus (test/fixtures/pause-corpus): the gate each provider's call runs, fed the corpus 10 ms
// at a time, cuts no pause shorter than its hangover, ends every turn within a fixed number of
// frames of the true end of speech, and cuts no more pauses than docs/performance.md states.
// Counted in corpus frames, never wall clock.
import { statSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { evaluateEndOfTurn, loadPauseCorpus } from '../../bench/lib/pause-corpus.ts';
import { DEFAULT_HANGOVER_MS, END_OF_TURN } from '../../main/core/audio/index.ts';
import { LIVE_PROVIDERS } from '../../main/core/config/index.ts';

const corpus = loadPauseCorpus();
const CORPUS_DIR = new URL('../fixtures/pause-corpus/', import.meta.url);
/** What docs/performance.md "End of turn" states for the 500 ms hangover on this corpus. */
const DOCUMENTED_FALSE_CUTOFF_PERCENT = 50;

describe('pause corpus', () => {
  it('holds the pause lengths that matter, in several voices and rates, in at most 2 MB', () => {
    const pauses = corpus.flatMap((c) => c.pauses.map((p) => p.ms));
    for (const ms of [250, 400, 600, 800]) expect(pauses.filter((p) => p === ms).length).toBeGreaterThanOrEqual(5);
    expect(Math.min(...pauses)).toBeGreaterThanOrEqual(200);
    expect(Math.max(...pauses)).toBeLessThanOrEqual(900);
    expect(new Set(corpus.map((c) => c.voice)).size).toBeGreaterThanOrEqual(5);
    expect(new Set(corpus.map((c) => c.wpm)).size).toBeGreaterThanOrEqual(5);
    const bytes = readdirSync(CORPUS_DIR).reduce((n, f) => n + statSync(new URL(f, CORPUS_DIR)).size, 0);
    expect(bytes).toBeLessThanOrEqual(2 * 1024 * 1024);
  });
});

describe.each(LIVE_PROVIDERS)('end of turn on the pause corpus: %s', (provider) => {
  const choice = END_OF_TURN[provider];

  it('runs the gate CallAudio builds (its default hangover)', () => {
    expect(choice.hangoverMs).toBe(DEFAULT_HANGOVER_MS);
  });

  // The gate exactly as CallAudio builds it: only the chunk size is set (config INPUT_CHUNK_MS, default 100).
  const result = evaluateEndOfTurn(corpus, { chunkMs: 100 });

  it('ends every turn within hangover + 2 frames of the true end of speech, never before it', () => {
    const limitFrames = choice.hangoverMs / 10 + 2;
    for (const clip of result.clips) {
      expect(clip.streamEndFrames, clip.file).not.toBeNull();
      expect(clip.streamEndFrames!, clip.file).toBeGreaterThanOrEqual(0);
      expect(clip.streamEndFrames!, clip.file).toBeLessThanOrEqual(limitFrames);
    }
  });

  it('cuts no pause shorter than the hangover and nothing inside a phrase', () => {
    for (const clip of result.clips) {
      expect(
        clip.pausesCut.filter((ms) => ms < choice.hangoverMs),
        clip.file,
      ).toEqual([]);
      expect(clip.cutsInPhrases, clip.file).toBe(0);
    }
    expect(result.falseCutoffPercent).toBeLessThanOrEqual(DOCUMENTED_FALSE_CUTOFF_PERCENT);
  });
});

describe('the trade-off behind the choice', () => {
  it('reaches ≤ 5 % false cut-offs on the corpus only with a hangover of 900 ms or more', () => {
    expect(evaluateEndOfTurn(corpus, { hangoverMs: 900 }).falseCutoffPercent).toBeLessThanOrEqual(5);
    expect(evaluateEndOfTurn(corpus, { hangoverMs: 800 }).falseCutoffPercent).toBeGreaterThan(5);
    // …while a 250 ms end of turn cuts nearly every pause.
    expect(evaluateEndOfTurn(corpus, { hangoverMs: 250 }).falseCutoffPercent).toBeGreaterThan(90);
  });
});
