// One conversation over the Realtime protocol (`wss://…/v1/realtime?model=…`): OpenAI Realtime GA,
// and xAI's Voice Agent API, which speaks the same events (what differs is the dialect, dialect.ts).
// It may span several WebSockets: Realtime has no session resumption, so after an unexpected close a new socket
// is opened (same model, backoff) and the recent conversation is replayed from ConversationHistory
// as conversation items before any new input: the model keeps the thread, not the old audio.
//
// Audio: the bridge hands 16 kHz mono (voice gate); OpenAI accepts `audio/pcm` at 24 kHz only, so
// there input is resampled 16k → 24k (audio/resampler-16k-to-24k.ts); a dialect that takes 16 kHz
// gets it as it is. Output is 24 kHz already.
// The reply (its turn, audio item, transcript and the barge-in rules) is reply.ts; this file keeps
// the sockets, the input, the tool calls and the texts, and reads the server events by type.
import type { z } from 'zod';
import type { Patience } from '../../contracts/patience.ts';
import type {
  FrameSendResult,
  LiveModelSession,
  LiveModelUsage,
  ToolCallResult,
  ToolDeclaration,
} from '../../ports.ts';
import { fromRealtimeUsage, TokenAccount, totalTokens } from '../../usage/tokens.ts';
import { toModelFrame } from '../frame-converter.ts';
import { EventTable, validating, type EventHandler } from '../session-core/event-table.ts';
import { ModelSessionCore } from '../session-core/model-session.ts';
import { PendingToolCalls } from '../session-core/tool-calls.ts';
import { classifyOpenAIFailure } from './failure.ts';
import { ConversationHistory } from './history.ts';
import { ItemAcks } from './item-acks.ts';
import type { JsonEvent, JsonSocket } from './json-socket.ts';
import { RealtimeReply } from './reply.ts';
import { SpeechInput } from './speech-input.ts';
import { newRealtimeCounters, type RealtimeSessionOptions, type RealtimeSessionStats } from './session-options.ts';
import { configureSocket, openSocket, replayHistory } from './session-setup.ts';
import {
  audioAppendJson,
  audioDelta,
  contextItem,
  errorEvent,
  functionCallDone,
  historyToItems,
  inputTranscriptionCompleted,
  itemAck,
  RESPONSE_CREATE,
  responseCreated,
  responseDone,
  toolOutputItem,
  transcriptDelta,
  transcriptDone,
  userTextItem,
} from './events.ts';

// The session's contract is in session-options.ts; the providers import it from here.
export type { RealtimeSessionOptions, RealtimeSessionStats } from './session-options.ts';

interface Connection {
  id: number;
  socket: JsonSocket;
  /** Call ids the model issued on this socket (a repeated event is not a second call). */
  calls: Set<string>;
}

export class RealtimeWireSession extends ModelSessionCore implements LiveModelSession {
  readonly #o: RealtimeSessionOptions;
  #contextUpdates = 0;
  #active: Connection | null = null;
  #nextConnectionId = 1;
  #nextEventId = 1;
  readonly #history = new ConversationHistory();
  /** User audio (sent live, and kept until answered: a new socket hears it again; no resumption). */
  readonly #speech: SpeechInput;
  /** The reply in progress: its turn (session-core's ModelTurn), audio item and transcript. */
  readonly #reply: RealtimeReply<Connection>;
  /** The service's VAD heard speech start and has not ended that turn (speech_stopped / committed). */
  #serviceSpeech = false;
  #patienceUpdates = 0;
  /** Calls still waiting for a result; response.create follows the last of a socket's. */
  readonly #calls = new PendingToolCalls<Connection>();
  #responseAfterTools = false;
  /** A tool result arrived while no socket was open: the next one is asked to answer it. */
  #resultsWhileOffline = false;
  readonly #acks: ItemAcks;
  readonly #tokens = new TokenAccount();
  readonly #stats = newRealtimeCounters();
  readonly #events: EventTable<JsonEvent, Connection>;

