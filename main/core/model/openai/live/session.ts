// One conversation with GPT-Live (`gpt-live-1.1`) over its primary WebSocket. GPT-Live is full
// duplex: there are no responses, turns or interruption events on the wire, only a stream of model
// audio and transcript fragments while the model decides itself when to speak and when to yield.
// The bridge's contract has turns, so this session derives them from the audio stream
// (audio-turns.ts): a turn ends after a quiet gap; when the user had spoken over the model it
// yielded: `interrupted` (playback is flushed at once, the model has stopped generating) then
// `turnComplete`.
// Tools run through Responses delegation (function tools on the backend model): calls arrive as
// nested `response.event` stream events, results go back as `function_call_output` items followed
// by `response.create`. Injected text is `session.commentary.append` ("speakable context").
// Images are not accepted by GPT-Live: frames are refused with `unsupported`.
// After an unexpected close, a new session starts with the recent conversation as `input` (text
// history, at most 128 messages): the thread survives, not the audio.
import type { ClientEvent } from 'openai/resources/live/live';
import type { z } from 'zod';
import type {
  FrameSendResult,
  LiveModelSession,
  LiveModelUsage,
  ToolCallResult,
  ToolDeclaration,
} from '../../../ports.ts';
import type { TimerHandle } from '../../../contracts/clock.ts';
import { assertSupportedImage } from '../../frame-converter.ts';
import { EventTable, validating } from '../../session-core/event-table.ts';
import { ModelSessionCore, type ModelSessionCoreOptions } from '../../session-core/model-session.ts';
import { ReplyTranscript } from '../../session-core/reply-transcript.ts';
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
import { AudioGapTurns } from './audio-turns.ts';

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
  /** The model's turn, derived from the gaps in its audio (session-core's ModelTurn inside). */
  readonly #turns: AudioGapTurns<JsonSocket>;
  #toolReplyTimer: TimerHandle | null = null;
  /** Tool results that came while no socket was open. */
  readonly #resultsWhileOffline: ToolCallResult[] = [];
  /** What the model's turn in progress said (the history keeps what was said up to a yield). */
  readonly #reply = new ReplyTranscript((text) => this.#history.add({ kind: 'assistant', text }));
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
  readonly #events: EventTable<JsonEvent, JsonSocket>;

  constructor(options: LiveSessionOptions) {
    super(options);
    this.#o = options;
    this.#turns = new AudioGapTurns({
      clock: options.clock,
      turnGapMs: options.turnGapMs,
      bargeInGapMs: options.bargeInGapMs,
      closed: () => this.life.closed,
      ended: (yielded) => this.#turnEnded(yielded),
    });
    this.#events = this.#eventTable();
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
    this.#turns.bargedIn();
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
      if (!this.#turns.open) this.texts.modelTurnEnded();
    }, this.#o.toolReplyWaitMs);
  }

  async close(): Promise<void> {
    if (!this.closeCore()) return;
    this.#turns.stop();
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

  /** The user's speech no service answered, for the session the bridge opens when this one gave up. */
  takeUnanswered(): (Int16Array | null)[] {
    return this.#speech.take();
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
    // Its answer is about to start (server VAD): texts wait for it.
    if (this.#speech.replay(connection)) this.texts.replyExpected();
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
      onEvent: (event) => {
        if (!this.life.closed && socket === this.#socket) this.#events.dispatch(event, socket);
      },
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
    const ended = this.#turns.socketEnded(socket);
    if (ended) this.#turnEnded(ended.yielded);
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
    void this.reconnectAfterClose(
      code,
      reason,
      () => `new session, ${this.#history.items.length} history items replayed`,
    );
  }

  // --- output ------------------------------------------------------------------------------

  /** What each server event does; a type not here does nothing. */
  #eventTable(): EventTable<JsonEvent, JsonSocket> {
    const on = validating<JsonEvent, JsonSocket>((event) => this.#malformed(event));
    return new EventTable<JsonEvent, JsonSocket>({
      'session.output_audio.delta': on(outputAudioDelta, (d, socket) => this.#audio(d.delta, socket)),
      'session.output_transcript.delta': on(transcriptDelta, (d) => {
        this.#reply.add(d.delta);
        this.emit('outputTranscript', d.delta);
      }),
      'session.input_transcript.delta': on(transcriptDelta, (d) => {
        this.#inputText += d.delta;
        this.emit('inputTranscript', d.delta);
      }),
      'response.event': (event, socket) => {
        const parsed = responseFunctionCall.safeParse(event);
        // Other Responses stream events (text deltas, lifecycle): nothing to do.
        if (parsed.success) this.#toolCall(parsed.data.event.item, socket);
      },
      'session.usage.updated': (event) => {
        const parsed = usageUpdated.safeParse(event);
        if (parsed.success) this.#usageSeconds.report(parsed.data.usage.seconds);
      },
      'session.closed': (event) => {
        const parsed = sessionClosed.safeParse(event);
        if (parsed.success) this.#usageSeconds.report(parsed.data.usage.seconds);
        this.#o.logger.info(
          { reason: parsed.success ? parsed.data.reason : 'unknown' },
          'gpt-live session closed by the service',
        );
      },
      error: on(errorEvent, ({ error }) => {
        this.#stats.serverErrors++;
        this.#o.logger.warn(
          { code: error.code, type: error.type, param: error.param, message: this.#o.scrub(error.message) },
          'gpt-live error event',
        );
      }),
    });
  }

  #audio(base64: string, socket: JsonSocket): void {
    if (this.#turns.audio(socket)) {
      this.#speech.answered();
      for (const text of this.#unspokenTexts.splice(0)) this.#history.add({ kind: 'user', text });
      this.#o.clock.clearTimeout(this.#toolReplyTimer);
      this.#toolReplyTimer = null;
      this.#reply.reset();
      this.#flushInputText();
      this.modelActivity();
      // The model took its turn: the user's is over by its own rule.
      this.emit('userTurnEnded');
    }
    this.emit('audio', decodePcm(base64));
  }

  #toolCall(item: z.infer<typeof responseFunctionCall>['event']['item'], socket: JsonSocket): void {
    const { call_id: id, name, arguments: raw } = item;
    if (this.#calls.has(id)) return;
    const call = this.#calls.ask(id, name, raw, socket);
    this.modelActivity();
    this.emit('toolCall', call);
  }

  /** The model's turn is over (a quiet gap, or its socket gone); `yielded`: the user had spoken over it. */
  #turnEnded(yielded: boolean): void {
    this.#reply.end(yielded);
    if (yielded) this.#stats.interruptions++;
    this.endTurn({ interrupted: yielded });
  }

  #flushInputText(): void {
    if (this.#inputText) this.#history.add({ kind: 'user', text: this.#inputText });
    this.#inputText = '';
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
