// How strict the fake Gemini Live service is. Every default is the strictest behaviour the public
// reports describe (research/protocols.md §1, field-notes.md "Gemini Live sessions"); a test that
// needs the lenient world asks for it by name, so a client that only works against a lax server
// fails by default.
import { z } from 'zod';
import { SERVICE_TIMING } from '../shared/service-timing.ts';

export { cutCloseReason } from '../shared/fake-connection.ts';

export interface FakeGeminiStrictness {
  /**
   * A resume while another socket of the same session is still open: 'reject' closes the new socket
   * 1011 (what aicc2025/sip-to-ai PR #14 measured against the live service), 'allow' accepts it.
   */
  overlappedResume: 'reject' | 'allow';
  /** Resumption handles stop working this long after they were issued (docs: ~2 h). */
  handleTtlMs: number;
  /** Close sent when a goAway's timeLeft runs out (the service: 1011 "Deadline expired"). */
  deadlineClose: { code: number; reason: string };
  /**
   * Delay before `setupComplete` (the service takes hundreds of ms; gaps only show with one). Strict:
   * SERVICE_TIMING.gemini.setupMs (shared/service-timing.ts, with its source), read at each setup.
   */
  setupDelayMs: number;
  /** Validate every post-setup message (one known key, known fields, MIME types, base64); 1007 otherwise. */
  validateMessages: boolean;
  /** API versions whose Live path exists (the SDK 3.x default `v1` is not one of them). */
  apiVersions: readonly string[];
  /** A toolResponse whose id this socket never asked for (or already got) closes it 1007. */
  matchToolResponseIds: boolean;
  /**
   * The input transcription comes in fragments and the last ones arrive after the model's first
   * audio (transcription is independent of modelTurn ordering, protocols.md §1.5).
   */
  lateInputTranscript: boolean;
  /** Pong answers to client pings come this late (measured 8–30 s). 0 answers at once. */
  pongDelayMs: number;
  /**
   * A handle restores the session as of that handle (research/protocols.md §1.5; field-notes.md
   * "Rotation during a tool call"): turns and tool calls after it are unknown to the resumed
   * session, so a call asked after the handle is never asked again (documented). This option is
   * for the undocumented case, calls the session was still waiting for when the handle was issued:
   * 'reask' issues them again (new ids) on the resumed socket, 'forget' drops them (the model asks
   * again only if it hears the question again). 'reask' is the case a client can get wrong by
   * running a tool twice, 'forget' the one where it can lose the user's question.
   */
  pendingToolCallsOnResume: 'reask' | 'forget';
  /**
   * Validate the top-level fields of `setup` (the first message): a field the Developer API's
   * `LiveClientSetup` does not have (a typo, a Vertex-only field) closes 1007 "Request contains an
   * invalid argument." (see SETUP_FIELDS). Off: any field is accepted, as before.
   */
  validateSetup: boolean;
  /**
   * What each model refuses (MODEL_RULES): `setup` fields the chosen model rejects (3.8) and
   * mid-session `clientContent` (3.1 flash-live preview) close 1007 "Request contains an invalid
   * argument.". Off: every model accepts what any model accepts.
   */
  modelRules: boolean;
  /**
   * A socket's life (field-notes.md "Gemini Live sessions": ~10 min, `goAway` ~60 s before the end):
   * `goAway` this long after setup, the deadline close `goAwayTimeLeftMs` later. null: a socket lives
   * until someone closes it.
   */
  connectionLifetime: { goAwayAfterMs: number; goAwayTimeLeftMs: number } | null;
  /**
   * A session whose setup has no `contextWindowCompression` ends this long after it began, resumed or
   * not (field-notes.md: audio-only 15 min, audio and video 2 min): the deadline close, and a resume
   * after the end is closed the same way at once. null: no limit.
   */
  uncompressedSessionLimit: { audioMs: number; videoMs: number } | null;
  /**
   * Gemini 3.8 Live closes a session at a hard deadline, resumed or not: "Live sessions are closed at
   * exactly 58:00 with 1011 'Deadline expired'; resumption afterwards fails with 1007"
   * (discuss.ai.google.dev thread 186392, seen three days running; research/field-2026-11.md §2,
   * §3.1). Observed, not documented. `afterMs` counts from the session's first setup; a resume of
   * one of its handles after that is refused with `refuseResume` (the service's generic 1007 text:
   * nothing in it says "handle"). null: no session deadline.
   */
  sessionDeadline: {
    afterMs: number;
    close: { code: number; reason: string };
    refuseResume: { code: number; reason: string };
  } | null;
  /**
   * `SessionResumptionConfig.transparent`: the server then sends `lastConsumedClientMessageIndex`
   * with each `sessionResumptionUpdate` ("Index of last message sent by client that is included in
   * state represented by this SessionResumptionToken", @google/genai 3.1.0 genai.d.ts
   * LiveServerSessionResumptionUpdate; hexdocs gemini_ex SessionResumptionConfig; field-2026-11.md
   * §3.1). The fake numbers the client messages of each socket from 0 (the `setup`) and reports the
   * last one it consumed. 'absent': the field never comes although it was asked for (as reported on
   * 3.1), so a client must not rely on it.
   */
  transparentResumption: 'sent' | 'absent';
  /**
   * `turnComplete` may come well after `generationComplete`: the gap is "caused by model waiting for
   * playback to finish" (@google/genai 3.1.0 genai.d.ts LiveServerContent.generationComplete). The
   * fake sends audio faster than real time, then `generationComplete`, and `turnComplete` only when
   * the reply would have finished playing. false: both at once.
   */
  turnCompleteAtPlaybackEnd: boolean;
}

