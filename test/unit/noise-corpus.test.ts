// The noise corpus (test/fixtures/noise-corpus; issue #52 item 5): small, labelled, and exactly what
// its seeded generator (bench/lib/noise-corpus.ts) makes, so anyone can rebuild it and no clip is a
// recording of unknown origin.
import { readdirSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NOISE_CLIPS, loadNoiseCorpus, synthesiseNoiseClip } from '../../bench/lib/noise-corpus.ts';

const CORPUS_DIR = new URL('../fixtures/noise-corpus/', import.meta.url);
const corpus = loadNoiseCorpus();

describe('noise corpus', () => {
  it('holds keyboards, coughs, music, a fan, hum and speech controls, each labelled with its duration, in under 1.5 MB', () => {
    expect(new Set(corpus.filter((c) => c.label === 'noise').map((c) => c.kind))).toEqual(
      new Set(['keyboard', 'cough', 'music', 'fan', 'hum']),
    );
    expect(corpus.filter((c) => c.label === 'speech').length).toBeGreaterThanOrEqual(3);
    for (const clip of corpus) expect(clip.pcm.length, clip.file).toBe((clip.durationMs * 16_000) / 1000);
    const bytes = readdirSync(CORPUS_DIR).reduce((n, f) => n + statSync(new URL(f, CORPUS_DIR)).size, 0);
    expect(bytes).toBeLessThan(1.5 * 1024 * 1024);
  });

  it('is what bench/lib/noise-corpus.ts makes from the seeds (regenerate: node bench/lib/noise-corpus-make.ts)', () => {
    expect(corpus.map((c) => c.file)).toEqual(NOISE_CLIPS.map((s) => s.file));
    for (const [i, spec] of NOISE_CLIPS.entries()) {
      const made = synthesiseNoiseClip(spec);
      const committed = corpus[i]!.pcm;
      let worst = 0;
      for (let j = 0; j < made.length; j++) worst = Math.max(worst, Math.abs(made[j]! - committed[j]!));
      // One LSB of rounding: Math.sin/exp may differ in the last bit between V8 builds.
      expect(worst, spec.file).toBeLessThanOrEqual(1);
    }
  });
});
