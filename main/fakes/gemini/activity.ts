// Gemini Live's automatic activity detection (AAD), as the fake runs it on the audio it receives:
// the setup's `realtimeInputConfig` read and checked like the service, and one TurnDetector
// (../shared/turn-detector.ts) per socket, counting received samples (a pause with no audio sent is
// no pause to the service: the turn stays open). Sources: @google/genai 3.1.0 genai.d.ts
// (RealtimeInputConfig, AutomaticActivityDetection, StartSensitivity, EndSensitivity,
// ActivityHandling, TurnCoverage, VoiceActivity), research/field-2026-12.md §1d.
import { z } from 'zod';
import { samplesOf, TurnDetector, type TurnWindow } from '../shared/turn-detector.ts';

const START = ['START_SENSITIVITY_UNSPECIFIED', 'START_SENSITIVITY_HIGH', 'START_SENSITIVITY_LOW'] as const;
const END = ['END_SENSITIVITY_UNSPECIFIED', 'END_SENSITIVITY_HIGH', 'END_SENSITIVITY_LOW'] as const;
/** Proto3 JSON takes an int32 as a number or a decimal string; negative durations are invalid. */
const millis = z.union([z.number().int().min(0), z.string().regex(/^\d+$/).transform(Number)]);

const automaticActivityDetection = z.strictObject({
  disabled: z.boolean().optional(),
  startOfSpeechSensitivity: z.enum(START).optional(),
  endOfSpeechSensitivity: z.enum(END).optional(),
  prefixPaddingMs: millis.optional(),
  silenceDurationMs: millis.optional(),
});

export const realtimeInputConfigSchema = z.strictObject({
  automaticActivityDetection: automaticActivityDetection.optional(),
  activityHandling: z
    .enum(['ACTIVITY_HANDLING_UNSPECIFIED', 'START_OF_ACTIVITY_INTERRUPTS', 'NO_INTERRUPTION'])
    .optional(),
  turnCoverage: z
    .enum([
      'TURN_COVERAGE_UNSPECIFIED',
      'TURN_INCLUDES_ONLY_ACTIVITY',
      'TURN_INCLUDES_ALL_INPUT',
      'TURN_INCLUDES_AUDIO_ACTIVITY_AND_ALL_VIDEO',
    ])
    .optional(),
  interimTranscriptTimestampEnabled: z.boolean().optional(),
});

export type RealtimeInputConfig = z.infer<typeof realtimeInputConfigSchema>;

/**
 * Defaults when the setup names none.
 * - silenceDurationMs: NOT PUBLISHED (no page or SDK type gives it). 500 ms is our ASSUMPTION: a
 *   1.0 s mid-sentence pause closed the turn with no automaticActivityDetection block on 3.1
 *   (google-gemini/cookbook #1328, 24 of 24 trials), so the default is under 1 s; 500 ms is the
 *   shortest window a peer documents as its default (OpenAI server_vad), the strict choice: a
 *   bridge that leaves it unset gets every pause over 500 ms cut.
 * - prefixPaddingMs: NOT PUBLISHED; 20 ms, the value of the Live API guide's automatic-VAD example
 *   (ai.google.dev live-guide "Configure automatic VAD"), an ASSUMPTION. The fake follows the API
 *   reference's reading ("required duration of detected speech before start-of-speech is
 *   committed"); the capabilities guide reads it as look-back audio (discuss.ai.google.dev 179129).
 * - Sensitivities: "The default is START_SENSITIVITY_HIGH / END_SENSITIVITY_HIGH for Gemini Live"
 *   (genai.d.ts StartSensitivity / EndSensitivity _UNSPECIFIED).
 */
export const GEMINI_AAD_DEFAULTS = { silenceDurationMs: 500, prefixPaddingMs: 20 } as const;

