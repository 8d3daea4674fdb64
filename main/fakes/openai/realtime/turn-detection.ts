// How the fake Realtime service (and xAI's, which runs on its engine) ends a user turn, from the
// session's `audio.input.turn_detection`, on the audio it received (../../shared/turn-detector.ts:
// samples, never wall time; a pause the client sends no audio for does not end a turn).
//
// server_vad (developers.openai.com guides/realtime-vad; openai-client-base ServerVad: "threshold
// … defaults to 0.5", "prefix_padding_ms … Defaults to 300ms", "silence_duration_ms … Defaults to
// 500ms"):
// - the turn ends after `silence_duration_ms` of quiet following speech;
// - `threshold` is a probability on the service; the fake's stand-in is loudness, one decade either
//   side of the fake's `vadRms` (default RMS 1000 at 0.5): RMS = vadRms × 10^(2 × (threshold − 0.5)),
//   so "a higher threshold will require louder audio to activate the model";
// - `prefix_padding_ms` is audio kept before the detected start: speech_started's `audio_start_ms`
//   is the detection point minus it ("includes the prefix_padding_ms configured in the Session",
//   InputAudioBufferSpeechStartedEvent), and the committed item holds it.
//
// semantic_vad ("uses a turn detection model … to semantically estimate whether the user has
// finished speaking, then dynamically sets a timeout based on this probability"; `eagerness` low /
// medium / high / auto = medium, "max timeouts of 8s, 4s, and 2s respectively", guides/realtime-vad
// and openai-client-base SemanticVad). The fake has no turn model; its DOCUMENTED STAND-IN:
// - what was said so far ends on an utterance-final cue (the transcript ends with . ? ! …, or the
//   test marked it final: setUtteranceCue): the turn ends after the eagerness' short window, an
//   ASSUMPTION (none is published): low 1000 ms, medium/auto 500 ms, high 250 ms;
// - otherwise (mid-sentence, "uhhm", or nothing the fake can read) it waits the eagerness cap.
import type { TurnWindow } from '../../shared/turn-detector.ts';
import { samplesOf } from '../../shared/turn-detector.ts';

export type Eagerness = 'low' | 'medium' | 'high' | 'auto';

export interface TurnDetectionConfig {
  type: string;
  threshold?: number;
  prefix_padding_ms?: number;
  silence_duration_ms?: number;
  eagerness?: Eagerness;
  create_response?: boolean;
  interrupt_response?: boolean;
}

/** The documented server_vad defaults (openai-client-base ServerVad; guides/realtime-vad example). */
export const SERVER_VAD_DEFAULTS = { threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 } as const;

/** semantic_vad's "max timeouts of 8s, 4s, and 2s" (low, medium, high; auto = medium). */
export const SEMANTIC_VAD_CAP_MS: Readonly<Record<Eagerness, number>> = {
  low: 8000,
  medium: 4000,
  high: 2000,
  auto: 4000,
};

/** The stand-in's window after an utterance-final cue: an ASSUMPTION (no figure is published). */
export const SEMANTIC_VAD_FINAL_MS: Readonly<Record<Eagerness, number>> = {
  low: 1000,
  medium: 500,
  high: 250,
  auto: 500,
};

/** The loudness that stands for server_vad's `threshold` (see the file comment). */
export function thresholdRms(vadRms: number, threshold: number): number {
  return vadRms * 10 ** (2 * (threshold - 0.5));
}

/** The detector's window for a session's turn_detection (null: the client commits). */
export function turnWindow(config: TurnDetectionConfig | null, vadRms: number, rate: number): TurnWindow | null {
  if (!config) return null;
  if (config.type === 'semantic_vad') {
    const eagerness = config.eagerness ?? 'auto';
    return {
      startRms: vadRms,
      silenceSamples: samplesOf(SEMANTIC_VAD_CAP_MS[eagerness], rate),
      finalSilenceSamples: samplesOf(SEMANTIC_VAD_FINAL_MS[eagerness], rate),
    };
  }
  return {
    startRms: thresholdRms(vadRms, config.threshold ?? SERVER_VAD_DEFAULTS.threshold),
    silenceSamples: samplesOf(config.silence_duration_ms ?? SERVER_VAD_DEFAULTS.silence_duration_ms, rate),
  };
}

/** The audio kept before the detected start (server_vad's prefix padding; semantic_vad: the default). */
export function prefixPaddingSamples(config: TurnDetectionConfig, rate: number): number {
  return samplesOf(config.prefix_padding_ms ?? SERVER_VAD_DEFAULTS.prefix_padding_ms, rate);
}

/** An utterance-final cue: the words so far end a sentence. */
export function endsUtterance(transcript: string): boolean {
  return /[.?!…]["'”’)\]]*\s*$/.test(transcript);
}
