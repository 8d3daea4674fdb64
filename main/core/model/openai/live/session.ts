// One conversation with GPT-Live (`gpt-live-1.1`) over its primary WebSocket. GPT-Live is full
// duplex: there are no responses, turns or interruption events on the wire, only a stream of model
// audio and transcript fragments while the model decides itself when to speak and when to yield.
// The bridge's contract has turns, so this session derives them from the audio stream:
// - a turn opens with the first audio delta and ends after `turnGapMs` without audio;
// - if the user spoke over the model (the bridge says so, echo-aware: `bargedIn`) and its audio then
//   stops for `bargeInGapMs`, the model yielded to the user: `interrupted` (playback is flushed at
//   once, the model has stopped generating) then `turnComplete`.
// Tools run through Responses delegation (function tools on the backend model): calls arrive as
// nested `response.event` stream events, results go back as `function_call_output` items followed
// by `response.create`. Injected text is `session.commentary.append` ("speakable context").
// Images are not accepted by GPT-Live: frames are refused with `unsupported`.
// After an unexpected close, a new session starts with the recent conversation as `input` (text
// history, at most 128 messages): the thread survives, not the audio.
import type { ClientEvent } from 'openai/resources/live/live';
import type {
  FrameSendResult,
  LiveModelSession,
  LiveModelUsage,
  ToolCallResult,
  ToolDeclaration,
} from '../../../ports.ts';
import type { TimerHandle } from '../../../contracts/clock.ts';
import { assertSupportedImage } from '../../frame-converter.ts';
import { ModelSessionCore, type ModelSessionCoreOptions } from '../../session-core/model-session.ts';
import { PendingToolCalls } from '../../session-core/tool-calls.ts';
import { SocketTotals } from '../../session-core/usage.ts';
import { ConnectFailure } from '../../wire/connect-failure.ts';
import { decodePcm } from '../../wire/pcm-codec.ts';
import { classifyOpenAIFailure } from '../../realtime-wire/failure.ts';
import { ConversationHistory } from '../../realtime-wire/history.ts';
import { handshake } from '../../realtime-wire/handshake.ts';
import { JsonSocket, type JsonEvent } from '../../realtime-wire/json-socket.ts';
import { SpeechInput } from '../../realtime-wire/speech-input.ts';
import {
  audioAppendJson,
  buildSessionStart,
  commentaryAppend,
  errorEvent,
  functionCallOutput,
  outputAudioDelta,
  RESPONSE_CREATE,
  responseFunctionCall,
  SESSION_CLOSE,
  personaAppend,
  thinkingAppend,
  sessionClosed,
  sessionStarted,
  transcriptDelta,
  usageUpdated,
} from './events.ts';

export interface LiveSessionOptions extends ModelSessionCoreOptions {
  /** e.g. wss://api.openai.com/v1; `/live/sessions` is appended. */
  baseUrl: string;
  apiKey: string;
  voice: string;
  delegationModel: string;
  systemInstruction?: string;
  tools: ToolDeclaration[];
  handshakeTimeoutMs: number;
  /** Quiet model audio that ends a turn. */
  turnGapMs: number;
  /** Quiet model audio, after the user spoke over it, that counts as the model yielding. */
  bargeInGapMs: number;
  /** Model silence after the last tool result that releases the text queue (the model chose not to speak). */
  toolReplyWaitMs: number;
}
export class OpenAILiveSession extends ModelSessionCore implements LiveModelSession {
  readonly #o: LiveSessionOptions;
  #socket: JsonSocket | null = null;
  #sessionId: string | null = null;
  #nextEventId = 1;
  readonly #history = new ConversationHistory();
  #turnOpen = false;
  #lastAudioAt = 0;
  #userSpokeOverModel = false;
  #turnTimer: TimerHandle | null = null;
  #toolReplyTimer: TimerHandle | null = null;
  /** Tool results that came while no socket was open. */
  readonly #resultsWhileOffline: ToolCallResult[] = [];
  #replyText = '';
  #inputText = '';
  /** Calls waiting for a result, by the socket that asked (a result for an older one is spoken as commentary). */
  readonly #calls = new PendingToolCalls<JsonSocket>();
  /** Audio seconds billed over every socket (each reports its own running total, never increments). */
  readonly #usageSeconds = new SocketTotals();
  readonly #stats = { connectionAttempts: 0, serverErrors: 0, interruptions: 0, audioChunksDropped: 0 };
  /** User audio (sent live, and kept until answered: a new session hears it again; no resumption). */
  readonly #speech = new SpeechInput(audioAppendJson);
  /**
   * Texts written on the current socket that the model has not begun to answer: a socket that ends
   * first takes them with it (the next session has no resumption), so they are written again on the
   * next one, never `delivered` and lost. They join the history once the model answers them.
   */
  #unspokenTexts: string[] = [];

