// The seams between core modules. The bridge depends on these interfaces, never on a concrete
// platform or provider, so a second model provider (OpenAI Realtime) or a fake plugs in unchanged.
import type { EventEmitter } from 'node:events';
import type { ConnectionState, DaveStatus, NoteEvent, TokenCounts } from './api-types.ts';
import type { Patience } from './contracts/patience.ts';

/**
 * Samples per 20 ms frame at 48 kHz. Frames between the call's stages are mono at their stage's rate
 * (docs/audio.md "Mono inside"): stereo exists only on the wire, where Opus packets are decoded to
 * mono and the bot's voice is coded as mono.
 */
export const FRAME_SAMPLES_48K = 960;
export const FRAME_MS = 20;

// ---------------------------------------------------------------------------------------------
// Discord side (implemented in main/core/voice/, faked in main/fakes/discord/)

export interface VoiceTarget {
  guildId: string;
  channelId: string;
}

/** Pull source for playback: called once per 20 ms by the player's clock. */
export interface PlaybackSource {
  /**
   * Fill `out` (960 mono samples at 48 kHz) with the next 20 ms.
   * Must always fill (silence when nothing is buffered) so the player never goes idle mid-call.
   */
  readFrame(out: Int16Array): void;
  /**
   * Whole 20 ms frames of audio the next reads will play without waiting for more to arrive (the
   * end of a reply the model sent faster than real time). Optional: a source without it counts as 0.
   */
  framesAhead?(): number;
}

export interface VoiceChannelEvents {
  /** 20 ms of decoded audio from one allowed speaker: 48 kHz mono s16, 960 samples (a reused buffer: copy to keep). */
  pcm: [speakerId: string, pcm48k: Int16Array];
  speakingStart: [speakerId: string];
  speakingEnd: [speakerId: string];
  state: [state: ConnectionState, reason?: string];
  /** The owner left the voice channel the bot is in. */
  ownerLeft: [];
  /** A human joined or left the voice channel the bot is in (channelMembers() changed). */
  membersChanged: [];
  /** The owner entered (or moved to) a voice channel, whether or not the bot is in a call (auto-join). */
  ownerEntered: [target: VoiceTarget];
}

export interface VoiceChannelPort extends EventEmitter<VoiceChannelEvents> {
  readonly state: ConnectionState;
  /** Name of the Opus library in use (for /health), null before first use. */
  readonly opusLibrary: string | null;
  /** Discord E2EE (DAVE) state of the call (optional: ports without E2EE omit it). */
  daveStatus?(): DaveStatus | null;
  /** Join the explicit target, or the voice channel the owner is in. */
  join(target?: VoiceTarget): Promise<VoiceTarget>;
  leave(): Promise<void>;
  /** Start continuous playback pulled from `source` until stopPlayback/leave. */
  startPlayback(source: PlaybackSource): void;
  stopPlayback(): void;
  /**
   * A wake-up that can carry the next packet: send the source's next frame now if its 20 ms slot
   * has begun (at most one slot early, never twice). The bridge calls it for every chunk of model
   * speech (the chunk's wake-up sends the packet, not a timer of its own) and, `urgent`, at a
   * barge-in: the fade frame goes out at once even if the current slot already went early (at
   * most two slots early). Optional: a port without a slot clock needs nothing here.
   */
  pokePlayback?(urgent?: boolean): void;
  /** A user's name as the room shows it (member nick, then global name, then username); cached by the platform. */
  displayName?(userId: string): string | undefined;
  /** Humans (not bots) in the voice channel the bot is in; empty when not in one. */
  channelMembers?(): string[];
}

export interface SentMessage {
  messageId: string;
  channelId: string;
}

/** Text delivery through the bot (notifications, hand-offs). Mentions are always disabled. */
export interface DiscordTextPort {
  /** `signal` aborts the send when its time is up: nothing may land after the caller moved on. */
  sendDirectMessage(userId: string, text: string, options?: SendOptions): Promise<SentMessage>;
  postToChannel(channelId: string, text: string, options?: SendOptions): Promise<SentMessage>;
}

export interface SendOptions {
  signal?: AbortSignal;
  /**
   * The delivery's stable id: each part is posted with a nonce derived from it and
   * `enforce_nonce: true`, so a resend of the same delivery (discord.js's own retry after a reset or
   * a 5xx, our resend after a timeout or a crash) returns the message Discord already created.
   */
  deliveryId?: string;
}

// ---------------------------------------------------------------------------------------------
// Live model side (implemented in main/core/model/, faked in main/fakes/gemini/)

