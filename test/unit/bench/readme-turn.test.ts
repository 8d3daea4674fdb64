// README's turn table since issue #52 comes from latency.json's fields (scripts/readme-performance.ts
// latencyMarkdown): each provider's bridge share beside its target, the corpus cut-offs (the
// bridge's and the service's own), xAI's corpus-only row, the adaptive run; results written before
// #52 keep their old table.
import { describe, expect, it } from 'vitest';
import { latencyMarkdown } from '../../../scripts/readme-performance.ts';

const pct = { count: 1, p50_ms: 1, p95_ms: 2, p99_ms: 2 };
const base = {
  date: '2026-12-02T07:00:00.000Z',
  machine: { cpu: 'test CPU', cores: 2, node: 'v22.19.0' },
  coreCpuIdleCallPercent: 0.1,
  coreCpuCallPercent: 1,
  rssIdleMb: 80,
  rssMaxMb: 90,
  rssEndMb: 90,
  setup: { call_s: 25, provider: 'gemini' },
  latency: { ingress: pct, egress: pct, barge_in: pct },
};
const row = {
  provider: 'gemini',
  model: 'gemini-live',
  ingressP50Ms: 1,
  ingressP95Ms: 2,
  ingressN: 10,
  egressP50Ms: 4,
  egressP95Ms: 8,
  egressN: 10,
  bargeInP50Ms: 3,
  bargeInP95Ms: 9,
  bargeInN: 5,
  coreCpuCallPercent: 1,
  endOfSpeechToStreamEndP50Ms: 870,
  endOfSpeechToStreamEndP95Ms: 900,
  endOfSpeechToFirstAudioP50Ms: 1290,
  endOfSpeechToFirstAudioP95Ms: 1320,
  modelledFirstAudioAfterTurnEndMs: 400,
};

describe('README: the turn since issue #52', () => {
  it('shows the bridge share against ≤ 40 ms, the cut-offs, xAI from the corpus and the adaptive run', () => {
    const md = latencyMarkdown({
      ...base,
      targets: {
        bridge_turn_share_p95_ms: 40,
        bridge_cutoff_percent: 0,
        adaptive_cutoffs_learning: 2,
        adaptive_cutoffs_after: 0,
      },
      providers: [
        {
          ...row,
          serviceWindowP50Ms: 800,
          bridgeTurnShareP50Ms: 63,
          bridgeTurnShareP95Ms: 98,
          bridgeTurnShareWorstMs: 101,
          bridgeTurnShareN: 9,
          serviceRule: 'automaticActivityDetection silenceDurationMs 800',
          bridgeCutoffPercent: 0,
          serviceCutoffPercent: 6.67,
        },
      ],
      turnCorpus: {
        xai: {
          provider: 'xai',
          serviceRule: 'server_vad silence_duration_ms 800',
          pauses: 30,
          bridgeCutoffPercent: 0,
          serviceCutoffPercent: 23.33,
        },
      },
      adaptiveCutoffsLearning: 1,
      adaptiveCutoffsAfter: 0,
      definitions: { turnCorpus: 'the corpus through the gate' },
    });
    expect(md).toContain(
      '| gemini | automaticActivityDetection silenceDurationMs 800 | 63 / 98 ✗ / 101 (n=9) | 0.0 ✓ | 6.7 | 870 / 900 (window 800) | 1290 / 1320 (service 400) |',
    );
    expect(md).toContain(
      '| xai (corpus only: no bench call) | server_vad silence_duration_ms 800 | — | 0.0 ✓ | 23.3 |',
    );
    expect(md).toContain('cut 1 times while learning ✓ (≤ 2), 0 in the next 20 turns ✓ (= 0)');
    expect(md).toContain('*turnCorpus*: the corpus through the gate.');
    expect(md).not.toContain('false cut-offs');
  });

  it('keeps the old table for results written before #52', () => {
    const md = latencyMarkdown({
      ...base,
      targets: { end_of_speech_to_stream_end_p95_ms: 250, false_cutoff_percent: 5 },
      providers: [{ ...row, falseCutoffPercent: 50 }],
    });
    expect(md).toContain('false cut-offs %');
    expect(md).not.toContain("bridge's turn share");
  });
});
