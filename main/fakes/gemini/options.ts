// What the fake Gemini Live service is started with, and what it keeps per conversation (server.ts).
import type { FakeTimingOptions } from '../shared/timing.ts';
import type { FakeGeminiConnection, JsonObject, PendingToolCall, ReplyScript } from './connection.ts';
import type { ScriptedListening } from '../shared/scripted-speech.ts';
import type { FakeGeminiStrictness } from './strictness.ts';

export const KNOWN_LIVE_MODELS = [
  'gemini-3.8-live',
  'gemini-3.8-live-extended-thinking',
  'gemini-3.1-flash-live-preview',
  'gemini-2.5-flash-native-audio-preview-12-2025',
] as const;

export interface AutoReplyOptions extends Omit<ReplyScript, 'transcript' | 'inputTranscript'>, ScriptedListening {
  /** What the model "says" to user audio (default: `answer` of what it heard, else a short fixed sentence). */
  transcript?: string;
  /** Transcription of the user's audio (default: `transcribe` of it, else "(N ms of speech)"). */
  inputTranscript?: string;
  /** Answer injected text (clientContent turnComplete / realtime text) by saying it. Default true. */
  speakInjectedText?: boolean;
}

export interface FakeGeminiOptions extends FakeTimingOptions {
  port?: number;
  /** Only these keys are accepted; by default every non-empty key is. */
  validKeys?: readonly string[];
  models?: readonly string[];
  framing?: 'binary' | 'text';
  /** When set, the fake answers user audio (on audioStreamEnd) and injected text by itself. */
  autoReply?: AutoReplyOptions | false;
  /** RMS of incoming audio that interrupts a reply in progress; null disables barge-in. Default 2000. */
  bargeInRms?: number | null;
  /**
   * Send `goAway` this long after setup, then close `goAwayTimeLeftMs` (default 2 s) later; overrides
   * `strict.connectionLifetime` (by default the service's ~10 min).
   */
  goAwayAfterMs?: number;
  goAwayTimeLeftMs?: number;
  /** Delay before `setupComplete`; overrides `strict.setupDelayMs` (default SERVICE_TIMING.gemini.setupMs). */
  setupDelayMs?: number;
  /** The session deadline after the first setup (overrides `strict.sessionDeadline.afterMs`; default 58 min). */
  sessionDeadlineMs?: number;
  /** Strictness; every field defaults to STRICT_GEMINI (LENIENT_GEMINI is the old, lax fake). */
  strict?: Partial<FakeGeminiStrictness>;
}

export interface FakeSessionRecord {
  id: string;
  history: { role: 'user' | 'model'; text: string; connection: number }[];
  connections: number[];
  /** Sockets of this session that completed setup and are still open (the service allows one). */
  open: Set<FakeGeminiConnection>;
  startedAt: number;
  /** Its first setup asked for `contextWindowCompression` (no session length limit then). */
  compressed: boolean;
  /** It has been sent an image (the shorter limit for uncompressed sessions). */
  video: boolean;
  /** Reached `strict.sessionDeadline`: closed at it, or a resume after it refused; its handles are refused. */
  expired: boolean;
  /** User audio samples in the session's state (as of the handle after a resume): what it heard. */
  audioSamples: number;
  /** User audio a resume rolled back (heard after the handle it resumed from): what the client must send again. */
  rolledBackSamples: number;
  /** The latest mid-session `contextUpdate` (system instruction, tools), kept across resumes. */
  contextUpdate: JsonObject | null;
}

/** What a handle restores: the session as it was when the handle was issued. */
export interface HandleRecord {
  sessionId: string;
  issuedAt: number;
  /** History entries that existed when the handle was issued; later ones are gone after a resume. */
  historyLength: number;
  /** Tool calls the session was still waiting for when the handle was issued. */
  pendingToolCalls: PendingToolCall[];
  /** User audio samples the session had consumed when the handle was issued. */
  audioSamples: number;
}

export interface FakeGeminiEvents {
  connection: [connection: FakeGeminiConnection];
  setup: [connection: FakeGeminiConnection];
  /** A socket was closed by the fake for a protocol reason (what a strict service refuses). */
  refused: [connection: FakeGeminiConnection, code: number, reason: string];
}