export interface ToolCallRequest {
  id: string;
  name: string;
  args: unknown;
}

export interface ToolCallResult {
  id: string;
  name: string;
  /** The JSON sent back to the model: `{ result }` on success or `{ error: { code, message } }`. */
  response: Record<string, unknown>;
}

export interface FrameSendResult {
  status: 'sent' | 'dropped';
  /** Why a frame was dropped (e.g. `rate_limited`: a newer frame replaced it within the 1 fps window). */
  reason?: string;
  width?: number;
  height?: number;
  bytes?: number;
}

/**
 * A transcription-only stream that hears an utterance's first words before the live model does
 * (wake names). It never answers: it only turns audio into text.
 */
export interface SpeechScreener {
  open(): Promise<ScreeningStream>;
}

export interface ScreeningStream {
  readonly isOpen: boolean;
  /** 16 kHz mono s16 from the voice gate (copied or serialised at once). */
  sendAudio(pcm16kMono: Int16Array): void;
  /** The audio sent since the previous call, transcribed; null when it could not be (time out, error, closed). */
  transcribe(timeoutMs: number): Promise<string | null>;
  close(): void;
}

export interface LiveModelEvents {
  /** Model speech: 24 kHz mono s16. */
  audio: [pcm24kMono: Int16Array];
  inputTranscript: [text: string];
  outputTranscript: [text: string];
  toolCall: [call: ToolCallRequest];
  toolCallCancelled: [ids: string[]];
  /** The model stopped its reply because the user spoke (barge-in): flush playback now. */
  interrupted: [];
  turnComplete: [];
  /**
   * The service ended the user's turn by its own rule (its detector heard the end, or it began to
   * answer): the bridge stops the paced silence that kept the service's audio clock running, and
   * sends its end of input (audio/end-of-turn.ts). May repeat within one turn.
   */
  userTurnEnded: [];
  state: [state: ConnectionState, reason?: string];
}

export interface LiveModelSession extends EventEmitter<LiveModelEvents> {
  readonly state: ConnectionState;
  readonly model: string;
  /**
   * 16 kHz mono s16 speech from the voice gate. The chunk is the caller's, valid during the call only
   * (the voice gate and the stores of unheard speech reuse their buffers): copy what you keep.
   */
  sendAudio(pcm16kMono: Int16Array): void;
  /**
   * The user's input ends: after the service ended the turn (`userTurnEnded`), or when the bridge's
   * silence cap ran out first. A service that has not ended the turn is told in its own way
   * (Gemini `audioStreamEnd`, a Realtime commit where its VAD heard speech; GPT-Live: nothing).
   */
  endAudioInput(): void;
  /**
   * How long a pause may last before the service may end the speaker's turn (contracts/patience.ts),
   * mapped onto the service's own turn detection: sent now where the service takes it mid-session
   * (Realtime `session.update`), otherwise taken at the next setup (Gemini: the next resume or socket).
   */
  setPatience(patience: Patience): void;
  /**
   * Text the model speaks in its next turn (/say, voice-mode notifications). With `delivery`, the
   * provider settles it once: `delivered` when the text is handed to the model (written on the live
   * session), or dropped (and then never sent): queue full, the call ended, or the deadline passed.
   */
  sendText(text: string, delivery?: TextDelivery): void;
  /** An image (JPEG, PNG or WebP bytes) for the model to see. */
  sendFrame(image: Buffer): Promise<FrameSendResult>;
  sendToolResult(result: ToolCallResult): void;
  /**
   * The bridge cut the reply's playback because an allowed speaker talked over it (local barge-in,
   * echo-aware: bridge/barge-in.ts). For a provider whose service gives no barge-in signal of its
   * own (GPT-Live: the model just goes quiet) this is what tells a yield from the reply's end; on
   * Realtime it cancels and truncates the reply at once (the service's speech_started may not come).
   */
  bargedIn?(): void;
  /**
   * Context for the model that neither starts nor interrupts a reply and is never spoken (who is
   * talking now). False when nothing was sent: the model cannot take such context, or no socket is up.
   */
  addContext?(text: string): boolean;
  close(): Promise<void>;
  /** What the call has used so far, where the provider reports it (GPT-Live bills per minute). */
  usage?(): LiveModelUsage;
  /**
   * The call's recent transcript, for a fresh session that must continue this conversation (pass it
   * as `LiveModelConnectOptions.seed`): after an outage, a parked call, or a refused resume.
   */
  conversationSeed?(): ConversationSeed;
  /**
   * Change the persona and/or tools mid-call, where the model allows it (Gemini 3.8 `contextUpdate`).
   * False when this model or provider cannot: the change applies from the next session. `vocabulary`
   * (transcription names) is never sent mid-session: it is taken for the next socket's setup.
   */
  updateContext?(update: {
    systemInstruction?: string;
    tools?: ToolDeclaration[];
    vocabulary?: readonly string[];
  }): boolean;
  /**
   * A handle a later session of this call may resume from (`LiveModelConnectOptions.resumeHandle`),
   * or null when none is safe (none issued, or the model spoke after the latest). Gemini only.
   */
  resumeHandle?(): string | null;
  /**
   * Takes the user's speech this session holds that no service has answered yet (said while its
   * sockets were down and it retried, or sent to a socket that went silent or ended first), in
   * order; `null` is an end of speech. For a session that gave up: the next one hears it instead.
   */
  takeUnanswered?(): (Int16Array | null)[];
  /**
   * Takes the texts still waiting for a pause (a /say, a voice reminder), not yet handed over and
   * not settled: for a session that gave up, the next one speaks them, and their senders hear how.
   */
  takeTexts?(): { text: string; delivery: TextDelivery }[];
}