export const STRICT_GEMINI: FakeGeminiStrictness = {
  overlappedResume: 'reject',
  handleTtlMs: 2 * 60 * 60 * 1000,
  deadlineClose: { code: 1011, reason: 'Deadline expired' },
  setupDelayMs: SERVICE_TIMING.gemini.setupMs,
  validateMessages: true,
  apiVersions: ['v1beta', 'v1alpha'],
  matchToolResponseIds: true,
  lateInputTranscript: true,
  pongDelayMs: 10_000,
  pendingToolCallsOnResume: 'forget',
  validateSetup: true,
  modelRules: true,
  connectionLifetime: { goAwayAfterMs: 9 * 60_000, goAwayTimeLeftMs: 60_000 },
  uncompressedSessionLimit: { audioMs: 15 * 60_000, videoMs: 2 * 60_000 },
  sessionDeadline: {
    afterMs: 58 * 60_000,
    close: { code: 1011, reason: 'Deadline expired' },
    refuseResume: { code: 1007, reason: 'Request contains an invalid argument.' },
  },
  transparentResumption: 'sent',
  turnCompleteAtPlaybackEnd: true,
};

/** The fake as it was before strictness options: what a client written against a lax server expects. */
export const LENIENT_GEMINI: FakeGeminiStrictness = {
  overlappedResume: 'allow',
  handleTtlMs: Number.POSITIVE_INFINITY,
  deadlineClose: { code: 1000, reason: 'Connection lifetime reached.' },
  setupDelayMs: 0,
  validateMessages: false,
  apiVersions: ['v1', 'v1beta', 'v1alpha'],
  matchToolResponseIds: false,
  lateInputTranscript: false,
  pongDelayMs: 0,
  pendingToolCallsOnResume: 'forget',
  validateSetup: false,
  modelRules: false,
  connectionLifetime: null,
  uncompressedSessionLimit: null,
  sessionDeadline: null,
  transparentResumption: 'absent',
  turnCompleteAtPlaybackEnd: false,
};

// --- client message validation (post-setup) --------------------------------------------------

const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const base64 = z.string().regex(BASE64_RE, 'not base64');
const audioBlob = z.strictObject({
  data: base64,
  mimeType: z.string().regex(/^audio\/pcm(;rate=\d+)?$/, 'unsupported audio MIME type'),
});
const imageBlob = z.strictObject({
  data: base64,
  mimeType: z.enum(['image/jpeg', 'image/png', 'image/webp', 'image/heic', 'image/heif']),
});
const mediaBlob = z.strictObject({
  data: base64,
  mimeType: z.string().regex(/^(audio\/pcm(;rate=\d+)?|image\/(jpeg|png|webp|heic|heif))$/),
});
const part = z.looseObject({ text: z.string().optional(), inlineData: mediaBlob.optional() });

