// One client connection as the fake OpenAI Realtime service sees it: one conversation (Realtime has
// no resumption: a new socket is a new, empty conversation), every client event validated and
// recorded, and the "model" scripted by the test or demo in the GA server-event shapes and order:
// response.created → output_item.added → conversation.item.added → content_part.added →
// output_audio.delta / output_audio_transcript.delta … → output_audio.done →
// output_audio_transcript.done → content_part.done → output_item.done → conversation.item.done →
// response.done.
import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import { base64ToPcm, concatPcm, pcmToBase64, rms, tone } from '../../gemini/pcm.ts';
import { tailPcm } from '../../shared/pcm.ts';
import { waitUntil } from '../shared.ts';
import { clientEventSchemas, CLIENT_EVENT_TYPES, describeIssue, type ConversationItemInput, type SessionConfig } from './protocol.ts';

export type JsonObject = Record<string, unknown>;

export const REALTIME_RATE = 24_000;
/** OpenAI's published audio token rates: 1 token per 100 ms of input audio, per 50 ms of output. */
const INPUT_AUDIO_MS_PER_TOKEN = 100;
const OUTPUT_AUDIO_MS_PER_TOKEN = 50;
const IMAGE_TOKENS = 765;

/** `response.done` `response.usage` as the service sends it. */
export interface RealtimeUsageSent {
  total_tokens: number;
  input_tokens: number;
  output_tokens: number;
  input_token_details: { text_tokens: number; audio_tokens: number; image_tokens: number; cached_tokens: number };
  output_token_details: { text_tokens: number; audio_tokens: number };
}

export interface RealtimeReplyScript {
  /** 24 kHz PCM to speak; default a 440 Hz tone of `toneMs`. */
  pcm?: Int16Array;
  toneMs?: number;
  transcript?: string;
  chunkMs?: number;
  paceMs?: number;
  delayMs?: number;
}

export type RealtimeReplyOutcome = 'completed' | 'cancelled' | 'closed';

export interface ConversationItem {
  id: string;
  type: string;
  role?: string;
  /** Text of the item (input_text / output_text / transcript / tool output), for assertions. */
  text: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  /** Assistant audio length, ms (what truncate is checked against). */
  audioMs?: number;
  source: 'client' | 'server';
}

export interface RealtimeConnectionHooks {
  defaults: { chunkMs: number; paceMs: number; vadRms: number };
  /** Called when the server VAD commits a user turn or a user text item asks for a response. */
  autoReply(connection: FakeRealtimeConnection, trigger: { kind: 'speech'; ms: number } | { kind: 'text'; text: string } | { kind: 'tool_output'; callId: string; output: string }): RealtimeReplyScript | null;
}

export interface FakeRealtimeConnectionEvents {
  event: [event: JsonObject];
  close: [code: number, reason: string];
  /** Server VAD heard speech start (sent `input_audio_buffer.speech_started`). */
  speechStarted: [];
  /**
   * Server VAD ended a user turn that the service will answer (create_response, no response
   * active): emitted before the commit, so a script can set the input transcript (setInputTranscript)
   * and the reply (queueReply) of this turn. `pcm` is the turn's audio at 24 kHz.
   */
  userTurn: [turn: { ms: number; pcm: Int16Array }];
}

export class FakeRealtimeConnection extends EventEmitter<FakeRealtimeConnectionEvents> {
  readonly index: number;
  readonly model: string;
  readonly key: string;
  readonly headers: Record<string, string | string[] | undefined>;
  session: SessionConfig & JsonObject;
  /** Every client event, parsed, in order (including rejected ones). */
  readonly received: JsonObject[] = [];
  /** Every server event sent, in order. */
  readonly sent: JsonObject[] = [];
  /** Error events sent (rejections), for assertions. */
  readonly errors: { code: string; param?: string; message: string; event_id?: string | null }[] = [];
  readonly items: ConversationItem[] = [];
  /** Input audio (24 kHz) as appended. */
  readonly audio: Int16Array[] = [];
  readonly truncations: { item_id: string; audio_end_ms: number }[] = [];
  cancels = 0;
  /** The service ended this session at its duration limit (expireAfter), not a fault. */
  expired = false;
  responses = 0;
  sessionUpdates = 0;
  closeCode: number | null = null;
  closeReason = '';
  closedBy: 'server' | 'client' | null = null;
  #nextId = 1;
  #speaking = false;
  #speechSamples = 0;
  #quietSamples = 0;
  #bufferSamples = 0;
  #audioSamplesTotal = 0;
  #active: { id: string; stop: (outcome: RealtimeReplyOutcome) => void } | null = null;
  #voiceLocked = false;
  readonly #toolWaiters = new Map<string, (output: string) => void>();
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  readonly #socket: WebSocket;
  readonly #hooks: RealtimeConnectionHooks;

