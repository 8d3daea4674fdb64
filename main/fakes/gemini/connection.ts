// One client connection as the fake Gemini Live service sees it: everything the client sends is
// recorded (decoded), and the test or demo scripts what the "model" sends back, in the message
// shapes of the public BidiGenerateContent protocol (protocols.md §1.4-1.5).
import type { WebSocket } from 'ws';
import { FakeConnection } from '../shared/fake-connection.ts';
import type { PacedReply } from '../shared/paced-reply.ts';
import { activitySettings, durationOf, TurnDetector, type ActivitySettings } from './activity.ts';
import { base64ToPcm, concatPcm, MODEL_INPUT_RATE, MODEL_OUTPUT_RATE, pcmToBase64, rateOf, rms, tone } from './pcm.ts';
import { inputTranscription } from './transcripts.ts';
import type {
  FunctionResponseRecord,
  JsonObject,
  PendingToolCall,
  RecordedAudio,
  RecordedFrame,
  ReplyOutcome,
  ReplyScript,
} from './types.ts';
import { AUDIO_TOKENS_PER_SECOND, FakeUsageMeter, IMAGE_TOKENS, textTokens, type GeminiUsageSent } from './usage.ts';
import type { FakeConnectionEvents, GeminiConnectionHooks, UserTurnEnd } from './hooks.ts';

export type { GeminiUsageSent } from './usage.ts';
export type { FakeConnectionEvents, UserTurnEnd } from './hooks.ts';
export type FakeConnectionHooks = GeminiConnectionHooks<FakeGeminiConnection>; // what the server lends (hooks.ts)
export type {
  FunctionResponseRecord,
  JsonObject,
  PendingToolCall,
  RecordedAudio,
  RecordedFrame,
  ReplyOutcome,
  ReplyScript,
} from './types.ts';

export class FakeGeminiConnection extends FakeConnection<FakeConnectionEvents> {
  readonly path: string;
  readonly apiVersion: string;
  readonly key: string | null;
  setup: JsonObject | null = null;
  model: string | null = null;
  /** Conversation id in the fake's session store; the same across resumed connections. */
  sessionId: string | null = null;
  resumedWithHandle: string | null = null;
  readonly received: JsonObject[] = [];
  readonly audio: RecordedAudio[] = [];
  readonly frames: RecordedFrame[] = [];
  readonly texts: string[] = [];
  readonly clientContents: JsonObject[] = [];
  readonly toolResponses: FunctionResponseRecord[] = [];
  readonly contextUpdates: JsonObject[] = [];
  audioStreamEnds = 0;
  /** audioStreamEnd messages sent while automatic activity detection was off (the service ignores them). */
  ignoredAudioStreamEnds = 0;
  /** Every end of a user turn on this socket, in order (on the audio clock: samples received). */
  readonly userTurnEnds: UserTurnEnd[] = [];
  /** A user turn ended in the message being handled (what autoReply answers); cleared by takeUserTurnEnd. */
  #pendingTurnEnd: UserTurnEnd | null = null;
  /** The setup's activity detection (realtimeInputConfig), and its detector on the audio received. */
  #activity: ActivitySettings = activitySettings({});
  readonly #detector = new TurnDetector(this.#activity.window);
  /** activityStart seen and no activityEnd yet (automatic detection off). */
  #manualActivity = false;
  /** Everything this connection sent to the client, in order. */
  readonly sent: JsonObject[] = [];
  readonly issuedHandles: string[] = [];
  /**
   * Which strictness rule refused this socket (e.g. `unknown setup field "voice"`), for tests and
   * logs: the close reason itself is the service's generic text.
   */
  refusedFor: string | null = null;
  /**
   * The setup announced initial history in `clientContent` (`historyConfig.
   * initialHistoryInClientContent`) and its `turnComplete` has not come yet: until then a model that
   * refuses mid-session `clientContent` still takes it.
   */
  initialHistoryOpen = false;
  /** Audio samples received since the last model turn started (what an auto-reply answers). */
  samplesSinceTurn = 0;
  /** Every usageMetadata this socket sent (tests compare the client's accounting with it). */
  readonly usageSent: GeminiUsageSent[] = [];
  readonly #usage = new FakeUsageMeter();
  /**
   * Client messages are numbered per socket from 0 (the `setup`); the last one consumed is what a
   * transparent `sessionResumptionUpdate` reports as `lastConsumedClientMessageIndex`.
   */
  lastConsumedIndex = 0;
  /** The setup asked for `transparent` resumption and the fake sends the index (strict.transparentResumption). */
  transparent = false;
  /** Tool calls this socket asked and that were neither answered nor cancelled, by id. */
  readonly outstandingToolCalls = new Map<string, PendingToolCall>();
  /**
   * On a resumed socket: what the handle restored. `pendingToolCalls` are the calls the session was
   * waiting for when the handle was issued (calls asked after it are unknown to this session);
   * `turnsDropped` counts history entries after the handle, gone from the conversation.
   */
  restoredFrom: { handle: string; pendingToolCalls: PendingToolCall[]; turnsDropped: number } | null = null;
  /** On a resumed socket with `pendingToolCallsOnResume: 'reask'`: the restored pending calls, asked again. */
  reaskedToolCalls: Promise<FunctionResponseRecord[]> | null = null;
  /** While stalled the "model" is silent: nothing is sent, the socket stays open. */
  #stalled = false;
  #replyActive: PacedReply<ReplyOutcome> | null = null;
  readonly #hooks: FakeConnectionHooks;