/**
 * The detector's analysis frame. The service's detector runs on the audio stream, not on the
 * client's messages: it reports where on that stream speech began and stopped
 * (`voiceActivity.audioOffset`, a Duration; research/protocols.md §1.5), and the client picks its
 * chunk size freely ("10–20 ms for lowest latency, 50–100 ms recommended", protocols.md §1.4). So a
 * 100 ms chunk holding the last few ms of a word and then quiet is quiet from where the word ended,
 * not speech to its end. The frame length is NOT PUBLISHED; 20 ms is our ASSUMPTION, the coarsest
 * choice consistent with the guide's finest chunk (a 20 ms chunk is judged whole, as before).
 */
export const GEMINI_AAD_FRAME_MS = 20;

/**
 * The sensitivities as loudness (no figure is published; a stand-in). HIGH start ("detect the
 * start of speech more often") opens at RMS 300 (about -40 dBFS: any voice, not the near-zero
 * samples of Discord's silence frames or the bridge's paced silence), LOW at 1000. HIGH end ("ends speech more often")
 * counts anything under the start bar as silence; LOW end keeps speech open down to a quarter of it,
 * so a murmur or a breath does not end the turn (digital silence ends it either way).
 */
export const GEMINI_SPEECH_RMS = { startHigh: 300, startLow: 1000, lowEndFactor: 0.25 } as const;

export interface ActivitySettings {
  /** Automatic detection is on (the default); off: activityStart/activityEnd drive the turn. */
  automatic: boolean;
  /** START_OF_ACTIVITY_INTERRUPTS (the default): user activity cuts a reply. */
  interrupts: boolean;
  window: TurnWindow;
}

/** The setup's field by its camelCase or snake_case name (proto3 JSON takes both). */
function either(object: Record<string, unknown> | undefined, camel: string): unknown {
  if (!object) return undefined;
  return object[camel] ?? object[camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];
}

/** Renames the snake_case keys of one level to camelCase (what the schema checks). */
function camelKeys(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), v]),
  );
}

/** The setup's realtimeInputConfig checked as the service does: the problem (for `refusedFor`), or the settings. */
export function readActivitySettings(
  setup: Record<string, unknown>,
  rate = 16_000,
): { problem: string } | { settings: ActivitySettings } {
  const raw = either(setup, 'realtimeInputConfig');
  const config = raw === undefined || raw === null ? {} : camelKeys(raw);
  if (config && typeof config === 'object' && 'automaticActivityDetection' in config) {
    (config as Record<string, unknown>).automaticActivityDetection = camelKeys(
      (config as Record<string, unknown>).automaticActivityDetection,
    );
  }
  const parsed = realtimeInputConfigSchema.safeParse(config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const keys = issue.code === 'unrecognized_keys' ? `.${issue.keys.join(',')}` : '';
    return { problem: `invalid realtimeInputConfig.${issue.path.join('.')}${keys}: ${issue.message}` };
  }
  return { settings: activitySettings(parsed.data, rate) };
}

export function activitySettings(config: RealtimeInputConfig, rate = 16_000): ActivitySettings {
  const aad = config.automaticActivityDetection ?? {};
  const startRms =
    aad.startOfSpeechSensitivity === 'START_SENSITIVITY_LOW' ? GEMINI_SPEECH_RMS.startLow : GEMINI_SPEECH_RMS.startHigh;
  const continueRms =
    aad.endOfSpeechSensitivity === 'END_SENSITIVITY_LOW' ? startRms * GEMINI_SPEECH_RMS.lowEndFactor : startRms;
  return {
    automatic: aad.disabled !== true,
    interrupts: config.activityHandling !== 'NO_INTERRUPTION',
    window: {
      startRms,
      continueRms,
      commitSamples: samplesOf(aad.prefixPaddingMs ?? GEMINI_AAD_DEFAULTS.prefixPaddingMs, rate),
      silenceSamples: samplesOf(aad.silenceDurationMs ?? GEMINI_AAD_DEFAULTS.silenceDurationMs, rate),
      frameSamples: samplesOf(GEMINI_AAD_FRAME_MS, rate),
    },
  };
}

/** A Duration in proto3 JSON ("1.25s"), as `voiceActivity.audioOffset` carries it. */
export function durationOf(samples: number, rate: number): string {
  return `${(samples / rate).toFixed(3).replace(/\.?0+$/, '')}s`;
}

export { TurnDetector };
