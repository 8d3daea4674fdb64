// Issue #52's cut-offs on the pause corpus (bench/lib/turn-corpus.ts): the bridge's gate as a call
// builds it never ends a turn before the provider's service rule would (bridgeCutoffPercent 0 on
// every provider, natural patience), while the service's own rule cuts what its window decides;
// with the gate closing at its hangover (before #52) the same count sees the bridge's cuts.
// Counted in corpus samples: no wall clock.
import { describe, expect, it } from 'vitest';
import { loadPauseCorpus } from '../../../bench/lib/pause-corpus.ts';
import { evaluateTurnCorpus, serviceRule, TURN_CORPUS_PROVIDERS } from '../../../bench/lib/turn-corpus.ts';

const corpus = loadPauseCorpus();

describe('turn corpus: the bridge never cuts before the service', () => {
  it.each(TURN_CORPUS_PROVIDERS)(
    '%s, natural: bridgeCutoffPercent 0; every true end ended by the service',
    (provider) => {
      const r = evaluateTurnCorpus(corpus, provider, { patience: 'natural', chunkMs: 100 });
      expect(r.pauses).toBe(30);
      expect(r.bridgeCutoffPercent).toBe(0);
      expect(r.trueEndsUnended).toBe(0);
      expect(r.endOfSpeechToServiceEndP95Ms).not.toBeNull();
    },
  );

  it("the service rule is the bridge's own mapping of the patience, as the fakes run it", () => {
    expect(serviceRule('gemini', 'natural').window.silenceSamples).toBe(800 * 16);
    expect(serviceRule('xai', 'natural').window.silenceSamples).toBe(800 * 16);
    // semantic_vad medium: a mid-sentence pause waits the 4 s cap, so the service cuts none of the corpus's.
    expect(serviceRule('openai-realtime', 'natural').window.silenceSamples).toBe(4000 * 16);
    expect(
      evaluateTurnCorpus(corpus, 'openai-realtime', { patience: 'natural', chunkMs: 100 }).serviceCutoffPercent,
    ).toBe(0);
  });

  it('a shorter service window cuts more pauses (quick ≥ natural ≥ patient), the bridge still none', () => {
    const cut = (patience: 'quick' | 'natural' | 'patient') =>
      evaluateTurnCorpus(corpus, 'gemini', { patience, chunkMs: 100 });
    expect(cut('quick').serviceCutoffPercent).toBeGreaterThan(cut('natural').serviceCutoffPercent);
    expect(cut('natural').serviceCutoffPercent).toBeGreaterThanOrEqual(cut('patient').serviceCutoffPercent);
    for (const p of ['quick', 'natural', 'patient'] as const) expect(cut(p).bridgeCutoffPercent).toBe(0);
  });

  it("today's gate-close end of turn (no held turn) is seen as the bridge cutting pauses", () => {
    const r = evaluateTurnCorpus(corpus, 'openai-realtime', {
      patience: 'natural',
      chunkMs: 100,
      gateHoldsTurn: false,
    });
    // The 500 ms hangover closes in every pause of 600 ms and more (15 of 30), none of which semantic_vad ends: the 50 %.
    expect(r.bridgeCutoffPercent).toBe(50);
    expect(r.serviceCutoffPercent).toBe(0);
  });
});