  constructor(
    socket: WebSocket,
    init: {
      index: number;
      path: string;
      apiVersion: string;
      key: string | null;
      headers: Record<string, string | string[] | undefined>;
    },
    hooks: FakeConnectionHooks,
  ) {
    super(
      socket,
      { index: init.index, headers: init.headers, name: 'fake gemini', trafficEvent: 'message' },
      hooks.timing,
    );
    this.#hooks = hooks;
    this.path = init.path;
    this.apiVersion = init.apiVersion;
    this.key = init.key;
  }

  protected socketClosed(code: number, reason: string): void {
    this.#replyActive?.stop('closed');
    this.emit('close', code, reason);
  }

  get replying(): boolean {
    return this.#replyActive !== null;
  }

  /** All input audio of this connection, concatenated. */
  inputPcm(): Int16Array {
    return concatPcm(this.audio.map((a) => a.pcm));
  }

  get inputSamples(): number {
    return this.audio.reduce((n, a) => n + a.pcm.length, 0);
  }

  // --- what the client sent (called by the server) -----------------------------------------

  /** Records one post-setup client message and reacts like the service would. */
  handleClientMessage(message: JsonObject): void {
    this.received.push(message);
    this.lastConsumedIndex++;
    const realtime = message.realtimeInput as JsonObject | undefined;
    if (realtime) this.#onRealtimeInput(realtime);
    const content = message.clientContent as JsonObject | undefined;
    if (content) {
      this.clientContents.push(content);
      // Gemini 3.8: `turnComplete: true` unconditionally interrupts an active generation.
      if (content.turnComplete === true && this.#replyActive) this.interrupt();
      if (content.turnComplete === true) this.markTurnEnd();
      for (const turn of (content.turns as JsonObject[] | undefined) ?? []) {
        for (const part of (turn.parts as JsonObject[] | undefined) ?? []) {
          if (typeof part.text === 'string') {
            this.#hooks.recordHistory(this, 'user', part.text);
            this.#usage.addInput('TEXT', textTokens(part.text));
          }
        }
      }
    }
    const toolResponse = message.toolResponse as JsonObject | undefined;
    if (toolResponse) {
      for (const response of (toolResponse.functionResponses as FunctionResponseRecord[] | undefined) ?? []) {
        if (this.#hooks.strict.matchToolResponseIds && !(response.id && this.outstandingToolCalls.has(response.id))) {
          // An answer to a call this socket never made (e.g. one asked on an earlier socket).
          this.refuse(
            1007,
            `Request contains an invalid argument. Function response id ${response.id ?? ''} does not match a pending call.`,
          );
          return;
        }
        if (response.id) this.outstandingToolCalls.delete(response.id);
        this.toolResponses.push(response);
        if (response.id) this.toolAnswered(response.id, response);
      }
    }
    if (message.contextUpdate) this.contextUpdates.push(message.contextUpdate as JsonObject);
    this.emit('message', message);
  }

  /** The setup's realtimeInputConfig, read by the server (activity.ts readActivitySettings). */
  configureActivity(settings: ActivitySettings): void {
    this.#activity = settings;
    this.#detector.setWindow(settings.window);
  }

  get activity(): Readonly<ActivitySettings> {
    return this.#activity;
  }

  /** The user's turn is open: speech detected (or activityStart) and not yet ended. */
  get userSpeaking(): boolean {
    return this.#activity.automatic ? this.#detector.speaking : this.#manualActivity;
  }

  /** The turn end the last client message brought, once (autoReply answers it). */
  takeUserTurnEnd(): UserTurnEnd | null {
    const end = this.#pendingTurnEnd;
    this.#pendingTurnEnd = null;
    return end;
  }

  #onRealtimeInput(realtime: JsonObject): void {
    const audio = realtime.audio as { data?: string; mimeType?: string } | undefined;
    if (audio?.data) this.#onAudio(base64ToPcm(audio.data), audio.mimeType);
    for (const chunk of (realtime.mediaChunks as { data?: string; mimeType?: string }[] | undefined) ?? []) {
      if (chunk.mimeType?.startsWith('image/') && chunk.data)
        this.frames.push({ data: Buffer.from(chunk.data, 'base64'), mimeType: chunk.mimeType });
      // The older `media` form (mediaChunks) is audio the service hears like `audio`.
      else if (chunk.data) this.#onAudio(base64ToPcm(chunk.data), chunk.mimeType);
    }
    const video = realtime.video as { data?: string; mimeType?: string } | undefined;
    if (video?.data) {
      this.frames.push({ data: Buffer.from(video.data, 'base64'), mimeType: video.mimeType ?? '' });
      this.#usage.addInput('IMAGE', IMAGE_TOKENS);
    }
    if (typeof realtime.text === 'string') {
      this.texts.push(realtime.text);
      this.#usage.addInput('TEXT', textTokens(realtime.text));
      this.#hooks.recordHistory(this, 'user', realtime.text);
      this.markTurnEnd();
    }
    if (realtime.audioStreamEnd === true) this.#onAudioStreamEnd();
    if (realtime.activityStart !== undefined) this.#onActivityStart();
    if (realtime.activityEnd !== undefined && this.#manualActivity) {
      this.#manualActivity = false;
      this.#userTurnEnded('activityEnd');
    }
  }

