// Issue #52's cut-offs on the labelled pause corpus (test/fixtures/pause-corpus): each clip through
// the bridge's voice gate as a call builds it (main/core/bridge/input-stages.ts GateStage: the
// input chunk, holdTurn true — the service hears every utterance — and the silence cap of
// call-turn.ts, turnCapFor), its chunks fed to the provider's service rule as the fakes run it
// (main/fakes/shared/turn-detector.ts with the window the bridge's own mapping of the patience
// gives: main/core/model/*). A service end makes the gate close as the call does
// (serviceEndedTurn). Counted per labelled mid-sentence pause:
// - serviceCut: the service's rule ended the turn in it (what patience decides);
// - bridgeCut: the gate closed (its onEnd: the end of input sent to the service) in it before the
//   service ended the turn there (the bridge cut a pause the service would have kept: target 0).
// Counted in corpus samples (10 ms frames in, the input chunk out), never wall time: the same
// numbers on every machine.
import { turnCapFor } from '../../main/core/audio/end-of-turn.ts';
import { VoiceGate } from '../../main/core/audio/index.ts';
import { DEFAULT_TURN_SILENCE_CAP_MS } from '../../main/core/bridge/call-turn.ts';
import type { Patience } from '../../main/core/contracts/patience.ts';
import { activityDetectionFor } from '../../main/core/model/gemini/setup.ts';
import { openAITurnDetection } from '../../main/core/model/openai/realtime/dialect.ts';
import { xaiTurnDetection } from '../../main/core/model/xai/dialect.ts';
import { activitySettings, realtimeInputConfigSchema } from '../../main/fakes/gemini/activity.ts';
import { GPT_LIVE_SILENCE_MS } from '../../main/fakes/openai/index.ts';
import { turnWindow, type TurnDetectionConfig } from '../../main/fakes/openai/realtime/turn-detection.ts';
import { samplesOf, TurnDetector, type TurnWindow } from '../../main/fakes/shared/turn-detector.ts';
import { FRAME_SAMPLES, type CorpusClip } from './pause-corpus.ts';
import { percentiles } from './latency-proc.ts';

const RATE = 16_000;
/** The OpenAI fakes' default speech loudness (main/fakes/openai/realtime/server.ts, live/server.ts `vadRms`). */
const OPENAI_FAKE_VAD_RMS = 1000;
/** As pause-corpus.ts: an end this soon after a pause's labelled end still belongs to the pause (the next phrase's soft onset). */
const ONSET_GRACE_SAMPLES = 10 * FRAME_SAMPLES;

export type TurnCorpusProvider = 'gemini' | 'openai-realtime' | 'openai-live' | 'xai';
export const TURN_CORPUS_PROVIDERS: readonly TurnCorpusProvider[] = ['gemini', 'openai-realtime', 'openai-live', 'xai'];

export interface ServiceRule {
  /** What the rule is, for the JSON. */
  rule: string;
  window: TurnWindow;
  /** semantic_vad's stand-in: the utterance-final cue is set once the clip's true end of speech has been received. */
  finalCueAtEnd: boolean;
}

/** The provider's end-of-turn rule at `patience`, as the bridge configures it and the provider's fake runs it (samples at 16 kHz). */
export function serviceRule(provider: TurnCorpusProvider, patience: Patience): ServiceRule {
  if (provider === 'gemini') {
    const aad = activityDetectionFor(patience);
    const settings = activitySettings(realtimeInputConfigSchema.parse({ automaticActivityDetection: aad }), RATE);
    return {
      rule: `automaticActivityDetection silenceDurationMs ${aad.silenceDurationMs}, ${aad.endOfSpeechSensitivity}`,
      window: settings.window,
      finalCueAtEnd: false,
    };
  }
  if (provider === 'openai-live') {
    return {
      rule: `GPT-Live's own window, ${GPT_LIVE_SILENCE_MS} ms (the fake's; patience is not on the wire)`,
      window: { startRms: OPENAI_FAKE_VAD_RMS, silenceSamples: samplesOf(GPT_LIVE_SILENCE_MS, RATE) },
      finalCueAtEnd: false,
    };
  }
  const config = (
    provider === 'xai' ? xaiTurnDetection(patience) : openAITurnDetection(patience, 'semantic_vad')
  ) as TurnDetectionConfig;
  const window = turnWindow(config, OPENAI_FAKE_VAD_RMS, RATE)!;
  const rule =
    config.type === 'semantic_vad'
      ? `semantic_vad eagerness ${config.eagerness} (the fake's stand-in: ${window.silenceSamples / 16} ms mid-sentence, ${(window.finalSilenceSamples ?? window.silenceSamples) / 16} ms after an utterance-final cue)`
      : `server_vad silence_duration_ms ${config.silence_duration_ms}`;
  return { rule, window, finalCueAtEnd: config.type === 'semantic_vad' };
}

interface ClipEnds {
  /** Input positions (samples) where the service's rule ended the turn. */
  serviceEnds: number[];
  /** Input positions where the gate closed (its onEnd). */
  gateCloses: number[];
}

function runClip(clip: CorpusClip, rule: ServiceRule, chunkMs: number, capMs: number, holdsTurn: boolean): ClipEnds {
  const ends: ClipEnds = { serviceEnds: [], gateCloses: [] };
  const service = new TurnDetector(rule.window);
  let fed = 0;
  let serviceEnded = false;
  const gate = new VoiceGate({
    chunkMs,
    holdTurn: () => holdsTurn,
    turnCapMs: capMs,
    onChunk: (chunk) => {
      if (rule.finalCueAtEnd && fed >= clip.endOfSpeech) service.finalCue = true;
      if (service.feed(chunk) !== 'ended') return;
      ends.serviceEnds.push(fed);
      serviceEnded = true;
    },
    onEnd: () => ends.gateCloses.push(fed),
  });
  for (; fed + FRAME_SAMPLES <= clip.pcm.length;) {
    fed += FRAME_SAMPLES;
    gate.push(clip.pcm.subarray(fed - FRAME_SAMPLES, fed));
    // As the call: the service's end reaches the gate after the chunk that caused it, never inside it.
    if (serviceEnded) {
      serviceEnded = false;
      gate.serviceEndedTurn();
    }
  }
  return ends;
}