const realtimeInput = z.strictObject({
  audio: audioBlob.optional(),
  video: imageBlob.optional(),
  text: z.string().optional(),
  activityStart: z.strictObject({}).optional(),
  activityEnd: z.strictObject({}).optional(),
  audioStreamEnd: z.boolean().optional(),
  mediaChunks: z.array(mediaBlob).optional(),
});
const clientContent = z.strictObject({
  turns: z.array(z.strictObject({ role: z.enum(['user', 'model']).optional(), parts: z.array(part) })).optional(),
  turnComplete: z.boolean().optional(),
});
const toolResponse = z.strictObject({
  functionResponses: z.array(
    z.strictObject({
      id: z.string().min(1),
      name: z.string().optional(),
      response: z.record(z.string(), z.unknown()).optional(),
      scheduling: z.enum(['SILENT', 'WHEN_IDLE', 'INTERRUPT']).optional(),
      willContinue: z.boolean().optional(),
    }),
  ),
});

/** Exactly one of the documented client message kinds (protocols.md §1.4). */
export const clientMessageSchema = z.union([
  z.strictObject({ realtimeInput }),
  z.strictObject({ clientContent }),
  z.strictObject({ toolResponse }),
  // sendContextUpdate in @google/genai 3.1.0 (LiveClientContextUpdate): a new system instruction
  // and/or a tools list that replaces the previous one.
  z.strictObject({
    contextUpdate: z.strictObject({
      systemInstruction: z.union([z.string(), z.looseObject({ parts: z.array(part) })]).optional(),
      tools: z.strictObject({ tools: z.array(z.looseObject({})).optional() }).optional(),
    }),
  }),
]);

// --- setup validation (per model) ------------------------------------------------------------

/** The close reason of the service for an invalid argument (research/protocols.md:273, §1.8). */
export const INVALID_ARGUMENT = 'Request contains an invalid argument.';

/**
 * Top-level fields of the Developer API's `setup` (`LiveClientSetup`): the SDK 3.1.0 example and
 * field list in research/protocols.md:137-159 (§1.3). `explicitVadSignal` is not one of them: it
 * is Vertex-only (protocols.md:158-159; the SDK throws before sending it to the Developer API).
 * Proto3 JSON also takes the snake_case names (`generation_config`), so both spellings are known.
 */
export const SETUP_FIELDS: readonly string[] = [
  'model',
  'generationConfig',
  'systemInstruction',
  'tools',
  'realtimeInputConfig',
  'sessionResumption',
  'contextWindowCompression',
  'inputAudioTranscription',
  'outputAudioTranscription',
  'proactivity',
  'historyConfig',
  'avatarConfig',
  'safetySettings',
  'labels',
];

const snake = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const KNOWN_SETUP_FIELDS = new Set(SETUP_FIELDS.flatMap((name) => [name, snake(name)]));

type Json = Record<string, unknown>;
/** A field by its JSON (camelCase) or proto (snake_case) name; null counts as absent, as in proto3 JSON. */
function field(object: unknown, name: string): unknown {
  if (!object || typeof object !== 'object') return undefined;
  const o = object as Json;
  return o[name] ?? o[snake(name)] ?? undefined;
}

/** The first top-level `setup` field the Developer API does not know, or null. */
export function unknownSetupField(setup: Json): string | null {
  return Object.keys(setup).find((key) => !KNOWN_SETUP_FIELDS.has(key)) ?? null;
}

