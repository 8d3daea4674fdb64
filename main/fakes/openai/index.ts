export {
  startFakeOpenAIRealtime,
  FakeOpenAIRealtime,
  KNOWN_REALTIME_MODELS,
  type FakeRealtimeOptions,
  type RealtimeAutoReply,
} from './realtime/server.ts';
export { FakeTranscriptionConnection, TRANSCRIPTION_MODELS } from './realtime/transcription.ts';
export {
  FakeRealtimeConnection,
  REALTIME_RATE,
  type RealtimeReplyScript,
  type RealtimeReplyOutcome,
  type ConversationItem,
} from './realtime/connection.ts';
export {
  startFakeOpenAILive,
  FakeOpenAILive,
  FakeLiveConnection,
  KNOWN_GPT_LIVE_MODELS,
  type FakeLiveOptions,
  type LiveReplyScript,
  type LiveReplyOutcome,
} from './live/server.ts';
export {
  SERVER_VAD_DEFAULTS,
  SEMANTIC_VAD_CAP_MS,
  SEMANTIC_VAD_FINAL_MS,
  thresholdRms,
  endsUtterance,
  type Eagerness,
} from './realtime/turn-detection.ts';
export { GPT_LIVE_SILENCE_MS } from './live/connection.ts';
