// One client connection as the fake OpenAI Realtime service sees it: one conversation (Realtime has
// no resumption: a new socket is a new, empty conversation), every client event validated and
// recorded, and the "model" scripted by the test or demo in the GA server-event shapes and order:
// response.created → output_item.added → conversation.item.added → content_part.added →
// output_audio.delta / output_audio_transcript.delta … → output_audio.done →
// output_audio_transcript.done → content_part.done → output_item.done → conversation.item.done →
// response.done.
import type { WebSocket } from 'ws';
import { FakeConnection, type PacedScript } from '../../shared/fake-connection.ts';
import type { PacedReply } from '../../shared/paced-reply.ts';
import { base64ToPcm, concatPcm, pcmToBase64, tailPcm, tone } from '../../shared/pcm.ts';
import type { StreamingTranscriber } from '../../shared/scripted-speech.ts';
import { TurnDetector } from '../../shared/turn-detector.ts';
import {
  defaultSession,
  mergeSession,
  RealtimeConversation,
  type ConversationItem,
  type ResponseTrigger,
} from './conversation.ts';
import { functionCallEvents, readClientEvent, type ConversationItemInput, type SessionConfig } from './protocol.ts';
import { parseToolOutput } from '../shared.ts';
import { endsUtterance, prefixPaddingSamples, turnWindow, type TurnDetectionConfig } from './turn-detection.ts';
import { RealtimeUsageMeter, type RealtimeUsageSent } from './usage.ts';
import type { FakeRealtimeConnectionEvents, RealtimeHooks } from './hooks.ts';
import { errorEvent, REFUSALS, type Refusal } from './refusals.ts';
import {
  assistantItemOpened,
  audioFinished,
  contentBase,
  inputTranscriptionCompleted,
  outputItemDone,
  responseCreated,
  responseDone,
  speechStopped,
  userItemCommitted,
} from './reply-events.ts';

export type { RealtimeUsageSent } from './usage.ts';
export type { ConversationItem } from './conversation.ts';
export type { FakeRealtimeConnectionEvents } from './hooks.ts';
export type RealtimeConnectionHooks = RealtimeHooks<FakeRealtimeConnection>; // what the server lends (hooks.ts)
export type JsonObject = Record<string, unknown>;

export const REALTIME_RATE = 24_000;

/** 24 kHz PCM to speak (default a 440 Hz tone of `toneMs`), its transcript and pace. */
export type RealtimeReplyScript = PacedScript;

export type RealtimeReplyOutcome = 'completed' | 'cancelled' | 'closed';

export class FakeRealtimeConnection extends FakeConnection<FakeRealtimeConnectionEvents> {
  readonly model: string;
  readonly key: string;
  session: SessionConfig & JsonObject;
  /** Every client event, parsed, in order (including rejected ones). */
  readonly received: JsonObject[] = [];
  /** Every server event sent, in order. */
  readonly sent: JsonObject[] = [];
  /** Error events sent (rejections), for assertions. */
  readonly errors: { code: string; param?: string; message: string; event_id?: string | null }[] = [];
  /** Input audio (24 kHz) as appended. */
  readonly audio: Int16Array[] = [];
  cancels = 0;
  /** The service ended this session at its duration limit (expireAfter), not a fault. */
  expired = false;
  responses = 0;
  sessionUpdates = 0;
  #nextId = 1;
  readonly #vad: TurnDetector;
  /** The semantic_vad stand-in's cue for this turn (setUtteranceCue), and the words heard so far. */
  #cue: 'final' | 'mid' | null = null;
  #words: StreamingTranscriber | null = null;
  #wordsSoFar = '';
  #bufferSamples = 0;
  #audioSamplesTotal = 0;
  #active: { id: string; reply: PacedReply<RealtimeReplyOutcome> } | null = null;
  #voiceLocked = false;
  readonly #hooks: RealtimeConnectionHooks;
  readonly #usage = new RealtimeUsageMeter();
  readonly #conversation = new RealtimeConversation(this);