  constructor(
    socket: WebSocket,
    init: { index: number; model: string; key: string; headers: Record<string, string | string[] | undefined> },
    hooks: RealtimeConnectionHooks,
  ) {
    super();
    this.#socket = socket;
    this.#hooks = hooks;
    this.index = init.index;
    this.model = init.model;
    this.key = init.key;
    this.headers = init.headers;
    this.session = {
      type: 'realtime',
      model: init.model,
      output_modalities: ['audio'],
      audio: {
        input: { format: { type: 'audio/pcm', rate: 24000 }, turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 200, create_response: true, interrupt_response: true }, transcription: null },
        output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'alloy' },
      },
      tools: [],
      tool_choice: 'auto',
    };
    socket.on('close', (code, reason) => {
      if (this.closeCode === null) {
        this.closeCode = code;
        this.closeReason = reason.toString();
        this.closedBy ??= 'client';
      }
      for (const timer of this.#timers) clearTimeout(timer);
      this.#timers.clear();
      this.#active?.stop('closed');
      this.emit('close', code, this.closeReason);
    });
  }

  get isOpen(): boolean {
    return this.#socket.readyState === this.#socket.OPEN;
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
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      this.error('invalid_json', "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)", { type: 'invalid_request_error' });
      return;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      this.error('invalid_value', 'Expected an object.', { param: '' });
      return;
    }
    const event = parsed as JsonObject;
    this.received.push(event);
    this.#handleEvent(event);
    // After handling, so a waiter sees the effect of the event it was woken by.
    this.emit('event', event);
  }

  #handleEvent(event: JsonObject): void {
    const type = event.type;
    if (typeof type !== 'string') {
      this.error('missing_required_parameter', "Missing required parameter: 'type'.", { param: 'type' });
      return;
    }
    const schema = (clientEventSchemas as Record<string, (typeof clientEventSchemas)[keyof typeof clientEventSchemas]>)[type];
    const eventId = typeof event.event_id === 'string' ? event.event_id : null;
    if (!schema) {
      this.error('invalid_value', `Invalid value: '${type}'. Supported values are: ${CLIENT_EVENT_TYPES.map((t) => `'${t}'`).join(', ')}.`, { param: 'type', eventId });
      return;
    }
    const checked = schema.safeParse(event);
    if (!checked.success) {
      const issue = describeIssue(checked.error);
      this.error(issue.code, issue.message, { param: issue.param, eventId });
      return;
    }
    this.#dispatch(type, event, eventId);
  }

  #dispatch(type: string, event: JsonObject, eventId: string | null): void {
    switch (type) {
      case 'session.update':
        return this.#onSessionUpdate(event.session as SessionConfig, eventId);
      case 'input_audio_buffer.append':
        return this.#onAppend(event.audio as string, eventId);
      case 'input_audio_buffer.commit':
        if (this.#bufferSamples < (REALTIME_RATE * 100) / 1000) {
          this.error('input_audio_buffer_commit_empty', `Error committing input audio buffer: buffer too small. Expected at least 100ms of audio, but buffer only has ${(this.#bufferSamples / 24).toFixed(2)}ms of audio.`, { eventId });
          return;
        }
        this.#commit();
        return;
      case 'input_audio_buffer.clear':
        this.#bufferSamples = 0;
        this.send({ type: 'input_audio_buffer.cleared' });
        return;
      case 'conversation.item.create':
        return this.#onItemCreate(event.item as ConversationItemInput, eventId);
      case 'conversation.item.retrieve': {
        const item = this.items.find((i) => i.id === event.item_id);
        if (!item) this.error('item_not_found', `Item with item_id '${String(event.item_id)}' not found.`, { param: 'item_id', eventId });
        else this.send({ type: 'conversation.item.retrieved', item: { id: item.id, type: item.type, role: item.role } });
        return;
      }
      case 'conversation.item.delete': {
        const at = this.items.findIndex((i) => i.id === event.item_id);
        if (at < 0) this.error('item_not_found', `Item with item_id '${String(event.item_id)}' not found.`, { param: 'item_id', eventId });
        else {
          this.items.splice(at, 1);
          this.send({ type: 'conversation.item.deleted', item_id: event.item_id });
        }
        return;
      }
      case 'conversation.item.truncate':
        return this.#onTruncate(event.item_id as string, event.content_index as number, event.audio_end_ms as number, eventId);
      case 'response.create':
        if (this.#active) {
          this.error('conversation_already_has_active_response', `Conversation already has an active response in progress: ${this.#active.id}. Wait until the response is finished before creating a new one.`, { eventId });
          return;
        }
        this.#respondTo(this.#lastTrigger());
        return;
      case 'response.cancel':
        if (!this.#active) {
          this.error('response_cancel_not_active', 'Cancellation failed: no active response found.', { eventId });
          return;
        }
        this.cancels++;
        this.#active.stop('cancelled');
        return;
      case 'output_audio_buffer.clear':
        this.error('invalid_value', 'output_audio_buffer.clear is only supported for WebRTC and SIP connections.', { param: 'type', eventId });
        return;
    }
  }

  #onSessionUpdate(update: SessionConfig, eventId: string | null): void {
    const voice = update.audio?.output?.voice;
    const current = (this.session.audio as { output?: { voice?: string } } | undefined)?.output?.voice;
    if (voice && voice !== current && this.#voiceLocked) {
      this.error('cannot_update_voice', 'Cannot update a conversation\'s voice if assistant audio is present.', { param: 'session.audio.output.voice', eventId });
      return;
    }
    if (update.model && update.model !== this.model) {
      this.error('invalid_value', `Cannot change the model of a session (connected as '${this.model}').`, { param: 'session.model', eventId });
      return;
    }
    this.sessionUpdates++;
    this.session = mergeSession(this.session, update);
    this.send({ type: 'session.updated', session: { ...this.session, id: `sess_fake_${this.index}`, object: 'realtime.session' } });
  }

  #turnDetection(): { type: string; silence_duration_ms?: number; create_response?: boolean; interrupt_response?: boolean } | null {
    return ((this.session.audio as JsonObject | undefined)?.input as JsonObject | undefined)?.turn_detection as never;
  }

  #onAppend(audio: string, eventId: string | null): void {
    const bytes = Buffer.from(audio, 'base64');
    if (bytes.length % 2 !== 0) {
      this.error('invalid_value', 'Invalid audio: PCM16 audio must contain an even number of bytes.', { param: 'audio', eventId });
      return;
    }
    const pcm = base64ToPcm(audio);
    this.audio.push(pcm);
    this.#audioSamplesTotal += pcm.length;
    this.#bufferSamples += pcm.length;
    const vad = this.#turnDetection();
    if (!vad) return;
    const loud = rms(pcm) > this.#hooks.defaults.vadRms;
    if (!this.#speaking && loud) {
      this.#speaking = true;
      this.#speechSamples = 0;
      this.#quietSamples = 0;
      this.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: Math.round((this.#audioSamplesTotal - pcm.length) / 24), item_id: this.#peekId('item') });
      this.emit('speechStarted');
      // interrupt_response (default true): the service cancels the reply in progress itself.
      if (this.#active && vad.interrupt_response !== false) this.#active.stop('cancelled');
    }
    if (!this.#speaking) return;
    this.#speechSamples += pcm.length;
    this.#quietSamples = loud ? 0 : this.#quietSamples + pcm.length;
    const silenceMs = vad.silence_duration_ms ?? 500;
    if (this.#quietSamples >= (silenceMs * REALTIME_RATE) / 1000) {
      this.#speaking = false;
      this.send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: Math.round(this.#audioSamplesTotal / 24), item_id: this.#peekId('item') });
      const ms = Math.round((this.#speechSamples - this.#quietSamples) / 24);
      const answers = vad.create_response !== false && !this.#active;
      if (answers) this.emit('userTurn', { ms, pcm: tailPcm(this.audio, this.#bufferSamples) });
      this.#commit();
      if (vad.create_response !== false) {
        if (this.#active) this.error('conversation_already_has_active_response', `Conversation already has an active response in progress: ${this.#active.id}.`);
        else this.#respondTo({ kind: 'speech', ms });
      }
    }
  }

  #commit(): void {
    const id = this.#newId('item');
    const previous = this.items.at(-1)?.id ?? null;
    const ms = Math.round(this.#bufferSamples / 24);
    this.#bufferSamples = 0;
    this.#context.audio += Math.ceil(ms / INPUT_AUDIO_MS_PER_TOKEN);
    this.send({ type: 'input_audio_buffer.committed', previous_item_id: previous, item_id: id });
    const transcript = this.#userTranscript ?? `(${ms} ms of speech)`;
    this.items.push({ id, type: 'message', role: 'user', text: transcript, source: 'server' });
    this.send({ type: 'conversation.item.added', previous_item_id: previous, item: { id, object: 'realtime.item', type: 'message', status: 'completed', role: 'user', content: [{ type: 'input_audio', transcript: null }] } });
    this.send({ type: 'conversation.item.done', previous_item_id: previous, item: { id, object: 'realtime.item', type: 'message', status: 'completed', role: 'user', content: [{ type: 'input_audio', transcript: null }] } });
    const transcription = ((this.session.audio as JsonObject | undefined)?.input as JsonObject | undefined)?.transcription;
    if (transcription) this.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: id, content_index: 0, transcript, usage: { type: 'duration', seconds: ms / 1000 } });
  }

  /**
   * The conversation so far in tokens: each response reads all of it as input (billed per
   * response, as `response.done` usage says), and its own output joins it.
   */
  readonly #context = { text: 0, audio: 0, image: 0 };
  /** Every usage this socket sent in response.done (tests compare the client's accounting with it). */
  readonly usageSent: RealtimeUsageSent[] = [];

  #countItem(item: ConversationItemInput): void {
    const parts = 'content' in item && Array.isArray(item.content) ? (item.content as { type?: string; text?: string }[]) : [];
    for (const part of parts) {
      if (part.type === 'input_image') this.#context.image += IMAGE_TOKENS;
      else if (typeof part.text === 'string') this.#context.text += Math.ceil(part.text.length / 4);
    }
    if (item.type === 'function_call_output') this.#context.text += Math.ceil(String(item.output ?? '').length / 4);
  }

  #responseUsage(outputAudioMs: number, transcript: string): RealtimeUsageSent {
    if (this.#context.text === 0) this.#context.text = Math.ceil(String(this.session.instructions ?? '').length / 4);
    const input = { text_tokens: this.#context.text, audio_tokens: this.#context.audio, image_tokens: this.#context.image, cached_tokens: 0 };
    const output = { text_tokens: Math.ceil(transcript.length / 4), audio_tokens: Math.ceil(outputAudioMs / OUTPUT_AUDIO_MS_PER_TOKEN) };
    const inputTokens = input.text_tokens + input.audio_tokens + input.image_tokens;
    const outputTokens = output.text_tokens + output.audio_tokens;
    const usage: RealtimeUsageSent = { total_tokens: inputTokens + outputTokens, input_tokens: inputTokens, output_tokens: outputTokens, input_token_details: input, output_token_details: output };
    this.usageSent.push(usage);
    this.#context.audio += output.audio_tokens;
    this.#context.text += output.text_tokens;
    return usage;
  }

  /** What the fake's input transcription says for the next committed user turn (default "(N ms of speech)"). */
  #userTranscript: string | null = null;
  setInputTranscript(text: string | null): void {
    this.#userTranscript = text;
  }

  #onItemCreate(item: ConversationItemInput, eventId: string | null): void {
    if (item.id && this.items.some((i) => i.id === item.id)) {
      this.error('item_already_exists', `Item with id '${item.id}' already exists.`, { param: 'item.id', eventId });
      return;
    }
    if (item.type === 'function_call_output' && !this.items.some((i) => i.type === 'function_call' && i.call_id === item.call_id)) {
      this.error('invalid_value', `Tool call ID '${item.call_id}' not found in conversation.`, { param: 'item.call_id', eventId });
      return;
    }
    const id = item.id ?? this.#newId('item');
    const record: ConversationItem = { id, type: item.type, text: itemText(item), source: 'client' };
    if (item.type === 'message') record.role = item.role;
    if (item.type === 'function_call' || item.type === 'function_call_output') record.call_id = item.call_id;
    if (item.type === 'function_call') {
      record.name = item.name;
      record.arguments = item.arguments;
    }
    const previous = this.items.at(-1)?.id ?? null;
    this.items.push(record);
    this.#countItem(item);
    const echoed = { ...item, id, object: 'realtime.item', status: 'completed' };
    this.send({ type: 'conversation.item.added', previous_item_id: previous, item: echoed });
    this.send({ type: 'conversation.item.done', previous_item_id: previous, item: echoed });
    if (item.type === 'function_call_output') this.#toolWaiters.get(item.call_id)?.(item.output);
  }

  #onTruncate(itemId: string, contentIndex: number, audioEndMs: number, eventId: string | null): void {
    const item = this.items.find((i) => i.id === itemId);
    if (!item) {
      this.error('item_not_found', `Item with item_id '${itemId}' not found.`, { param: 'item_id', eventId });
      return;
    }
    if (item.role !== 'assistant' || item.audioMs === undefined || contentIndex !== 0) {
      this.error('invalid_value', 'Only assistant messages with audio content can be truncated.', { param: 'item_id', eventId });
      return;
    }
    if (audioEndMs > item.audioMs) {
      this.error('invalid_value', `Audio content of ${item.audioMs}ms is shorter than ${audioEndMs}ms.`, { param: 'audio_end_ms', eventId });
      return;
    }
    this.truncations.push({ item_id: itemId, audio_end_ms: audioEndMs });
    item.audioMs = audioEndMs;
    item.text = `${item.text} [truncated at ${audioEndMs} ms]`;
    this.send({ type: 'conversation.item.truncated', item_id: itemId, content_index: 0, audio_end_ms: audioEndMs });
  }

  // --- the "model" ---------------------------------------------------------------------------

  #lastTrigger(): Parameters<RealtimeConnectionHooks['autoReply']>[1] | null {
    const last = this.items.at(-1);
    if (!last) return null;
    if (last.type === 'function_call_output') return { kind: 'tool_output', callId: last.call_id!, output: last.text };
    if (last.role === 'user') return { kind: 'text', text: last.text };
    return null;
  }

  #respondTo(trigger: Parameters<RealtimeConnectionHooks['autoReply']>[1] | null): void {
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
    this.#active?.stop('cancelled');
    return this.#speak(script);
  }

  #speak(script: RealtimeReplyScript): Promise<RealtimeReplyOutcome> {
    const responseId = this.#newId('resp');
    const itemId = this.#newId('item');
    const chunkMs = script.chunkMs ?? this.#hooks.defaults.chunkMs;
    const paceMs = script.paceMs ?? this.#hooks.defaults.paceMs;
    const pcm = script.pcm ?? tone(script.toneMs ?? 400);
    const perChunk = Math.max(1, Math.round((REALTIME_RATE * chunkMs) / 1000));
    const chunks = Math.ceil(pcm.length / perChunk);
    const words = script.transcript ? script.transcript.split(/(?<=\s)/) : [];
    const hasOutput = pcm.length > 0 || words.length > 0;
    this.responses++;
    return new Promise((resolve) => {
      let index = 0;
      let timer: ReturnType<typeof setTimeout> | null = null;
      let spokenText = '';
      const item: ConversationItem = { id: itemId, type: 'message', role: 'assistant', text: '', audioMs: 0, source: 'server' };
      const base = { response_id: responseId, item_id: itemId, output_index: 0, content_index: 0 };
      const finish = (outcome: RealtimeReplyOutcome): void => {
        if (timer) this.#clear(timer);
        if (this.#active === active) this.#active = null;
        if (outcome !== 'closed') {
          if (hasOutput && index > 0) {
            this.send({ type: 'response.output_item.done', response_id: responseId, output_index: 0, item: { id: itemId, type: 'message', role: 'assistant', status: outcome === 'completed' ? 'completed' : 'incomplete' } });
          }
          this.send({
            type: 'response.done',
            response: {
              id: responseId,
              object: 'realtime.response',
              status: outcome,
              ...(outcome === 'cancelled' ? { status_details: { type: 'cancelled', reason: 'client_cancelled' } } : {}),
              output: hasOutput && index > 0 ? [{ id: itemId, type: 'message', role: 'assistant' }] : [],
              usage: this.#responseUsage(item.audioMs ?? 0, spokenText),
            },
          });
        }
        resolve(outcome);
      };
      const active = { id: responseId, stop: finish };
      this.#active = active;
      const step = (): void => {
        timer = null;
        if (this.#active !== active) return;
        if (index === 0) {
          this.send({ type: 'response.created', response: { id: responseId, object: 'realtime.response', status: 'in_progress', output: [] } });
          if (hasOutput) {
            this.items.push(item);
            this.#voiceLocked = true;
            this.send({ type: 'response.output_item.added', response_id: responseId, output_index: 0, item: { id: itemId, type: 'message', role: 'assistant', status: 'in_progress', content: [] } });
            this.send({ type: 'conversation.item.added', previous_item_id: null, item: { id: itemId, type: 'message', role: 'assistant', status: 'in_progress', content: [] } });
            this.send({ type: 'response.content_part.added', ...base, part: { type: 'audio', transcript: '' } });
          }
        }
        if (index < chunks) {
          const chunk = pcm.subarray(index * perChunk, Math.min(pcm.length, (index + 1) * perChunk));
          this.send({ type: 'response.output_audio.delta', ...base, delta: pcmToBase64(chunk) });
          item.audioMs = Math.round(((index * perChunk + chunk.length) * 1000) / REALTIME_RATE);
          const from = Math.floor((index * words.length) / chunks);
          const to = Math.floor(((index + 1) * words.length) / chunks);
          if (to > from) {
            const delta = words.slice(from, to).join('');
            spokenText += delta;
            item.text = spokenText;
            this.send({ type: 'response.output_audio_transcript.delta', ...base, delta });
          }
          index++;
          timer = this.#later(step, paceMs);
          return;
        }
        if (hasOutput) {
          if (index === 0) index = 1;
          item.text = script.transcript ?? '';
          this.send({ type: 'response.output_audio.done', ...base });
          this.send({ type: 'response.output_audio_transcript.done', ...base, transcript: script.transcript ?? '' });
          this.send({ type: 'response.content_part.done', ...base, part: { type: 'audio', transcript: script.transcript ?? '' } });
        }
        finish('completed');
      };
      timer = this.#later(step, script.delayMs ?? 0);
    });
  }

  /** The model calls a function; resolves with the client's function_call_output (parsed JSON). */
  toolCall(name: string, args: JsonObject | string, options: { callId?: string; timeoutMs?: number } = {}): Promise<unknown> {
    const callId = options.callId ?? this.#newId('call');
    const responseId = this.#newId('resp');
    const itemId = this.#newId('item');
    const raw = typeof args === 'string' ? args : JSON.stringify(args);
    const result = new Promise<unknown>((resolve, reject) => {
      const timer = this.#later(() => reject(new Error(`fake realtime: no function_call_output for ${callId}`)), options.timeoutMs ?? 10_000);
      this.#toolWaiters.set(callId, (output) => {
        this.#clear(timer);
        this.#toolWaiters.delete(callId);
        try {
          resolve(JSON.parse(output));
        } catch {
          resolve(output);
        }
      });
    });
    this.responses++;
    const item = { id: itemId, type: 'function_call', status: 'completed', call_id: callId, name, arguments: raw };
    this.items.push({ id: itemId, type: 'function_call', text: raw, call_id: callId, name, arguments: raw, source: 'server' });
    this.send({ type: 'response.created', response: { id: responseId, object: 'realtime.response', status: 'in_progress', output: [] } });
    this.send({ type: 'response.output_item.added', response_id: responseId, output_index: 0, item: { ...item, status: 'in_progress', arguments: '' } });
    this.send({ type: 'response.function_call_arguments.delta', response_id: responseId, item_id: itemId, output_index: 0, call_id: callId, delta: raw });
    this.send({ type: 'response.function_call_arguments.done', response_id: responseId, item_id: itemId, output_index: 0, call_id: callId, name, arguments: raw });
    this.send({ type: 'response.output_item.done', response_id: responseId, output_index: 0, item });
    this.send({ type: 'response.done', response: { id: responseId, object: 'realtime.response', status: 'completed', output: [item], usage: { total_tokens: 30 } } });
    return result;
  }

  // --- transport -----------------------------------------------------------------------------

  send(event: JsonObject): void {
    if (!this.isOpen) return;
    const full = { event_id: this.#newId('event'), ...event };
    this.sent.push(full);
    this.#socket.send(JSON.stringify(full));
  }

  /** Anything at all on the wire (odd-message scenarios): text or a binary frame. */
  sendRaw(data: string | Buffer): void {
    if (this.isOpen) this.#socket.send(data);
  }

  error(code: string, message: string, options: { param?: string; eventId?: string | null; type?: string } = {}): void {
    this.errors.push({ code, param: options.param, message, event_id: options.eventId ?? null });
    this.send({ type: 'error', error: { type: options.type ?? 'invalid_request_error', code, message, param: options.param ?? null, event_id: options.eventId ?? null } });
  }

  close(code = 1011, reason = 'Internal server error'): void {
    if (this.closeCode === null && this.isOpen) {
      this.closeCode = code;
      this.closeReason = reason;
      this.closedBy = 'server';
    }
    this.#socket.close(code, reason);
  }

  /**
   * The session reaches its maximum duration after `ms` (the service's is 60 minutes): an `error`
   * `session_expired` and close 1001 with the same message, as reported in livekit/agents #2358 and
   * pollen-robotics/reachy_mini_conversation_app #134. Realtime has no warning before it and no
   * resumption after it: the client opens a new session and replays its history.
   */
  expireAfter(ms: number): void {
    this.#later(() => {
      this.expired = true;
      const minutes = ms % 60_000 === 0 ? `${ms / 60_000} minutes` : `${Math.round(ms / 1000)} seconds`;
      const message = `Your session hit the maximum duration of ${minutes}.`;
      this.error('session_expired', message);
      this.close(1001, message);
    }, ms);
  }

  /** Drop the TCP connection without a close frame (client sees 1006). */
  drop(): void {
    if (this.closeCode === null) {
      this.closeCode = 1006;
      this.closedBy = 'server';
    }
    this.#socket.terminate();
  }

  waitFor(predicate: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
    return waitUntil(this, ['event', 'close'], predicate, timeoutMs, () => `fake realtime connection ${this.index}: timed out waiting for ${what}`);
  }

  #newId(prefix: string): string {
    return `${prefix}_fake${this.index}_${this.#nextId++}`;
  }

  #peekId(prefix: string): string {
    return `${prefix}_fake${this.index}_${this.#nextId}`;
  }

  #later(fn: () => void, ms: number): ReturnType<typeof setTimeout> {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      fn();
    }, ms);
    this.#timers.add(timer);
    return timer;
  }

  #clear(timer: ReturnType<typeof setTimeout>): void {
    clearTimeout(timer);
    this.#timers.delete(timer);
  }
}

function itemText(item: ConversationItemInput): string {
  if (item.type === 'function_call') return item.arguments;
  if (item.type === 'function_call_output') return item.output;
  return item.content
    .map((part) => ('text' in part ? part.text : 'transcript' in part && part.transcript ? part.transcript : part.type === 'input_image' ? '[image]' : '[audio]'))
    .join(' ');
}

/** session.update replaces the fields it names (nested objects merged one level deep, like the service). */
function mergeSession(current: SessionConfig & JsonObject, update: SessionConfig): SessionConfig & JsonObject {
  const merged: JsonObject = { ...current, ...update };
  if (update.audio) {
    const audio = (current.audio ?? {}) as JsonObject;
    merged.audio = {
      input: { ...(audio.input as JsonObject), ...update.audio.input },
      output: { ...(audio.output as JsonObject), ...update.audio.output },
    };
  }
  return merged as SessionConfig & JsonObject;
}