export interface TurnCorpusResult {
  provider: TurnCorpusProvider;
  patience: Patience;
  serviceRule: string;
  chunkMs: number;
  capMs: number;
  pauses: number;
  /** Labelled pauses in which the gate closed before the service ended the turn there, %. */
  bridgeCutoffPercent: number;
  /** Labelled pauses in which the service's own rule ended the turn, %. */
  serviceCutoffPercent: number;
  bridgeCuts: number;
  serviceCuts: number;
  /** Per labelled pause length (ms): `service cuts/bridge cuts/pauses`. */
  byPauseMs: Record<number, string>;
  /** The true end of speech → the service's end of turn (its window plus the chunking), ms of corpus audio. */
  endOfSpeechToServiceEndP50Ms: number | null;
  endOfSpeechToServiceEndP95Ms: number | null;
  /** Clips whose true end the service had not ended within the clip (its 1 s tail is shorter than a patient window plus the chunking). */
  trueEndsUnended: number;
}

const inPause = (at: number, p: { start: number; end: number }) => at > p.start && at <= p.end + ONSET_GRACE_SAMPLES;

export interface TurnCorpusOptions {
  patience: Patience;
  /** The input chunk (INPUT_CHUNK_MS). */
  chunkMs: number;
  /** The call's silence cap before turnCapFor; DEFAULT_TURN_SILENCE_CAP_MS. */
  capMs?: number;
  /** false: the gate closes at its hangover as before issue #52 (the tests' check that a cut is seen). */
  gateHoldsTurn?: boolean;
}

export function evaluateTurnCorpus(
  corpus: readonly CorpusClip[],
  provider: TurnCorpusProvider,
  options: TurnCorpusOptions,
): TurnCorpusResult {
  const rule = serviceRule(provider, options.patience);
  const capMs = turnCapFor(options.capMs ?? DEFAULT_TURN_SILENCE_CAP_MS, options.patience);
  const rows: Record<number, { pauses: number; service: number; bridge: number }> = {};
  let bridgeCuts = 0;
  let serviceCuts = 0;
  let trueEndsUnended = 0;
  const toEnd: number[] = [];
  for (const clip of corpus) {
    const ends = runClip(clip, rule, options.chunkMs, capMs, options.gateHoldsTurn ?? true);
    for (const pause of clip.pauses) {
      const row = (rows[pause.ms] ??= { pauses: 0, service: 0, bridge: 0 });
      row.pauses++;
      const serviceAt = ends.serviceEnds.find((at) => inPause(at, pause));
      const gateAt = ends.gateCloses.find((at) => inPause(at, pause));
      if (serviceAt !== undefined) {
        row.service++;
        serviceCuts++;
      }
      if (gateAt !== undefined && (serviceAt === undefined || gateAt < serviceAt)) {
        row.bridge++;
        bridgeCuts++;
      }
    }
    const end = ends.serviceEnds.find((at) => at >= clip.endOfSpeech);
    if (end === undefined) trueEndsUnended++;
    else toEnd.push(((end - clip.endOfSpeech) * 1000) / RATE);
  }
  const pauses = corpus.reduce((n, c) => n + c.pauses.length, 0);
  const pct = (n: number) => Math.round((10_000 * n) / pauses) / 100;
  const latency = percentiles(toEnd);
  return {
    provider,
    patience: options.patience,
    serviceRule: rule.rule,
    chunkMs: options.chunkMs,
    capMs,
    pauses,
    bridgeCutoffPercent: pct(bridgeCuts),
    serviceCutoffPercent: pct(serviceCuts),
    bridgeCuts,
    serviceCuts,
    byPauseMs: Object.fromEntries(Object.entries(rows).map(([ms, r]) => [ms, `${r.service}/${r.bridge}/${r.pauses}`])),
    endOfSpeechToServiceEndP50Ms: latency.p50_ms,
    endOfSpeechToServiceEndP95Ms: latency.p95_ms,
    trueEndsUnended,
  };
}

export const TURN_CORPUS_DEFINITION =
  "each pause-corpus clip (test/fixtures/pause-corpus: 30 labelled mid-sentence pauses of 200-900 ms, 10 true ends) through the bridge's voice gate as a call builds it (holdTurn true: the service hears the utterance; the silence cap turnCapFor(3000 ms, patience); the input chunk) with its chunks fed to the provider's service rule as its fake runs it (main/fakes/shared/turn-detector.ts, the window from the bridge's own patience mapping: Gemini automaticActivityDetection, Realtime semantic_vad's stand-in — mid-sentence waits its eagerness cap, an utterance-final cue is set at the clip's true end —, GPT-Live its 500 ms window, xAI server_vad); the service's end closes the gate as in the call (serviceEndedTurn). bridgeCutoffPercent = labelled pauses in which the gate closed (its end of input) before the service ended the turn there (the bridge cut a pause the service would have kept); serviceCutoffPercent = labelled pauses in which the service's own rule ended the turn (what patience decides, not the bridge); byPauseMs = service cuts / bridge cuts / pauses; endOfSpeechToServiceEnd = the true end → the service's end, in corpus samples. All counted in samples: deterministic.";