  #onAudio(pcm: Int16Array, mimeType: string | undefined): void {
    const rate = rateOf(mimeType);
    this.audio.push({ pcm, rate, mimeType: mimeType ?? '' });
    this.samplesSinceTurn += pcm.length;
    this.#hooks.consumedAudio(this, pcm.length);
    this.#usage.addInput('AUDIO', (pcm.length / (rate ?? 16000)) * AUDIO_TOKENS_PER_SECOND);
    if (!this.#activity.automatic) return;
    // START_OF_ACTIVITY_INTERRUPTS (the default): loud input cuts the model off.
    if (
      this.#replyActive &&
      this.#activity.interrupts &&
      this.#hooks.bargeInRms !== null &&
      rms(pcm) > this.#hooks.bargeInRms
    )
      this.interrupt();
    const change = this.#detector.feed(pcm);
    if (change === 'started') this.#voiceActivity('ACTIVITY_START', this.#detector.startedAt);
    if (change === 'ended') {
      this.#voiceActivity('ACTIVITY_END', this.#detector.endedAt);
      this.#userTurnEnded('detected');
    }
  }

  /**
   * With automatic detection the client's flush ("the audio stream has ended") ends a turn in
   * progress at once (the bridge sends it after the service's own end or its silence cap). Without
   * it the message "should only be sent when automatic activity detection is enabled" (genai.d.ts
   * LiveSendRealtimeInputParameters.audioStreamEnd): the fake ignores it (counted).
   */
  #onAudioStreamEnd(): void {
    this.audioStreamEnds++;
    if (!this.#activity.automatic) {
      this.ignoredAudioStreamEnds++;
      return;
    }
    if (!this.#detector.end()) return;
    this.#voiceActivity('ACTIVITY_END', this.#detector.endedAt);
    this.#userTurnEnded('audioStreamEnd');
  }

  /** activityStart (automatic detection off; the server refuses it otherwise): the user's turn opens and cuts a reply. */
  #onActivityStart(): void {
    this.#manualActivity = true;
    if (this.#replyActive && this.#activity.interrupts) this.interrupt();
  }

