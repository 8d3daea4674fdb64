export {
  startFakeGemini,
  FakeGemini,
  KNOWN_LIVE_MODELS,
  type FakeGeminiOptions,
  type AutoReplyOptions,
  type FakeSessionRecord,
} from './server.ts';
export {
  FakeGeminiConnection,
  type ReplyScript,
  type ReplyOutcome,
  type RecordedAudio,
  type RecordedFrame,
  type FunctionResponseRecord,
  type JsonObject,
  type PendingToolCall,
} from './connection.ts';
export { tone, pcmToBase64, base64ToPcm, concatPcm, rms, rateOf, MODEL_INPUT_RATE, MODEL_OUTPUT_RATE } from './pcm.ts';
export {
  STRICT_GEMINI,
  LENIENT_GEMINI,
  cutCloseReason,
  INVALID_ARGUMENT,
  SETUP_FIELDS,
  MODEL_RULES,
  unknownSetupField,
  setupFieldRejectedBy,
  type FakeGeminiStrictness,
  type ModelRules,
} from './strictness.ts';
export { GEMINI_AAD_DEFAULTS, GEMINI_SPEECH_RMS, readActivitySettings, type ActivitySettings } from './activity.ts';
export type { UserTurnEnd } from './connection.ts';