  constructor(
    socket: WebSocket,
    init: { index: number; model: string; key: string; headers: Record<string, string | string[] | undefined> },
    hooks: RealtimeConnectionHooks,
  ) {
    super(
      socket,
      { index: init.index, headers: init.headers, name: 'fake realtime', trafficEvent: 'event' },
      hooks.timing,
    );
    this.#hooks = hooks;
    this.model = init.model;
    this.key = init.key;
    this.session = defaultSession(init.model);
    this.#vad = new TurnDetector(
      turnWindow(this.#turnDetection(), hooks.vadRms, REALTIME_RATE) ?? {
        startRms: hooks.vadRms,
        silenceSamples: REALTIME_RATE / 2,
      },
    );
  }

  protected socketClosed(code: number, reason: string): void {
    this.#active?.reply.stop('closed');
    this.emit('close', code, reason);
  }

  /** The conversation's items in order. */
  get items(): ConversationItem[] {
    return this.#conversation.items;
  }

  /** Accepted `conversation.item.truncate`s, in order. */
  get truncations(): readonly { item_id: string; audio_end_ms: number }[] {
    return this.#conversation.truncations;
  }

  get replying(): boolean {
    return this.#active !== null;
  }

  inputPcm(): Int16Array {
    return concatPcm(this.audio);
  }

  get inputSamples(): number {
    return this.#audioSamplesTotal;
  }

  /** Texts of the conversation's items in order (role: text), for replay assertions. */
  transcript(): string[] {
    return this.items.map((item) => `${item.role ?? item.type}: ${item.text}`);
  }

  // --- client events -------------------------------------------------------------------------

  handleRaw(text: string): void {
    const read = readClientEvent(text);
    if (read.event) this.received.push(read.event);
    if (read.error) this.error(read.error.code, read.error.message, read.error);
    else this.#dispatch(read.type, read.event, read.eventId);
    // After handling, so a waiter sees the effect of the event it was woken by.
    if (read.event) this.emit('event', read.event);
  }

  #dispatch(type: string, event: JsonObject, eventId: string | null): void {
    switch (type) {
      case 'session.update':
        return this.#onSessionUpdate(event.session as SessionConfig, eventId);
      case 'input_audio_buffer.append':
        return this.#onAppend(event.audio as string, eventId);
      case 'input_audio_buffer.commit':
        if (this.#bufferSamples < (REALTIME_RATE * 100) / 1000)
          return this.refuse(REFUSALS.commitTooSmall(this.#bufferSamples / 24), eventId);
        this.#commit();
        return;
      case 'input_audio_buffer.clear':
        this.#bufferSamples = 0;
        this.send({ type: 'input_audio_buffer.cleared' });
        return;
      case 'conversation.item.create':
        return this.#onItemCreate(event.item as ConversationItemInput, eventId);
      case 'conversation.item.retrieve':
        return this.#conversation.retrieve(event.item_id, eventId);
      case 'conversation.item.delete':
        return this.#conversation.delete(event.item_id, eventId);
      case 'conversation.item.truncate':
        return this.#conversation.truncate(
          event.item_id as string,
          event.content_index as number,
          event.audio_end_ms as number,
          eventId,
        );
      case 'response.create':
        if (this.#active) return this.refuse(REFUSALS.activeResponse(this.#active.id, true), eventId);
        // The client ends its turn by asking for the response (turn_detection null, or after a tool's output).
        this.markTurnEnd();
        this.#respondTo(this.#conversation.lastTrigger());
        return;
      case 'response.cancel':
        if (!this.#active) return this.refuse(REFUSALS.noActiveResponse(), eventId);
        this.cancels++;
        this.#active.reply.stop('cancelled');
        return;
      case 'output_audio_buffer.clear':
        return this.refuse(REFUSALS.outputClearOverWebSocket(), eventId);
    }
  }

  #onSessionUpdate(update: SessionConfig, eventId: string | null): void {
    const voice = update.audio?.output?.voice;
    const current = (this.session.audio as { output?: { voice?: string } } | undefined)?.output?.voice;
    if (voice && voice !== current && this.#voiceLocked) return this.refuse(REFUSALS.voiceLocked(), eventId);
    if (update.model && update.model !== this.model) return this.refuse(REFUSALS.modelChange(this.model), eventId);
    this.sessionUpdates++;
    this.session = mergeSession(this.session, update);
    this.#applyTurnDetection();
    this.send({
      type: 'session.updated',
      session: { ...this.session, id: `sess_fake_${this.index}`, object: 'realtime.session' },
    });
  }

  #turnDetection(): TurnDetectionConfig | null {
    return (
      (((this.session.audio as JsonObject | undefined)?.input as JsonObject | undefined)?.turn_detection as
        TurnDetectionConfig | null | undefined) ?? null
    );
  }

  /** The detector's window from the session (after each session.update). */
  #applyTurnDetection(): void {
    const window = turnWindow(this.#turnDetection(), this.#hooks.vadRms, REALTIME_RATE);
    if (window) this.#vad.setWindow(window);
  }

  /**
   * The semantic_vad stand-in's cue (turn-detection.ts): 'final' or 'mid' decides the next pause of
   * this turn (reset when the turn ends); null: read from the input transcript the test set, else
   * from the words heard so far (the streaming transcriber, when the fake has one).
   */
  setUtteranceCue(cue: 'final' | 'mid' | null): void {
    this.#cue = cue;
  }

  #onAppend(audio: string, eventId: string | null): void {
    const bytes = Buffer.from(audio, 'base64');
    if (bytes.length % 2 !== 0) return this.refuse(REFUSALS.oddAudioBytes(), eventId);
    const pcm = base64ToPcm(audio);
    this.audio.push(pcm);
    this.#audioSamplesTotal += pcm.length;
    this.#bufferSamples += pcm.length;
    const vad = this.#turnDetection();
    if (!vad) return;
    const change = this.#vad.feed(pcm);
    if (change === 'started') this.#speechStarted(vad);
    if (this.#vad.speaking && vad.type === 'semantic_vad') this.#vad.finalCue = this.#finalCue(pcm);
    if (change === 'ended') this.#speechStopped(vad);
  }

  #speechStarted(vad: TurnDetectionConfig): void {
    const startMs = Math.max(0, Math.round((this.#vad.startedAt - prefixPaddingSamples(vad, REALTIME_RATE)) / 24));
    this.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: startMs, item_id: this.#peekId('item') });
    this.emit('speechStarted');
    // interrupt_response (default true): the service cancels the reply in progress itself.
    if (this.#active && vad.interrupt_response !== false) this.#active.reply.stop('cancelled');
  }

  /** Whether what was said so far ends an utterance (semantic_vad stand-in). Per chunk: the transcriber's own block work only. */
  #finalCue(pcm: Int16Array): boolean {
    if (this.#cue) return this.#cue === 'final';
    if (this.#userTranscript !== null) return endsUtterance(this.#userTranscript);
    if (!this.#hooks.stream) return false;
    this.#words ??= this.#hooks.stream(REALTIME_RATE);
    const heard = this.#words.hear(pcm);
    if (heard) this.#wordsSoFar += heard;
    return endsUtterance(this.#wordsSoFar);
  }

  #speechStopped(vad: TurnDetectionConfig): void {
    this.send(speechStopped(Math.round(this.#audioSamplesTotal / 24), this.#peekId('item')));
    this.#cue = null;
    this.#words?.endTurn();
    this.#wordsSoFar = '';
    // The service's end of turn: its reply's first audio follows after its latency.
    this.markTurnEnd();
    const ms = Math.round(this.#vad.spokenSamples / 24);
    const answers = vad.create_response !== false && !this.#active;
    const quietMs = Math.round((this.#vad.receivedSamples - this.#vad.endedAt) / 24);
    if (answers) this.emit('userTurn', { ms, pcm: tailPcm(this.audio, this.#bufferSamples), quietMs });
    this.#commit();
    if (vad.create_response !== false) {
      if (this.#active) this.refuse(REFUSALS.activeResponse(this.#active.id, false), null);
      else this.#respondTo({ kind: 'speech', ms });
    }
  }

  #commit(): void {
    const id = this.newId('item');
    const previous = this.items.at(-1)?.id ?? null;
    const ms = Math.round(this.#bufferSamples / 24);
    const heard = this.#userTranscript ?? this.#hooks.transcribe?.(tailPcm(this.audio, this.#bufferSamples));
    this.#bufferSamples = 0;
    this.#usage.addInputAudio(ms);
    this.send({ type: 'input_audio_buffer.committed', previous_item_id: previous, item_id: id });
    const transcript = heard ?? `(${ms} ms of speech)`;
    this.items.push({ id, type: 'message', role: 'user', text: transcript, source: 'server' });
    for (const event of userItemCommitted(id, previous)) this.send(event);
    const transcription = ((this.session.audio as JsonObject | undefined)?.input as JsonObject | undefined)
      ?.transcription;
    if (transcription) this.send(inputTranscriptionCompleted(id, transcript, ms));
  }

  /** Every usage this socket sent in response.done (tests compare the client's accounting with it). */
  get usageSent(): readonly RealtimeUsageSent[] {
    return this.#usage.sent;
  }

  /** What the fake's input transcription says for the next committed user turn (default "(N ms of speech)"). */
  #userTranscript: string | null = null;
  setInputTranscript(text: string | null): void {
    this.#userTranscript = text;
  }

  // --- the "model" ---------------------------------------------------------------------------

  #onItemCreate(item: ConversationItemInput, eventId: string | null): void {
    if (!this.#conversation.create(item, eventId)) return;
    this.#usage.countItem(item);
    if (item.type === 'function_call_output') this.toolAnswered(item.call_id, item.output);
  }

  #respondTo(trigger: ResponseTrigger | null): void {
    const queued = this.#scripted.shift();
    if (queued) {
      void this.#speak(queued.script).then(queued.resolve);
      return;
    }
    const script = trigger ? this.#hooks.autoReply(this, trigger) : null;
    // A response with nothing to say still has its lifecycle: created → done.
    void this.#speak(script ?? { pcm: new Int16Array(0) });
  }

  readonly #scripted: { script: RealtimeReplyScript; resolve: (outcome: RealtimeReplyOutcome) => void }[] = [];

  /** The next response (whatever triggers it) speaks this script. */
  queueReply(script: RealtimeReplyScript): Promise<RealtimeReplyOutcome> {
    return new Promise((resolve) => this.#scripted.push({ script, resolve }));
  }

  /** Speak now, as a response the server starts itself (e.g. after server VAD). */
  reply(script: RealtimeReplyScript = {}): Promise<RealtimeReplyOutcome> {
    this.#active?.reply.stop('cancelled');
    return this.#speak(script);
  }

  #speak(script: RealtimeReplyScript): Promise<RealtimeReplyOutcome> {
    const responseId = this.newId('resp');
    const itemId = this.newId('item');
    const pcm = script.pcm ?? tone(script.toneMs ?? 400);
    const hasOutput = pcm.length > 0 || Boolean(script.transcript);
    const item: ConversationItem = {
      id: itemId,
      type: 'message',
      role: 'assistant',
      text: '',
      audioMs: 0,
      source: 'server',
    };
    const base = contentBase(responseId, itemId);
    let spokenText = '';
    let spokenSamples = 0;
    /** The output item was announced (output_item.added): it is closed with output_item.done. */
    let itemOpen = false;
    this.responses++;
    // The response exists at once; its audio follows after the service's first-audio latency.
    this.send(responseCreated(responseId));
    const reply: PacedReply<RealtimeReplyOutcome> = this.pacedReply<RealtimeReplyOutcome>(script, REALTIME_RATE, pcm, {
      begin: () => {
        if (!hasOutput) return;
        itemOpen = true;
        this.items.push(item);
        this.#voiceLocked = true;
        for (const event of assistantItemOpened(responseId, itemId)) this.send(event);
      },
      chunk: (chunk, words) => {
        this.send({ type: 'response.output_audio.delta', ...base, delta: pcmToBase64(chunk) });
        spokenSamples += chunk.length;
        item.audioMs = Math.round((spokenSamples * 1000) / REALTIME_RATE);
        if (!words) return;
        spokenText += words;
        item.text = spokenText;
        this.send({ type: 'response.output_audio_transcript.delta', ...base, delta: words });
      },
      finish: () => {
        if (hasOutput) {
          item.text = script.transcript ?? '';
          for (const event of audioFinished(responseId, itemId, script.transcript ?? '')) this.send(event);
        }
        return 'completed';
      },
      ended: (outcome) => {
        if (this.#active?.reply === reply) this.#active = null;
        if (outcome === 'closed') return;
        if (itemOpen) this.send(outputItemDone(responseId, itemId, outcome === 'completed'));
        this.send(
          responseDone(
            responseId,
            outcome,
            itemOpen ? itemId : null,
            this.#usage.response(item.audioMs ?? 0, spokenText, this.session.instructions),
          ),
        );
      },
    });
    this.#active = { id: responseId, reply };
    return reply.done;
  }

  /** The model calls a function; resolves with the client's function_call_output (parsed JSON). */
  toolCall(
    name: string,
    args: JsonObject | string,
    options: { callId?: string; timeoutMs?: number } = {},
  ): Promise<unknown> {
    const callId = options.callId ?? this.newId('call');
    const responseId = this.newId('resp');
    const itemId = this.newId('item');
    const raw = typeof args === 'string' ? args : JSON.stringify(args);
    const result = this.awaitToolAnswer<string>(callId, options.timeoutMs ?? 10_000).then(parseToolOutput);
    this.responses++;
    const item = { id: itemId, type: 'function_call', status: 'completed', call_id: callId, name, arguments: raw };
    this.items.push({
      id: itemId,
      type: 'function_call',
      text: raw,
      call_id: callId,
      name,
      arguments: raw,
      source: 'server',
    });
    for (const event of functionCallEvents(responseId, item)) this.send(event);
    return result;
  }

  // --- transport -----------------------------------------------------------------------------

  send(event: JsonObject): void {
    if (!this.isOpen) return;
    const full = { event_id: this.newId('event'), ...event };
    this.sent.push(full);
    this.socket.send(JSON.stringify(full));
  }

  error(code: string, message: string, options: { param?: string; eventId?: string | null; type?: string } = {}): void {
    this.errors.push({ code, param: options.param, message, event_id: options.eventId ?? null });
    this.send(errorEvent(code, message, options));
  }

  /** An `error` event with a refusal's code, words and parameter, about the client event `eventId`. */
  refuse(refusal: Refusal, eventId: string | null): void {
    this.error(refusal.code, refusal.message, { param: refusal.param, eventId });
  }

  /**
   * The session reaches its maximum duration after `ms` (the service's is 60 minutes): an `error`
   * `session_expired` and close 1001 with the same message, as reported in livekit/agents #2358 and
   * pollen-robotics/reachy_mini_conversation_app #134. Realtime has no warning before it and no
   * resumption after it: the client opens a new session and replays its history.
   */
  expireAfter(ms: number): void {
    this.later(() => {
      this.expired = true;
      const minutes = ms % 60_000 === 0 ? `${ms / 60_000} minutes` : `${Math.round(ms / 1000)} seconds`;
      const message = `Your session hit the maximum duration of ${minutes}.`;
      this.error('session_expired', message);
      this.close(1001, message);
    }, ms);
  }

  newId(prefix: string): string {
    return `${prefix}_fake${this.index}_${this.#nextId++}`;
  }

  #peekId(prefix: string): string {
    return `${prefix}_fake${this.index}_${this.#nextId}`;
  }
}