export interface ModelRules {
  /** `setup` fields this model refuses: a path (for the test report) and the test on the setup. */
  rejectedSetupFields: { path: string; rejects(setup: Json): boolean }[];
  /**
   * Mid-session `clientContent` closes the socket. Only the initial history a setup announced with
   * `historyConfig.initialHistoryInClientContent` is taken, up to its `turnComplete`
   * (protocols.md:157-158).
   */
  refusesClientContent: boolean;
  /**
   * Mid-session `contextUpdate` (system instruction, tools) is taken. On 3.8 "system instructions
   * and tools can be updated during a session" (Vertex "Start and manage live sessions", section
   * "Update system instructions and tools during a session with Gemini 3.8 Live";
   * field-2026-11.md §3.1); 3.1 rejected it (livekit/agents #5496). Models without the rule refuse
   * it with 1007 (nothing says they take it).
   */
  acceptsContextUpdate?: boolean;
  /**
   * The extended-thinking model: every `turnComplete` carries `interactionStatus`, IN_PROGRESS while
   * it still works (a NON_BLOCKING call it waits for) and IDLE when done, so `turnComplete` alone
   * no longer means idle; its function calls are NON_BLOCKING (async only) and it speaks fillers
   * while they run (ai.google.dev live-api/thinking; the @ai-sdk/google 4.0.72 note;
   * field-2026-11.md §3.1).
   */
  interactionStatus?: boolean;
  /**
   * The server reports `voiceActivity` (ACTIVITY_START / ACTIVITY_END, with the `audioOffset` on the
   * audio clock) when its automatic activity detection sees the user start or stop speaking, "to
   * drive a voice activity indicator, or to handle the user interrupting the model (barge-in)"
   * (Firebase LiveServerVoiceActivity, updated 2026-11-13; genai.d.ts VoiceActivity;
   * field-2026-12.md §1d). The fake sends it on the 3.8 models only.
   */
  voiceActivity?: boolean;
}

/**
 * What each model refuses, ONLY as the research states it (models with no entry refuse nothing
 * beyond the common rules, and no mid-session `contextUpdate`). gemini-3.8-live-extended-thinking
 * refuses no setup field: the 3.8 migration notes are those of the gemini-3.8-live page.
 */
export const MODEL_RULES: Readonly<Record<string, ModelRules>> = {
  'gemini-3.8-live': {
    rejectedSetupFields: [
      // "`thinkingConfig` unsupported"; "omit `thinkingConfig`/`thinking_level`" (protocols.md:83, :121).
      {
        path: 'generationConfig.thinkingConfig',
        rejects: (s) => field(field(s, 'generationConfig'), 'thinkingConfig') !== undefined,
      },
      // "`enableAffectiveDialog` removed"; "affective dialog removed from the API" (protocols.md:82, :126-127).
      {
        path: 'generationConfig.enableAffectiveDialog',
        rejects: (s) => field(field(s, 'generationConfig'), 'enableAffectiveDialog') !== undefined,
      },
      // "proactive audio is permanently on (`proactiveAudio: false` is an error)" (protocols.md:125-126).
      {
        path: 'proactivity.proactiveAudio=false',
        rejects: (s) => field(field(s, 'proactivity'), 'proactiveAudio') === false,
      },
    ],
    refusesClientContent: false,
    acceptsContextUpdate: true,
    voiceActivity: true,
  },
  'gemini-3.8-live-extended-thinking': {
    rejectedSetupFields: [],
    refusesClientContent: false,
    acceptsContextUpdate: true,
    interactionStatus: true,
    voiceActivity: true,
  },
  'gemini-3.1-flash-live-preview': {
    rejectedSetupFields: [],
    // Rejected mid-session `clientContent` with 1007 (main/core/model/gemini/setup.ts:102-104, citing
    // livekit/agents#5251 and google/adk-python#5018).
    refusesClientContent: true,
  },
};

/** The first `setup` field the model refuses (its path), or null. */
export function setupFieldRejectedBy(model: string, setup: Json): string | null {
  return MODEL_RULES[model]?.rejectedSetupFields.find((rule) => rule.rejects(setup))?.path ?? null;
}

/** True when the setup announced initial history in `clientContent` (taken until its turnComplete). */
export function announcesInitialHistory(setup: Json): boolean {
  return field(field(setup, 'historyConfig'), 'initialHistoryInClientContent') === true;
}