export interface ConversationLine {
  role: 'user' | 'model';
  text: string;
}

/** What a fresh session is seeded with so the conversation goes on (docs/gemini.md "Fresh sessions"). */
export interface ConversationSeed {
  transcript: ConversationLine[];
  /** What is still pending in the call (reminders due, texts not yet spoken), as plain text. */
  pending?: string;
}

export interface LiveModelUsage {
  /** Cumulative audio seconds the service counted (GPT-Live `session.usage.updated`). */
  audioSeconds?: number;
  /** Minutes billed so far (rounded up). */
  billedMinutes?: number;
  totalTokens?: number;
  /** Tokens by modality from the provider's usage messages (Gemini usageMetadata, Realtime response.done). */
  tokens?: TokenCounts;
}

export type TextDropReason = 'queue_full' | 'call_ended' | 'timeout' | 'refused';
export type TextOutcome = { delivered: true } | { delivered: false; reason: TextDropReason };

export interface TextDelivery {
  /** Called once: handed to the model, or dropped. */
  onSettled?: (outcome: TextOutcome) => void;
  /** Drop the text (settling `timeout`) when no idle moment came within this many ms. */
  deadlineMs?: number;
  /**
   * Asked at the idle moment, right before the text is handed over: false (or a rejection) drops it
   * (`refused`). The notification scheduler claims its entry here, so a crash while the text waits
   * for a pause leaves the entry unclaimed, to be delivered by the next start.
   */
  beforeHandOver?: () => Promise<boolean>;
  /** A message the model answers (sent as it is), not a text it speaks verbatim (wrapped in the announce wording). */
  asMessage?: boolean;
}

export interface ToolDeclaration {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface LiveModelConnectOptions {
  tools: ToolDeclaration[];
  systemInstruction?: string;
  /**
   * Ms of the current reply the player has handed out so far. Providers that must tell the service
   * what was actually heard at a barge-in (OpenAI `conversation.item.truncate`) read it then.
   */
  playedMs?: () => number;
  /** A fresh session that continues a call (e.g. reopened after an outage): persona + this transcript. */
  seed?: ConversationSeed;
  /**
   * Asked whenever the provider itself must open a fresh session mid-call (a refused resume, a
   * renewal before the session deadline): what is still pending (reminders), for the seed.
   */
  pendingContext?: () => string | undefined;
  /** Names to bias input transcription towards (wake names, speakers' names), where the model takes them. */
  vocabulary?: readonly string[];
  /** The call's patience (contracts/patience.ts) for the service's turn detection; absent: DEFAULT_PATIENCE. */
  patience?: Patience;
  /**
   * Resume this service session (a parked call's, from `LiveModelSession.resumeHandle()`) instead of
   * starting a new one; if the service refuses it, a fresh session with the options above opens at
   * once. Providers without resumption ignore it.
   */
  resumeHandle?: string;
}

export interface LiveModelProvider {
  readonly name: string;
  connect(options: LiveModelConnectOptions): Promise<LiveModelSession>;
}

// ---------------------------------------------------------------------------------------------
// Notes

export interface NotesSink {
  append(event: Omit<NoteEvent, 'id' | 'ts'> & { ts?: number }): NoteEvent;
}
