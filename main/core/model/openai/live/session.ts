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
import { EventEmitter } from 'node:events';
import type { ClientEvent } from 'openai/resources/live/live';
import type { Logger } from 'pino';
import type { ConnectionState } from '../../../api-types.ts';
import { Resampler16kTo24kMono } from '../../../audio/resampler-16k-to-24k.ts';
import type { FrameSendResult, LiveModelEvents, LiveModelSession, LiveModelUsage, TextDelivery, ToolCallResult, ToolDeclaration } from '../../../ports.ts';
import type { Clock, TimerHandle } from '../../clock.ts';
import { assertSupportedImage } from '../../frame-converter.ts';
import { decodePcm, encodePcm } from '../../pcm-codec.ts';
import { TextInjectionQueue } from '../../text-injection.ts';
import type { BackoffOptions } from '../shared/fallback.ts';
import { ConversationHistory } from '../shared/history.ts';
import { SessionLifecycle } from '../shared/lifecycle.ts';
import { UnansweredAudio } from '../shared/unanswered-audio.ts';
import { ConnectFailure, JsonSocket, parseArguments, type JsonEvent } from '../shared/json-socket.ts';
import {
  audioAppendJson,
  buildSessionStart,
  commentaryAppend,
  errorEvent,
  functionCallOutput,
  LIVE_AUDIO_RATE,
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


export interface LiveSessionOptions {
  /** e.g. wss://api.openai.com/v1; `/live/sessions` is appended. */
  baseUrl: string;
  apiKey: string;
  models: readonly string[];
  voice: string;
  delegationModel: string;
  systemInstruction?: string;
  tools: ToolDeclaration[];
  logger: Logger;
  clock: Clock;
  scrub: (text: string) => string;
  backoff: BackoffOptions;
  formatInjectedText: (text: string) => string;
  handshakeTimeoutMs: number;
  /** Quiet model audio that ends a turn. */
  turnGapMs: number;
  /** Quiet model audio, after the user spoke over it, that counts as the model yielding. */
  bargeInGapMs: number;
  /** Model silence after the last tool result that releases the text queue (the model chose not to speak). */
  toolReplyWaitMs: number;
  replyWaitMs?: number;
}

/** 600 ms of silence at 24 kHz after the gate closes: the model hears the pause, not a cut. */
const END_OF_SPEECH_SILENCE_JSON = audioAppendJson(encodePcm(new Int16Array((LIVE_AUDIO_RATE * 600) / 1000)));
export class OpenAILiveSession extends EventEmitter<LiveModelEvents> implements LiveModelSession {
  readonly #o: LiveSessionOptions;
  readonly #life: SessionLifecycle;
  #modelIndex = 0;
  #socket: JsonSocket | null = null;
  #sessionId: string | null = null;
  #nextEventId = 1;
  readonly #history = new ConversationHistory();
  readonly #resampler = new Resampler16kTo24kMono();
  readonly #texts: TextInjectionQueue;
  #turnOpen = false;
  #lastAudioAt = 0;
  #userSpokeOverModel = false;
  #turnTimer: TimerHandle | null = null;
  #toolReplyTimer: TimerHandle | null = null;
  /** Tool results that came while no socket was open. */
  readonly #resultsWhileOffline: ToolCallResult[] = [];
  #replyText = '';
  #inputText = '';
  readonly #pendingCalls = new Map<string, string>();
  /** Calls the model made on the current socket (a result for an older one is spoken as commentary). */
  #callsOnSocket = new Set<string>();
  /** Cumulative audio seconds billed so far (the service reports totals, never increments). */
  #usageSeconds = 0;
  #usageBefore = 0;
  readonly #stats = { connectionAttempts: 0, serverErrors: 0, interruptions: 0, audioChunksDropped: 0 };
  /** User audio the model has not begun answering: sent again on a new session (no resumption). */
  readonly #unanswered = new UnansweredAudio();
  /**
   * Texts written on the current socket that the model has not begun to answer: a socket that ends
   * first takes them with it (the next session has no resumption), so they are written again on the
   * next one, never `delivered` and lost. They join the history once the model answers them.
   */
  #unspokenTexts: string[] = [];

  constructor(options: LiveSessionOptions) {
    super();
    this.#o = options;
    this.#life = new SessionLifecycle(options.clock, (state, reason) => this.emit('state', state, reason));
    this.#texts = new TextInjectionQueue({
      clock: options.clock,
      deliver: (texts) => this.#deliverTexts(texts),
      replyWaitMs: options.replyWaitMs,
      onOverflow: (dropped) => options.logger.warn({ dropped }, 'text injection queue full: oldest texts dropped'),
    });
  }

  get state(): ConnectionState {
    return this.#life.state;
  }

  get model(): string {
    return this.#o.models[this.#modelIndex] ?? this.#o.models[0] ?? '';
  }

  get stats(): Record<string, number> {
    return { ...this.#stats, reconnects: this.#life.reconnects, usageSeconds: this.usage().audioSeconds ?? 0 };
  }

  /** GPT-Live bills per active/standby minute: cumulative audio seconds over every socket of the call. */
  usage(): LiveModelUsage {
    const seconds = this.#usageBefore + this.#usageSeconds;
    return { audioSeconds: seconds, billedMinutes: Math.ceil(seconds / 60) };
  }

  start(): Promise<void> {
    return this.#life.start(() => this.#connect());
  }

  sendAudio(pcm16kMono: Int16Array): void {
    this.#unanswered.push(pcm16kMono);
    // Before the socket check: a user talking through a reconnect is still talking when it ends,
    // so a queued text must not go out over them.
    this.#texts.userAudio();
    const socket = this.#socket;
    if (!socket?.isOpen) {
      // Not sent live; kept (up to 5 s) for the next session.
      this.#stats.audioChunksDropped++;
      return;
    }
    this.#sendAudioTo(socket, pcm16kMono);
  }

  /** The bridge heard the user talk over the reply (echo-aware, unlike the input's level alone): a quiet gap now is a yield. */
  bargedIn(): void {
    if (!this.#turnOpen || this.#userSpokeOverModel) return;
    this.#userSpokeOverModel = true;
    this.#armTurnCheck(); // the shorter barge-in gap now applies
  }

  #sendAudioTo(socket: JsonSocket, pcm16kMono: Int16Array): void {
    socket.sendRaw(audioAppendJson(encodePcm(this.#resampler.process(pcm16kMono))));
  }

  endAudioInput(): void {
    this.#unanswered.end();
    this.#endOfSpeech(this.#socket);
    this.#texts.userAudioEnded();
  }

  #endOfSpeech(socket: JsonSocket | null | undefined): void {
    socket?.sendRaw(END_OF_SPEECH_SILENCE_JSON);
    this.#resampler.reset();
  }

  sendText(text: string, delivery?: TextDelivery): void {
    const trimmed = text.trim();
    if (trimmed) this.#texts.enqueue(delivery?.asMessage ? trimmed : this.#o.formatInjectedText(trimmed), delivery);
    else delivery?.onSettled?.({ delivered: false, reason: 'call_ended' });
  }

  async sendFrame(image: Buffer): Promise<FrameSendResult> {
    assertSupportedImage(image);
    return { status: 'dropped', reason: 'unsupported_by_model' };
  }

  /** Who is speaking now, as silent thinking context: never spoken, starts and cuts off nothing. */
  addContext(text: string): boolean {
    if (!this.#socket?.isOpen) return false;
    this.#send(thinkingAppend(text));
    return true;
  }

  sendToolResult(result: ToolCallResult): void {
    const output = JSON.stringify(result.response);
    const args = this.#pendingCalls.get(result.id) ?? '{}';
    this.#pendingCalls.delete(result.id);
    this.#history.add({ kind: 'tool', callId: result.id, name: result.name, arguments: args, output });
    if (!this.#socket?.isOpen) {
      // In the history the next session starts with, as a past note; it is handed over again as
      // speakable context once that session is up (#connect), or nobody would answer it.
      this.#resultsWhileOffline.push(result);
      this.#o.logger.warn({ tool: result.name, callId: result.id }, 'tool result kept for replay: no live connection');
      return;
    }
    if (!this.#callsOnSocket.has(result.id)) {
      // The call belongs to a session that has since dropped: hand its result over as speakable context.
      this.#sendOrphanResult(result, output);
      return;
    }
    this.#send(functionCallOutput(result.id, output));
    if ([...this.#pendingCalls.keys()].every((id) => !this.#callsOnSocket.has(id))) {
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
      if (!this.#turnOpen) this.#texts.modelTurnEnded();
    }, this.#o.toolReplyWaitMs);
  }

  async close(): Promise<void> {
    if (!this.#life.close()) return;
    this.#stopTurnTimer();
    this.#o.clock.clearTimeout(this.#toolReplyTimer);
    this.#texts.close();
    const socket = this.#socket;
    this.#socket = null;
    if (socket?.isOpen) {
      socket.send(SESSION_CLOSE);
      socket.close(1000, 'bye');
    }
    this.#o.logger.info({ usageSeconds: this.usage().audioSeconds, billedMinutes: this.usage().billedMinutes }, 'gpt-live session usage');
    this.#life.set('disconnected', 'closed');
  }

  // --- connections -------------------------------------------------------------------------

  async #connect(): Promise<void> {
    const { connection, index } = await this.#life.open(
      {
        label: 'GPT-Live',
        models: this.#o.models,
        startIndex: this.#modelIndex,
        backoff: this.#o.backoff,
        logger: this.#o.logger,
        open: (model) => this.#openOne(model),
      },
      (c) => c.close(),
    );
    this.#modelIndex = index;
    this.#usageBefore += this.#usageSeconds;
    this.#usageSeconds = 0;
    this.#socket = connection;
    this.#callsOnSocket = new Set();
    // After the history (session.start input): the words the old session heard but never answered.
    this.#resampler.reset();
    this.#unanswered.replay((pcm) => this.#sendAudioTo(connection, pcm), () => this.#endOfSpeech(connection));
    for (const result of this.#resultsWhileOffline.splice(0)) this.#sendOrphanResult(result);
    this.#texts.tryFlush();
  }

  async #openOne(model: string): Promise<JsonSocket> {
    this.#stats.connectionAttempts++;
    const url = `${this.#o.baseUrl.replace(/\/+$/, '')}/live/sessions`;
    const socket = await JsonSocket.open({ url, apiKey: this.#o.apiKey, scrub: this.#o.scrub, timeoutMs: this.#o.handshakeTimeoutMs });
    const startId = `evt_start_${this.#nextEventId++}`;
    try {
      this.#sessionId = await new Promise<string>((resolve, reject) => {
        const timer = this.#o.clock.setTimeout(() => reject(new ConnectFailure(null, 'no session.started within the handshake timeout')), this.#o.handshakeTimeoutMs);
        const settle = (result: string | ConnectFailure): void => {
          this.#o.clock.clearTimeout(timer);
          if (result instanceof ConnectFailure) reject(result);
          else resolve(result);
        };
        socket.attach({
          onEvent: (event) => {
            if (event.type === 'session.started') {
              const parsed = sessionStarted.safeParse(event);
              settle(parsed.success ? parsed.data.session.id : new ConnectFailure(null, 'malformed session.started'));
            } else if (event.type === 'error') {
              const parsed = errorEvent.safeParse(event);
              settle(new ConnectFailure(null, this.#o.scrub(parsed.success ? `${parsed.data.error.code}: ${parsed.data.error.message}` : 'malformed error event')));
            }
          },
          onClose: (code, reason) => settle(new ConnectFailure(code, reason || 'closed during the handshake')),
        });
        socket.send(
          buildSessionStart(
            { model, voice: this.#o.voice, instructions: this.#o.systemInstruction, tools: this.#o.tools, delegationModel: this.#o.delegationModel, history: this.#history.items },
            startId,
          ),
        );
      });
    } catch (err) {
      socket.close();
      throw err;
    }
    socket.attach({ onEvent: (event) => this.#onEvent(event, socket), onClose: (code, reason) => this.#onClose(code, reason, socket) });
    this.#o.logger.info({ model, session: this.#sessionId, replayed: this.#history.items.length }, 'gpt-live connected');
    return socket;
  }

  #onClose(code: number, reason: string, socket: JsonSocket): void {
    if (this.#life.closed || socket !== this.#socket) return;
    this.#socket = null;
    this.#o.logger.warn({ code, reason }, 'gpt-live connection closed unexpectedly');
    // The user talking over the model when its socket went: the model was yielding (flush playback).
    this.#endTurn(this.#userSpokeOverModel);
    // Also when no audio turn was open (a tool cycle): nothing will answer on this socket now.
    this.#o.clock.clearTimeout(this.#toolReplyTimer);
    this.#toolReplyTimer = null;
    this.#texts.modelTurnEnded();
    const unspoken = this.#unspokenTexts.splice(0);
    if (unspoken.length > 0) {
      this.#o.logger.info({ texts: unspoken.length }, 'texts written on a socket that ended before the model answered them: written again on the next');
      this.#texts.requeue(unspoken);
    }
    void this.#reconnect(`connection closed (${code}${reason ? `: ${reason}` : ''})`);
  }

  #reconnect(reason: string): Promise<void> {
    return this.#life.reconnect(reason, () => this.#connect(), () => `new session, ${this.#history.items.length} history items replayed`);
  }

  // --- output ------------------------------------------------------------------------------

  #onEvent(event: JsonEvent, socket: JsonSocket): void {
    if (this.#life.closed || socket !== this.#socket) return;
    switch (event.type) {
      case 'session.output_audio.delta': {
        const parsed = outputAudioDelta.safeParse(event);
        if (!parsed.success) return this.#malformed(event);
        this.#lastAudioAt = this.#o.clock.now();
        if (!this.#turnOpen) {
          this.#unanswered.answered();
          for (const text of this.#unspokenTexts.splice(0)) this.#history.add({ kind: 'user', text });
          this.#openTurn();
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
        if (this.#pendingCalls.has(id)) return;
        this.#pendingCalls.set(id, raw);
        this.#callsOnSocket.add(id);
        this.#texts.modelActivity();
        this.emit('toolCall', { id, name, args: parseArguments(raw) });
        return;
      }
      case 'session.usage.updated': {
        const parsed = usageUpdated.safeParse(event);
        if (parsed.success) this.#usageSeconds = Math.max(this.#usageSeconds, parsed.data.usage.seconds);
        return;
      }
      case 'session.closed': {
        const parsed = sessionClosed.safeParse(event);
        if (parsed.success) this.#usageSeconds = Math.max(this.#usageSeconds, parsed.data.usage.seconds);
        this.#o.logger.info({ reason: parsed.success ? parsed.data.reason : 'unknown' }, 'gpt-live session closed by the service');
        return;
      }
      case 'error': {
        const parsed = errorEvent.safeParse(event);
        if (!parsed.success) return this.#malformed(event);
        this.#stats.serverErrors++;
        const { error } = parsed.data;
        this.#o.logger.warn({ code: error.code, type: error.type, param: error.param, message: this.#o.scrub(error.message) }, 'gpt-live error event');
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
    this.#texts.modelActivity();
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
    this.#turnTimer = this.#o.clock.setTimeout(() => this.#checkTurn(), this.#lastAudioAt + gapMs - this.#o.clock.now());
  }

  #checkTurn(): void {
    this.#turnTimer = null;
    if (!this.#turnOpen || this.#life.closed) return;
    const quietMs = this.#o.clock.now() - this.#lastAudioAt;
    if (this.#userSpokeOverModel && quietMs >= this.#o.bargeInGapMs) return this.#endTurn(true);
    if (quietMs >= this.#o.turnGapMs) return this.#endTurn(false);
    this.#armTurnCheck();
  }

  #endTurn(yielded: boolean): void {
    this.#stopTurnTimer();
    if (!this.#turnOpen) return;
    this.#turnOpen = false;
    if (this.#replyText) this.#history.add({ kind: 'assistant', text: yielded ? `${this.#replyText} …` : this.#replyText });
    this.#replyText = '';
    if (yielded) {
      this.#stats.interruptions++;
      this.emit('interrupted');
    }
    this.emit('turnComplete');
    this.#texts.modelTurnEnded();
  }

  #flushInputText(): void {
    if (this.#inputText) this.#history.add({ kind: 'user', text: this.#inputText });
    this.#inputText = '';
  }

  #stopTurnTimer(): void {
    this.#o.clock.clearTimeout(this.#turnTimer);
    this.#turnTimer = null;
  }

  #deliverTexts(texts: readonly string[]): boolean {
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