  constructor(options: RealtimeSessionOptions) {
    super(options);
    this.#o = options;
    this.#acks = new ItemAcks(options.clock);
    // A turn the bridge ends (its silence cap) is committed and answered, as the service's VAD would.
    this.#speech = new SpeechInput(audioAppendJson, options.dialect.inputRate, [
      '{"type":"input_audio_buffer.commit"}',
      '{"type":"response.create"}',
    ]);
    this.#reply = new RealtimeReply({
      events: this,
      active: () => this.#active,
      send: (event) => this.#send(event),
      playedMs: options.playedMs,
      truncates: options.dialect.truncates,
      record: (text) => this.#history.add({ kind: 'assistant', text }),
      answered: () => this.#speech.answered(),
      activity: () => this.modelActivity(),
      ended: () => this.texts.modelTurnEnded(),
      stats: this.#stats,
    });
    this.#events = this.#eventTable();
  }

  /** Tokens by modality: the sum of every response.done's usage on every socket of this call. */
  usage(): LiveModelUsage {
    const tokens = this.#tokens.total;
    return { tokens, totalTokens: totalTokens(tokens) };
  }

  get stats(): RealtimeSessionStats {
    return {
      ...this.#stats,
      reconnects: this.life.reconnects,
      textsDelivered: this.texts.delivered,
      frames: { ...this.frames.stats },
    };
  }

  // --- input -------------------------------------------------------------------------------

  sendAudio(pcm16kMono: Int16Array): void {
    // Before the socket check: a user talking through a reconnect is still talking when it ends,
    // so a queued text must not go out over them.
    this.texts.userAudio();
    // Not sent live while no socket is open; kept (up to 5 s) for the next socket.
    if (!this.#speech.write(this.#active?.socket, pcm16kMono)) this.#stats.audioChunksDropped++;
  }

  endAudioInput(): void {
    // Committed only when the service heard speech it has not ended: the bridge's silence cap ran out first.
    const commit = this.#serviceSpeech && !this.#reply.generating;
    this.#serviceSpeech = false;
    this.#speech.end(this.#active?.socket, commit);
    this.texts.userAudioEnded();
  }

  /** The bridge cut the reply's playback (local barge-in): the service is told now, not at a speech_started that may never come. */
  bargedIn(): void {
    this.#reply.bargeIn();
  }

  /** Realtime takes a new turn detection mid-session (a session.update with only it); the next socket opens with it too. */
  setPatience(patience: Patience): void {
    this.#o.patience = patience;
    if (!this.#active?.socket.isOpen) return;
    const id = `evt_patience_${++this.#patienceUpdates}`;
    this.#send(this.#o.dialect.patienceUpdate({ patience, turnDetection: this.#o.turnDetection }, id));
  }

  /**
   * Who is speaking now, as a system item with no `response.create`: the reply in progress goes
   * on, none is started, and nothing reads it aloud. Not kept for replay after a drop (it is about
   * the moment it was sent).
   */
  addContext(text: string): boolean {
    if (!this.#active?.socket.isOpen) return false;
    this.#send(contextItem(text));
    return true;
  }

  sendToolResult(result: ToolCallResult): void {
    const output = JSON.stringify(result.response);
    const pending = this.#calls.settle(result.id);
    const connection = this.#active;
    const item = {
      kind: 'tool',
      callId: result.id,
      name: result.name,
      arguments: pending?.arguments ?? '{}',
      output,
    } as const;
    this.#history.add(item);
    if (!connection?.socket.isOpen) {
      // Replayed with the history on the next socket, which is then asked to answer (connect).
      this.#resultsWhileOffline = true;
      this.#o.logger.warn({ tool: result.name, callId: result.id }, 'tool result kept for replay: no live connection');
      return;
    }
    if (pending?.socket !== connection) {
      // The call was made on a socket that has since dropped: give the new one the call and its result.
      for (const event of historyToItems(item)) this.#send(event);
    } else {
      this.#send(toolOutputItem(result.id, output));
    }
    this.#respondAfterTools(connection);
  }

  /**
   * Ask for the answer once this socket's calls all have their results: now, or after the response
   * in progress (the service refuses a second `response.create` while one is active). Calls left
   * from a dropped socket do not hold it: their results come with their own request.
   */
  #respondAfterTools(connection: Connection): void {
    if (this.#calls.pendingOn(connection)) return;
    if (this.#reply.generating) this.#responseAfterTools = true;
    else this.#send(RESPONSE_CREATE);
  }

  async close(): Promise<void> {
    if (!this.closeCore()) return;
    this.#acks.failAll('session closed');
    this.#active?.socket.close(1000, 'bye');
    this.#active = null;
    this.life.set('disconnected', 'closed');
  }

  /** The user's speech no service answered, for the session the bridge opens when this one gave up. */
  takeUnanswered(): (Int16Array | null)[] {
    return this.#speech.take();
  }

  // --- connections -------------------------------------------------------------------------

  protected async connect(): Promise<void> {
    const connection = await this.dial({
      label: this.#o.dialect.label,
      open: (model) => this.#openOne(model),
      discard: (c) => c.socket.close(),
      classify: classifyOpenAIFailure,
    });
    this.#active = connection;
    // After the history: the words the old socket heard but never answered, then any said since.
    const heardUnanswered = this.#speech.replay(connection.socket);
    // Results that came in while no socket was open are in the replayed history; the model answers
    // them now, unless replayed speech gets an answer anyway (server VAD starts it).
    if (this.#resultsWhileOffline) {
      this.#resultsWhileOffline = false;
      if (!heardUnanswered) this.#respondAfterTools(connection);
    }
    // The answer to the replayed speech is about to start (server VAD): texts wait for it.
    if (heardUnanswered) this.texts.replyExpected();
    this.texts.tryFlush();
  }

  /** Open, wait for session.created, configure, wait for session.updated, replay history. */
  async #openOne(model: string): Promise<Connection> {
    this.#stats.connectionAttempts++;
    const socket = await openSocket(this.#o, model);
    const connection: Connection = { id: this.#nextConnectionId++, socket, calls: new Set() };
    const o = this.#o;
    await configureSocket(socket, o, model, `evt_setup_${connection.id}`);
    socket.attach({
      onEvent: (event) => {
        if (!this.life.closed && connection === this.#active) this.#events.dispatch(event, connection);
      },
      onClose: (code, reason) => this.#onClose(code, reason, connection),
    });
    // Context survives the drop: replay the recent conversation before any new input.
    const replayed = replayHistory(socket, this.#history.items);
    this.#stats.replayedItems += replayed;
    this.#o.logger.info({ model, connection: connection.id, replayed, service: o.dialect.label }, 'realtime connected');
    return connection;
  }

  #onClose(code: number, reason: string, connection: Connection): void {
    if (this.life.closed || connection !== this.#active) return;
    this.#active = null;
    this.#o.logger.warn(
      { code, reason, connection: connection.id, service: this.#o.dialect.label },
      'realtime connection closed unexpectedly',
    );
    this.#responseAfterTools = false;
    this.#reply.socketEnded(connection);
    void this.reconnectAfterClose(
      code,
      reason,
      () => `new connection, ${this.#history.items.length} history items replayed`,
    );
  }

  // --- output ------------------------------------------------------------------------------

  /** What each server event does; a type not here (session.updated, rate_limits.updated, output_item.*, …) does nothing. */
  #eventTable(): EventTable<JsonEvent, Connection> {
    const on = validating<JsonEvent, Connection>((event) => this.#malformed(event));
    const reply = this.#reply;
    const acked: EventHandler<JsonEvent, Connection> = (event) => {
      const parsed = itemAck.safeParse(event);
      if (parsed.success) this.#acks.settle(parsed.data.item.id, null);
    };
    const speechEnded = (): void => {
      // The service's detector ended the user's turn: the bridge stops its paced silence.
      this.#serviceSpeech = false;
      this.emit('userTurnEnded');
    };
    return new EventTable<JsonEvent, Connection>({
      'response.output_audio.delta': on(audioDelta, (d) => reply.audio(d.item_id, d.delta)),
      'response.output_audio_transcript.delta': on(transcriptDelta, (d) => reply.transcriptDelta(d.delta)),
      'response.output_audio_transcript.done': on(transcriptDone, (d) => reply.transcriptDone(d.transcript)),
      'conversation.item.input_audio_transcription.completed': on(inputTranscriptionCompleted, (d) =>
        this.#inputTranscript(d.transcript, d.status),
      ),
      'input_audio_buffer.speech_started': () => {
        this.#serviceSpeech = true;
        reply.bargeIn();
      },
      'input_audio_buffer.speech_stopped': speechEnded,
      'input_audio_buffer.committed': speechEnded,
      'response.created': on(responseCreated, (_, c) => reply.created(c)),
      'response.function_call_arguments.done': on(functionCallDone, (d, c) => this.#toolCall(d, c)),
      'response.done': on(responseDone, (d, c) => this.#responseDone(d.response.usage, c)),
      'conversation.item.added': acked,
      'conversation.item.created': acked,
      'conversation.item.done': acked,
      error: on(errorEvent, (d) => this.#serverError(d.error)),
    });
  }

  #inputTranscript(transcript: string, status: string | undefined): void {
    // A partial (xAI): the final one follows with the whole text.
    if (status === 'in_progress') return;
    this.#history.add({ kind: 'user', text: transcript });
    if (transcript) this.emit('inputTranscript', transcript);
  }

  #toolCall(call: z.infer<typeof functionCallDone>, connection: Connection): void {
    const { call_id: id, name, arguments: raw } = call;
    if (connection.calls.has(id)) return;
    connection.calls.add(id);
    // A tool call answers what was said: its result is replayed, the words need not be.
    this.#speech.answered();
    const request = this.#calls.ask(id, name, raw, connection);
    this.modelActivity();
    this.emit('toolCall', request);
  }

  #responseDone(usage: z.infer<typeof responseDone>['response']['usage'], connection: Connection): void {
    this.#stats.totalTokens += usage?.total_tokens ?? 0;
    // Per response (each response.done carries that response's own usage): added whole.
    if (usage) this.#tokens.addReport(fromRealtimeUsage(usage));
    this.#reply.done();
    if (this.#responseAfterTools && !this.#calls.pendingOn(connection)) {
      this.#responseAfterTools = false;
      this.#send(RESPONSE_CREATE);
    }
  }

  #serverError(error: z.infer<typeof errorEvent>['error']): void {
    const { code, type, param, message, event_id: eventId } = error;
    this.#stats.serverErrors++;
    if (eventId) this.#acks.settle(eventId, `${code ?? type}: ${message}`);
    this.#o.logger.warn(
      { code, type, param, message: this.#o.scrub(message), service: this.#o.dialect.label },
      'realtime error event',
    );
  }

  protected deliverTexts(texts: readonly string[]): boolean {
    if (!this.#active?.socket.isOpen) return false;
    const text = texts.join('\n');
    this.#send(userTextItem(text));
    this.#send(RESPONSE_CREATE);
    this.#history.add({ kind: 'user', text });
    return true;
  }

  protected async sendFrameNow(image: Buffer): Promise<FrameSendResult> {
    const frame = await toModelFrame(image);
    if (!this.#o.dialect.images) return { status: 'dropped', reason: 'unsupported_by_model' };
    if (!this.#active?.socket.isOpen) return { status: 'dropped', reason: 'not_connected' };
    const error = await this.#acks.sendImage(
      this.#active.socket,
      frame.jpeg,
      this.#nextEventId++,
      this.#o.frameAckTimeoutMs,
    );
    if (error) return { status: 'dropped', reason: `rejected: ${error}` };
    return { status: 'sent', width: frame.width, height: frame.height, bytes: frame.jpeg.length };
  }

  /**
   * Realtime takes new instructions and tools mid-session (a session.update naming only them); they
   * also open the next socket. Transcription names are set at a socket's setup only.
   */
  updateContext(update: { systemInstruction?: string; tools?: ToolDeclaration[] }): boolean {
    if (update.systemInstruction === undefined && !update.tools) return false;
    if (update.systemInstruction !== undefined) this.#o.systemInstruction = update.systemInstruction;
    if (update.tools) this.#o.tools = update.tools;
    this.#send(this.#o.dialect.contextUpdate(update, `evt_context_${++this.#contextUpdates}`));
    return true;
  }

  #send(event: object): void {
    this.#active?.socket.send(event);
  }

  #malformed(event: JsonEvent): void {
    this.#stats.serverErrors++;
    this.#o.logger.warn(
      { type: event.type, service: this.#o.dialect.label },
      'realtime: malformed server event skipped',
    );
  }
}
