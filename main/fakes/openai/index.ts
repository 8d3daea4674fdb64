export { startFakeOpenAIRealtime, FakeOpenAIRealtime, KNOWN_REALTIME_MODELS, type FakeRealtimeOptions, type RealtimeAutoReply } from './realtime/server.ts';
export { FakeRealtimeConnection, REALTIME_RATE, type RealtimeReplyScript, type RealtimeReplyOutcome, type ConversationItem } from './realtime/connection.ts';
