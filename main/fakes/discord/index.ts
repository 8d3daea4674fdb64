// Public surface of the fake Discord (tests, benchmarks, `npm run demo`).
export { SETUP_SCENARIOS, startFakeDiscord, type SetupScenario } from './fake-discord.ts';
export type { CloseVoiceOptions, FakeDiscord, FakeDiscordOptions } from './fake-discord.ts';
export type { GatewayDrop, Op4Payload } from './gateway.ts';
export type { RecordedPacket, RecorderOptions } from './recorder.ts';
export { BotAudioRecorder } from './recorder.ts';
export type { RecordedMessage, RecordedRequest } from './rest.ts';
export { MESSAGE_CONTENT_LIMIT } from './rest.ts';
export { decryptRtp, encryptRtp, ENCRYPTION_MODES, OPUS_SILENCE_FRAME, type EncryptionMode } from './rtp.ts';
export type { SpeakOptions, SpeakResult } from './speaker.ts';
export { seededRandom } from './speaker.ts';
export { testCertificates, trustTestCertificates, type TestCertificates } from './tls.ts';
export type { VoiceSession } from './voice-server.ts';
export type { FakeUser } from './world.ts';
export {
  DaveGroup,
  DAVE_OPS,
  type BotFrame,
  type DaveCounters,
  type DaveEvent,
  type DaveFaults,
} from './dave/group.ts';
export type { ListenerCounts } from './recorder.ts';
export type { SpeakerTotals } from './speaker.ts';
