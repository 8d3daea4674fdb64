// The contract between the fake Realtime server (openai/ and xai/) and each connection it accepts:
// what the server lends a connection (hooks: timing, VAD level, auto-replies, transcription) and
// what a connection reports (events). Apart from connection.ts so that the servers and the tests
// read the contract without the connection's protocol handling.
import type { StreamingTranscriber } from '../../shared/scripted-speech.ts';
import type { FakeTiming } from '../../shared/timing.ts';
import type { PacedScript } from '../../shared/fake-connection.ts';
import type { ResponseTrigger } from './conversation.ts';

/** `C`: the connection (connection.ts names it; generic here so the contract does not import it back). */
export interface RealtimeHooks<C> {
  /** Chunk length, pace and first-audio latency (the service's, shared/service-timing.ts). */
  timing: FakeTiming;
  vadRms: number;
  /** Called when the server VAD commits a user turn or a user text item asks for a response. */
  autoReply(connection: C, trigger: ResponseTrigger): PacedScript | null;
  /** The input transcription of a committed buffer (24 kHz); absent: "(N ms of speech)". */
  transcribe?(pcm24k: Int16Array): string;
  /** A transcriber that writes as it hears: the semantic_vad stand-in reads the words so far from it. */
  stream?(rate: number): StreamingTranscriber;
}

export interface FakeRealtimeConnectionEvents {
  event: [event: Record<string, unknown>];
  close: [code: number, reason: string];
  /** Server VAD heard speech start (sent `input_audio_buffer.speech_started`). */
  speechStarted: [];
  /**
   * Server VAD ended a user turn that the service will answer (create_response, no response
   * active): emitted before the commit, so a script can set the input transcript (setInputTranscript)
   * and the reply (queueReply) of this turn. `pcm` is the turn's audio at 24 kHz.
   */
  /** quietMs: the trailing quiet the VAD counted before it ended the turn (its silence window). */
  userTurn: [turn: { ms: number; pcm: Int16Array; quietMs: number }];
}
