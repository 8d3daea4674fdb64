// Everything that decides what the first `setup` message says, and how the service's answers are
// classified. Kept apart from the connection code so it can be read (and reviewed) in one sitting.
import type { AutomaticActivityDetection, FunctionDeclaration, LiveConnectConfig, Schema } from '@google/genai';
import { EndSensitivity, Modality } from '@google/genai';
import { DEFAULT_PATIENCE, PATIENCE_SILENCE_MS, patienceSilenceMs, type Patience } from '../../contracts/patience.ts';
import type { ToolDeclaration } from '../../ports.ts';

export interface SetupInput {
  voice: string;
  systemInstruction?: string;
  tools: ToolDeclaration[];
  /** Latest resumption handle; absent on a brand-new conversation. */
  handle?: string | null;
  /** How long a pause may last before the service ends the turn; absent: DEFAULT_PATIENCE. */
  patience?: Patience;
}

/**
 * The service's automatic activity detection for a patience (docs/audio.md "Patience"):
 * `silenceDurationMs` is the patience's window; `endOfSpeechSensitivity` HIGH (ends speech
 * readily, the Live API's own default) for quick windows, LOW (a trailing breath or a soft word
 * does not count as the end) from natural up. Left on (`disabled: false`): its start of speech is
 * the service's barge-in, and the bridge sends audioStreamEnd only after it ended the turn.
 */
export function activityDetectionFor(patience: Patience): AutomaticActivityDetection {
  const silenceDurationMs = patienceSilenceMs(patience);
  const quick = silenceDurationMs <= PATIENCE_SILENCE_MS.quick;
  return {
    disabled: false,
    endOfSpeechSensitivity: quick ? EndSensitivity.END_SENSITIVITY_HIGH : EndSensitivity.END_SENSITIVITY_LOW,
    silenceDurationMs,
  };
}

/**
 * The LiveConnectConfig the SDK turns into `setup`. Resumption is requested from the very first
 * setup (an empty `sessionResumption: {}`): the service only issues handles to sessions that asked
 * for them, which is exactly what the Python predecessor missed. Compression is on so an
 * audio+video session is not cut at 2 minutes (15 for audio only).
 */
export function buildLiveConfig(input: SetupInput): LiveConnectConfig {
  const config: LiveConnectConfig = {
    responseModalities: [Modality.AUDIO],
    speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: input.voice } } },
    inputAudioTranscription: {},
    outputAudioTranscription: {},
    sessionResumption: input.handle ? { handle: input.handle } : {},
    contextWindowCompression: { slidingWindow: {} },
    realtimeInputConfig: { automaticActivityDetection: activityDetectionFor(input.patience ?? DEFAULT_PATIENCE) },
  };
  if (input.systemInstruction) config.systemInstruction = input.systemInstruction;
  if (input.tools.length > 0) config.tools = [{ functionDeclarations: input.tools.map(toFunctionDeclaration) }];
  return config;
}

export function toFunctionDeclaration(tool: ToolDeclaration): FunctionDeclaration {
  const parameters = jsonSchemaToGeminiSchema(tool.parameters);
  const declaration: FunctionDeclaration = { name: tool.name, description: tool.description };
  // A tool without arguments is declared without `parameters` (an empty OBJECT is rejected by some models).
  const props = parameters.properties as Record<string, unknown> | undefined;
  if (props && Object.keys(props).length > 0) declaration.parameters = parameters as unknown as Schema;
  return declaration;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'STRING',
  number: 'NUMBER',
  integer: 'INTEGER',
  boolean: 'BOOLEAN',
  array: 'ARRAY',
  object: 'OBJECT',
};
const COPIED_KEYS = [
  'description',
  'format',
  'enum',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'title',
] as const;

/**
 * JSON Schema (as zod emits it) → the OpenAPI subset `FunctionDeclaration.parameters` takes
 * (upper-case types, `nullable`, no `additionalProperties`/`$schema`). This form is what the SDK's
 * own typed path produces and what every Live model accepts; `parametersJsonSchema` is newer and
 * not accepted by all Live model versions.
 */