  constructor(options: LiveSessionOptions) {
    super(options);
    this.#o = options;
  }

  get stats(): Record<string, number> {
    return { ...this.#stats, reconnects: this.life.reconnects, usageSeconds: this.usage().audioSeconds ?? 0 };
  }

  /** GPT-Live bills per active/standby minute: cumulative audio seconds over every socket of the call. */
  usage(): LiveModelUsage {
    const seconds = this.#usageSeconds.total;
    return { audioSeconds: seconds, billedMinutes: Math.ceil(seconds / 60) };
  }

  sendAudio(pcm16kMono: Int16Array): void {
    // Before the socket check: a user talking through a reconnect is still talking when it ends,
    // so a queued text must not go out over them.
    this.texts.userAudio();
    // Not sent live while no socket is open; kept (up to 5 s) for the next session.
    if (!this.#speech.write(this.#socket, pcm16kMono)) this.#stats.audioChunksDropped++;
  }

  /** The bridge heard the user talk over the reply (echo-aware, unlike the input's level alone): a quiet gap now is a yield. */
  bargedIn(): void {
    if (!this.#turnOpen || this.#userSpokeOverModel) return;
    this.#userSpokeOverModel = true;
    this.#armTurnCheck(); // the shorter barge-in gap now applies
  }

  /** Nothing goes on the wire: GPT-Live "starts and ends its own turns" (no client event ends one). */
  endAudioInput(): void {
    this.#speech.end(this.#socket, false);
    this.texts.userAudioEnded();
  }

  /** GPT-Live has no turn-detection setting (docs/audio.md "Patience"): the bridge's paced silence is all it needs. */
  setPatience(): void {
    // Nothing to send: the model's own timing decides.
  }

  /** Images are not accepted by GPT-Live: checked like any frame, then refused. */
  override async sendFrame(image: Buffer): Promise<FrameSendResult> {
    assertSupportedImage(image);
    return { status: 'dropped', reason: 'unsupported_by_model' };
  }

  protected sendFrameNow(): Promise<FrameSendResult> {
    return Promise.resolve({ status: 'dropped', reason: 'unsupported_by_model' });
  }

  /** Who is speaking now, as silent thinking context: never spoken, starts and cuts off nothing. */
  addContext(text: string): boolean {
    if (!this.#socket?.isOpen) return false;
    this.#send(thinkingAppend(text));
    return true;
  }

  sendToolResult(result: ToolCallResult): void {
    const output = JSON.stringify(result.response);
    const call = this.#calls.settle(result.id);
    const args = call?.arguments ?? '{}';
    this.#history.add({ kind: 'tool', callId: result.id, name: result.name, arguments: args, output });
    if (!this.#socket?.isOpen) {
      // In the history the next session starts with, as a past note; it is handed over again as
      // speakable context once that session is up (connect), or nobody would answer it.
      this.#resultsWhileOffline.push(result);
      this.#o.logger.warn({ tool: result.name, callId: result.id }, 'tool result kept for replay: no live connection');
      return;
    }
    if (call?.socket !== this.#socket) {
      // The call belongs to a session that has since dropped: hand its result over as speakable context.
      this.#sendOrphanResult(result, output);
      return;
    }
    this.#send(functionCallOutput(result.id, output));
    if (!this.#calls.pendingOn(this.#socket)) {
      this.#send(RESPONSE_CREATE);
      this.#awaitReplyToTools();
    }
  }

  #sendOrphanResult(result: ToolCallResult, output = JSON.stringify(result.response)): void {
    this.#send(commentaryAppend(`The ${result.name} tool finished: ${output}`));
    this.#awaitReplyToTools();
  }

  /**
   * The tool call held the text queue (the answer comes after the result); if the model says
   * nothing within `toolReplyWaitMs` of the last result, release it, or /say and voice
   * notifications would wait for a turn that never comes.
   */
  #awaitReplyToTools(): void {
    this.#o.clock.clearTimeout(this.#toolReplyTimer);
    this.#toolReplyTimer = this.#o.clock.setTimeout(() => {
      this.#toolReplyTimer = null;
      if (!this.#turnOpen) this.texts.modelTurnEnded();
    }, this.#o.toolReplyWaitMs);
  }

  async close(): Promise<void> {
    if (!this.closeCore()) return;
    this.#stopTurnTimer();
    this.#o.clock.clearTimeout(this.#toolReplyTimer);
    const socket = this.#socket;
    this.#socket = null;
    if (socket?.isOpen) {
      socket.send(SESSION_CLOSE);
      socket.close(1000, 'bye');
    }
    this.#o.logger.info(
      { usageSeconds: this.usage().audioSeconds, billedMinutes: this.usage().billedMinutes },
      'gpt-live session usage',
    );
    this.life.set('disconnected', 'closed');
  }

  // --- connections -------------------------------------------------------------------------

  protected async connect(): Promise<void> {
    const connection = await this.dial({
      label: 'GPT-Live',
      open: (model) => this.#openOne(model),
      discard: (c) => c.close(),
      classify: classifyOpenAIFailure,
    });
    this.#usageSeconds.nextSocket();
    this.#socket = connection;
    // After the history (session.start input): the words the old session heard but never answered.
    this.#speech.replay(connection);
    for (const result of this.#resultsWhileOffline.splice(0)) this.#sendOrphanResult(result);
    this.texts.tryFlush();
  }

  async #openOne(model: string): Promise<JsonSocket> {
    this.#stats.connectionAttempts++;
    const url = `${this.#o.baseUrl.replace(/\/+$/, '')}/live/sessions`;
    const socket = await JsonSocket.open({
      url,
      apiKey: this.#o.apiKey,
      scrub: this.#o.scrub,
      timeoutMs: this.#o.handshakeTimeoutMs,
    });
    const startId = `evt_start_${this.#nextEventId++}`;
    const o = this.#o;
    const start = {
      model,
      voice: o.voice,
      instructions: o.systemInstruction,
      tools: o.tools,
      delegationModel: o.delegationModel,
      history: this.#history.items,
    };
    try {
      this.#sessionId = await handshake(socket, {
        clock: o.clock,
        timeoutMs: o.handshakeTimeoutMs,
        timeoutReason: 'no session.started within the handshake timeout',
        begin: () => socket.send(buildSessionStart(start, startId)),
        onEvent: (event) => {
          if (event.type === 'session.started') {
            const parsed = sessionStarted.safeParse(event);
            return parsed.success ? parsed.data.session.id : new ConnectFailure(null, 'malformed session.started');
          }
          if (event.type !== 'error') return undefined;
          const parsed = errorEvent.safeParse(event);
          return new ConnectFailure(
            null,
            o.scrub(
              parsed.success ? `${parsed.data.error.code}: ${parsed.data.error.message}` : 'malformed error event',
            ),
          );
        },
      });
    } catch (err) {
      socket.close();
      throw err;
    }
    socket.attach({
      onEvent: (event) => this.#onEvent(event, socket),
      onClose: (code, reason) => this.#onClose(code, reason, socket),
    });
    this.#o.logger.info(
      { model, session: this.#sessionId, replayed: this.#history.items.length },
      'gpt-live connected',
    );
    return socket;
  }

  #onClose(code: number, reason: string, socket: JsonSocket): void {
    if (this.life.closed || socket !== this.#socket) return;
    this.#socket = null;
    this.#o.logger.warn({ code, reason }, 'gpt-live connection closed unexpectedly');
    // The user talking over the model when its socket went: the model was yielding (flush playback).
    this.#endTurn(this.#userSpokeOverModel);
    // Also when no audio turn was open (a tool cycle): nothing will answer on this socket now.
    this.#o.clock.clearTimeout(this.#toolReplyTimer);
    this.#toolReplyTimer = null;
    this.texts.modelTurnEnded();
    const unspoken = this.#unspokenTexts.splice(0);
    if (unspoken.length > 0) {
      this.#o.logger.info(
        { texts: unspoken.length },
        'texts written on a socket that ended before the model answered them: written again on the next',
      );
      this.texts.requeue(unspoken);
    }
    void this.#reconnect(`connection closed (${code}${reason ? `: ${reason}` : ''})`);
  }

  #reconnect(reason: string): Promise<void> {
    return this.reconnectWith(reason, () => `new session, ${this.#history.items.length} history items replayed`);
  }

  // --- output ------------------------------------------------------------------------------

  #onEvent(event: JsonEvent, socket: JsonSocket): void {
    if (this.life.closed || socket !== this.#socket) return;
    switch (event.type) {
      case 'session.output_audio.delta': {
        const parsed = outputAudioDelta.safeParse(event);
        if (!parsed.success) return this.#malformed(event);
        this.#lastAudioAt = this.#o.clock.now();
        if (!this.#turnOpen) {
          this.#speech.answered();
          for (const text of this.#unspokenTexts.splice(0)) this.#history.add({ kind: 'user', text });
          this.#openTurn();
          // The model took its turn: the user's is over by its own rule.
          this.emit('userTurnEnded');
        }
        this.emit('audio', decodePcm(parsed.data.delta));
        return;
      }
      case 'session.output_transcript.delta':
      case 'session.input_transcript.delta': {
        const parsed = transcriptDelta.safeParse(event);
        if (!parsed.success) return this.#malformed(event);
        if (event.type === 'session.output_transcript.delta') {
          this.#replyText += parsed.data.delta;
          this.emit('outputTranscript', parsed.data.delta);
        } else {
          this.#inputText += parsed.data.delta;
          this.emit('inputTranscript', parsed.data.delta);
        }
        return;
      }
      case 'response.event': {
        const parsed = responseFunctionCall.safeParse(event);
        if (!parsed.success) return; // other Responses stream events (text deltas, lifecycle)
        const { call_id: id, name, arguments: raw } = parsed.data.event.item;
        if (this.#calls.has(id)) return;
        const call = this.#calls.ask(id, name, raw, socket);
        this.modelActivity();
        this.emit('toolCall', call);
        return;
      }
      case 'session.usage.updated': {
        const parsed = usageUpdated.safeParse(event);
        if (parsed.success) this.#usageSeconds.report(parsed.data.usage.seconds);
        return;
      }
      case 'session.closed': {
        const parsed = sessionClosed.safeParse(event);
        if (parsed.success) this.#usageSeconds.report(parsed.data.usage.seconds);
        this.#o.logger.info(
          { reason: parsed.success ? parsed.data.reason : 'unknown' },
          'gpt-live session closed by the service',
        );
        return;
      }
      case 'error': {
        const parsed = errorEvent.safeParse(event);
        if (!parsed.success) return this.#malformed(event);
        this.#stats.serverErrors++;
        const { error } = parsed.data;
        this.#o.logger.warn(
          { code: error.code, type: error.type, param: error.param, message: this.#o.scrub(error.message) },
          'gpt-live error event',
        );
        return;
      }
      default:
        return;
    }
  }

  #openTurn(): void {
    this.#o.clock.clearTimeout(this.#toolReplyTimer);
    this.#toolReplyTimer = null;
    this.#turnOpen = true;
    this.#userSpokeOverModel = false;
    this.#replyText = '';
    this.#flushInputText();
    this.modelActivity();
    this.#armTurnCheck();
  }

  /**
   * Check the turn when the quiet gap would be complete if no audio came meanwhile (not on a poll:
   * a 50 ms poll woke the process 20 times a second for as long as the model talked). Audio that
   * arrives meanwhile only moves `#lastAudioAt`; the check then waits for the new deadline.
   */
  #armTurnCheck(): void {
    this.#stopTurnTimer();
    const gapMs = this.#userSpokeOverModel ? this.#o.bargeInGapMs : this.#o.turnGapMs;
    this.#turnTimer = this.#o.clock.setTimeout(
      () => this.#checkTurn(),
      this.#lastAudioAt + gapMs - this.#o.clock.now(),
    );
  }

  #checkTurn(): void {
    this.#turnTimer = null;
    if (!this.#turnOpen || this.life.closed) return;
    const quietMs = this.#o.clock.now() - this.#lastAudioAt;
    if (this.#userSpokeOverModel && quietMs >= this.#o.bargeInGapMs) return this.#endTurn(true);
    if (quietMs >= this.#o.turnGapMs) return this.#endTurn(false);
    this.#armTurnCheck();
  }

  #endTurn(yielded: boolean): void {
    this.#stopTurnTimer();
    if (!this.#turnOpen) return;
    this.#turnOpen = false;
    if (this.#replyText)
      this.#history.add({ kind: 'assistant', text: yielded ? `${this.#replyText} …` : this.#replyText });
    this.#replyText = '';
    if (yielded) this.#stats.interruptions++;
    this.endTurn({ interrupted: yielded });
  }

  #flushInputText(): void {
    if (this.#inputText) this.#history.add({ kind: 'user', text: this.#inputText });
    this.#inputText = '';
  }

  #stopTurnTimer(): void {
    this.#o.clock.clearTimeout(this.#turnTimer);
    this.#turnTimer = null;
  }

  protected deliverTexts(texts: readonly string[]): boolean {
    if (!this.#socket?.isOpen) return false;
    const text = texts.join('\n');
    this.#send(commentaryAppend(text));
    this.#unspokenTexts.push(text);
    return true;
  }

  /** A new persona mid-session is appended (GPT-Live cannot replace instructions); too long, or new tools: next session. */
  updateContext(update: { systemInstruction?: string; tools?: ToolDeclaration[] }): boolean {
    if (update.tools) this.#o.tools = update.tools;
    if (update.systemInstruction === undefined) return false;
    this.#o.systemInstruction = update.systemInstruction;
    const append = personaAppend(update.systemInstruction);
    if (!append || !this.#socket?.isOpen) return false;
    this.#send(append);
    return !update.tools;
  }

  #send(event: ClientEvent): void {
    this.#socket?.send(event);
  }

  #malformed(event: JsonEvent): void {
    this.#stats.serverErrors++;
    this.#o.logger.warn({ type: event.type }, 'gpt-live: malformed server event skipped');
  }
}