  #userTurnEnded(by: UserTurnEnd['by']): void {
    // Detected: the quiet counted when the window filled (the end may fall inside a chunk); a flush: all the quiet received.
    const quietSamples =
      by === 'activityEnd'
        ? 0
        : by === 'detected'
          ? this.#detector.endQuietSamples
          : this.#detector.receivedSamples - this.#detector.endedAt;
    const end = { by, atSample: this.inputSamples, quietSamples };
    this.userTurnEnds.push(end);
    this.#pendingTurnEnd = end;
    // The end of the user's turn the service answers (its first audio follows after its latency).
    this.markTurnEnd();
    this.emit('userTurnEnd', end);
  }

  /** `voiceActivity` as 3.8 sends it (Firebase LiveServerVoiceActivity; genai.d.ts VoiceActivity): where on the audio clock speech began or stopped. */
  #voiceActivity(type: 'ACTIVITY_START' | 'ACTIVITY_END', atSample: number): void {
    if (this.#hooks.voiceActivity(this))
      this.send({ voiceActivity: { voiceActivityType: type, audioOffset: durationOf(atSample, MODEL_INPUT_RATE) } });
  }

  // --- what the "model" sends --------------------------------------------------------------

  send(message: JsonObject): void {
    if (!this.isOpen || this.#stalled) return;
    this.sent.push(message);
    const json = JSON.stringify(message);
    this.socket.send(this.#hooks.framing === 'binary' ? Buffer.from(json) : json);
  }

  /**
   * Speak: input transcription (optional), then audio chunks with the output transcription spread
   * over them, then generationComplete + turnComplete and a fresh resumption handle. Resolves with
   * how the turn ended (barge-in, clientContent and close all stop it).
   */
  reply(script: ReplyScript = {}): Promise<ReplyOutcome> {
    this.#replyActive?.stop('interrupted');
    const pcm = script.pcm ?? tone(script.toneMs ?? 400);
    this.samplesSinceTurn = 0;
    let generated = false;
    const reply: PacedReply<ReplyOutcome> = this.pacedReply<ReplyOutcome>(
      script,
      MODEL_OUTPUT_RATE,
      pcm,
      {
        begin: () => {
          const [early, late] = inputTranscription(script.inputTranscript, this.#hooks.strict.lateInputTranscript);
          if (early) this.send(early);
          // The rest of the user's words arrive after the model's first audio.
          if (late) this.later(() => this.send(late), 1);
          // Mid-generation the session is not resumable (protocols.md §1.5).
          if (this.#resumable) this.send({ sessionResumptionUpdate: { resumable: false } });
          if (script.transcript) this.#hooks.recordHistory(this, 'model', script.transcript);
        },
        chunk: (chunk, words) => {
          this.send({
            serverContent: {
              modelTurn: {
                parts: [{ inlineData: { mimeType: `audio/pcm;rate=${MODEL_OUTPUT_RATE}`, data: pcmToBase64(chunk) } }],
              },
            },
          });
          if (words) this.send({ serverContent: { outputTranscription: { text: words } } });
        },
        finish: () => {
          if (script.complete === false) return 'complete';
          if (!generated) {
            generated = true;
            this.send({ serverContent: { generationComplete: true } });
            // turnComplete waits for the reply's playback (strict.turnCompleteAtPlaybackEnd).
            const playsUntil = reply.startedAt + (pcm.length / MODEL_OUTPUT_RATE) * 1000;
            const wait = this.#hooks.strict.turnCompleteAtPlaybackEnd ? playsUntil - Date.now() : 0;
            if (wait > 0) return { waitMs: wait };
          }
          this.#sendTurnComplete();
          this.#sendUsage(Math.ceil((pcm.length / MODEL_OUTPUT_RATE) * AUDIO_TOKENS_PER_SECOND));
          if (this.#resumable) this.resumptionUpdate();
          return 'complete';
        },
        ended: () => {
          if (this.#replyActive === reply) this.#replyActive = null;
        },
      },
      1,
    );
    this.#replyActive = reply;
    return reply.done;
  }

  #sendUsage(responseAudioTokens: number): void {
    const usage = this.#usage.report(responseAudioTokens, this.setup);
    this.usageSent.push(usage);
    this.send({ usageMetadata: usage as unknown as JsonObject });
  }

  /**
   * The model stops (barge-in): `interrupted`, then `turnComplete` (no generationComplete).
   * `turnComplete: false`: the fault of a service whose turnComplete never follows (the reply still stops).
   */
  interrupt({ turnComplete = true }: { turnComplete?: boolean } = {}): void {
    const active = this.#replyActive;
    this.#replyActive = null;
    active?.stop('interrupted');
    this.send({ serverContent: { interrupted: true } });
    if (turnComplete) this.#sendTurnComplete();
    if (this.#resumable) this.resumptionUpdate();
  }

  turnComplete(): void {
    this.#sendTurnComplete();
  }

  /**
   * The extended-thinking model reports `interactionStatus` with every turnComplete: IN_PROGRESS
   * while a (NON_BLOCKING) call it asked is still unanswered, IDLE otherwise (strictness.ts MODEL_RULES).
   */
  #sendTurnComplete(): void {
    if (!this.#hooks.interactionStatus(this)) return this.send({ serverContent: { turnComplete: true } });
    this.send({
      serverContent: {
        turnComplete: true,
        interactionStatus: this.outstandingToolCalls.size > 0 ? 'IN_PROGRESS' : 'IDLE',
      },
    });
  }

  /** Sends a toolCall and resolves with the client's matching functionResponses (by id). */
  async toolCall(
    calls: { id?: string; name: string; args?: JsonObject }[],
    timeoutMs = 10_000,
  ): Promise<FunctionResponseRecord[]> {
    const withIds = calls.map((call, i) => ({
      id: call.id ?? `call-${this.index}-${Date.now().toString(36)}-${i}`,
      name: call.name,
      args: call.args ?? {},
    }));
    const waits = withIds.map((call) => this.awaitToolAnswer<FunctionResponseRecord>(call.id, timeoutMs));
    for (const call of withIds) this.outstandingToolCalls.set(call.id, { name: call.name, args: call.args });
    if (this.#resumable) this.send({ sessionResumptionUpdate: { resumable: false } });
    this.send({ toolCall: { functionCalls: withIds } });
    return Promise.all(waits);
  }

  cancelToolCalls(ids: string[]): void {
    for (const id of ids) {
      this.forgetToolCall(id);
      this.outstandingToolCalls.delete(id);
    }
    this.send({ toolCallCancellation: { ids } });
  }

  /** Issues (and returns) a new resumable handle for this conversation. */
  resumptionUpdate(): string {
    const handle = this.#hooks.issueHandle(this);
    this.issuedHandles.push(handle);
    const index = this.transparent ? { lastConsumedClientMessageIndex: String(this.lastConsumedIndex) } : {};
    this.send({ sessionResumptionUpdate: { newHandle: handle, resumable: true, ...index } });
    return handle;
  }

  /** `goAway { timeLeft }`, then (by default) the service's deadline close when the time is up. */
  goAway(timeLeftMs: number, options: { closeAfter?: boolean; code?: number; reason?: string } = {}): void {
    const stalled = this.#stalled;
    this.#stalled = false; // the service's own control messages still arrive during a model stall
    this.send({ goAway: { timeLeft: `${(timeLeftMs / 1000).toFixed(3).replace(/\.?0+$/, '')}s` } });
    this.#stalled = stalled;
    const deadline = this.#hooks.strict.deadlineClose;
    if (options.closeAfter !== false)
      this.later(() => this.close(options.code ?? deadline.code, options.reason ?? deadline.reason), timeLeftMs);
  }

  /** Close with a code and reason (1007/1008/1011 like the service); the reason is cut to 123 bytes. */
  override close(code = 1011, reason = 'Internal error occurred.'): void {
    super.close(code, reason);
  }

  /** Close for a protocol reason (what a strict service refuses); the server is told. */
  refuse(code: number, reason: string): void {
    this.close(code, reason);
    this.#hooks.refused(this, code, this.closeReason);
  }

  /** The model goes quiet with the socket open (reported mid-sentence stalls); `ms` ends it. */
  stall(ms = Number.POSITIVE_INFINITY): void {
    this.#stalled = true;
    if (Number.isFinite(ms)) this.later(() => (this.#stalled = false), ms);
  }

  get stalled(): boolean {
    return this.#stalled;
  }

  get #resumable(): boolean {
    return Boolean(this.setup && 'sessionResumption' in this.setup);
  }
}