export function jsonSchemaToGeminiSchema(schema: unknown): Record<string, unknown> {
  if (!schema || typeof schema !== 'object') return {};
  const src = schema as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  let type = src.type;
  if (Array.isArray(type)) {
    const nonNull = type.filter((t) => t !== 'null');
    if (nonNull.length < type.length) out.nullable = true;
    type = nonNull[0];
  }
  if (typeof type === 'string' && TYPE_NAMES[type]) out.type = TYPE_NAMES[type];
  for (const key of COPIED_KEYS) if (src[key] !== undefined) out[key] = src[key];
  if (src.const !== undefined) out.enum = [src.const];
  if (Array.isArray(out.enum)) out.enum = out.enum.map(String);
  if (src.exclusiveMinimum !== undefined && out.minimum === undefined) out.minimum = src.exclusiveMinimum;
  if (src.exclusiveMaximum !== undefined && out.maximum === undefined) out.maximum = src.exclusiveMaximum;
  // zod's int() adds ±MAX_SAFE_INTEGER bounds: noise for the model, and tokens on every setup.
  if (Math.abs(Number(out.minimum)) === Number.MAX_SAFE_INTEGER) delete out.minimum;
  if (Math.abs(Number(out.maximum)) === Number.MAX_SAFE_INTEGER) delete out.maximum;
  if (src.properties && typeof src.properties === 'object') {
    const properties: Record<string, unknown> = {};
    for (const [name, sub] of Object.entries(src.properties as Record<string, unknown>))
      properties[name] = jsonSchemaToGeminiSchema(sub);
    out.properties = properties;
    if (!out.type) out.type = 'OBJECT';
  }
  if (Array.isArray(src.required) && src.required.length > 0) out.required = src.required;
  if (src.items && typeof src.items === 'object') out.items = jsonSchemaToGeminiSchema(src.items);
  const union = (src.anyOf ?? src.oneOf) as unknown[] | undefined;
  if (Array.isArray(union)) {
    const variants = union.filter(
      (v) => !(v && typeof v === 'object' && (v as Record<string, unknown>).type === 'null'),
    );
    if (variants.length < union.length) out.nullable = true;
    if (variants.length === 1)
      Object.assign(out, jsonSchemaToGeminiSchema(variants[0]), out.nullable ? { nullable: true } : {});
    else out.anyOf = variants.map(jsonSchemaToGeminiSchema);
  }
  return out;
}

/**
 * How injected text (/say, voice notifications) reaches the model.
 * - `clientContent`: an ordered user turn with `turnComplete: true`. On 3.8 (and 2.5) it is accepted
 *   for the whole session; on 3.8 it *interrupts* an active generation, so the session only sends it
 *   while the model is idle (see session.ts, TextInjectionQueue).
 * - `realtimeText`: `realtimeInput.text`. gemini-3.1-flash-live-preview rejected mid-session
 *   `clientContent` with 1007 at launch (livekit/agents#5251, google/adk-python#5018), so that
 *   model gets realtime text instead; also only while idle.
 */
export type TextInjectionKind = 'clientContent' | 'realtimeText';

export function textInjectionKindFor(model: string): TextInjectionKind {
  return /gemini-3\.1-flash-live/.test(model) ? 'realtimeText' : 'clientContent';
}

export { defaultInjectedText } from '../injected-text.ts';

export type FailureKind =
  /** The key is rejected: no model will work, so stop at once. */
  | 'auth'
  /** This model (or a setup field) is not accepted: try the next fallback model. */
  | 'model'
  /** The resumption handle is unknown or expired: start a fresh conversation. */
  | 'handle'
  /** Anything else (1006, 1011, refused connection, …): retry with backoff. */
  | 'transient';

export function classifyFailure(code: number | null, reason: string): FailureKind {
  const text = reason.toLowerCase();
  if (/api key|api_key|permission|unauthenticated|unauthori[sz]ed|credential|\b401\b|\b403\b/.test(text)) return 'auth';
  if (/resumption|handle/.test(text) && (code === 1007 || code === 1008)) return 'handle';
  if (code === 1008 || code === 1007 || /not found|not supported|\b404\b/.test(text)) return 'model';
  return 'transient';
}

/** `goAway.timeLeft` is a protobuf Duration string such as "50s" or "0.5s". */
export function parseDurationMs(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const match = /^(\d+(?:\.\d+)?)s$/.exec(value.trim());
  return match ? Math.round(Number(match[1]) * 1000) : null;
}
