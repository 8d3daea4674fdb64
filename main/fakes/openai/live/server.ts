// A protocol-faithful fake of GPT-Live's primary WebSocket (`<base>/live/sessions`) on a plain
// ws:// socket. Follows openai@7.57.0 resources/live/live.d.ts and the voice-websockets guide:
// - no query parameters on the URL (one is an HTTP 400), `Authorization: Bearer` (bad key: HTTP 401
//   with OpenAI's JSON error body);
// - `session.start` must be the first message; the session object is strict (unknown fields →
//   `unknown_parameter`), PCM is 16000 or 24000 Hz only, `input` holds at most 128 text messages
//   with one part each; an unknown model gets `model_not_found` and close 4000 (the Realtime
//   pattern; GPT-Live's exact code is not published);
// - commands before `session.started`, unknown event types, bad base64, `response.*` without
//   Responses delegation, a function_call_output for an unknown call: each gets an `error` event;
// - full duplex: the "model" speaks when scripted and yields when the user speaks over it; output
//   and input transcripts are fragments with session-timeline ms; usage is cumulative seconds.
// Scriptable like the other fakes; usable from vitest and plain Node.
import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import { base64ToPcm, concatPcm, pcmToBase64, rms, tone } from '../../gemini/pcm.ts';
import { tailPcm } from '../../shared/pcm.ts';
import { BASE64_RE, describeIssue } from '../realtime/protocol.ts';
import { closeWebSocketFake, listenWebSocketFake, refuseUpgrade, waitUntil } from '../shared.ts';
import { SetupDelay } from '../setup-delay.ts';
import type { FakeLiveOptions } from './options.ts';
import { spokenReplyToTurn } from '../../../core/model/injected-text.ts';

export type { FakeLiveOptions } from './options.ts';

export const KNOWN_GPT_LIVE_MODELS = ['gpt-live-1.1', 'gpt-live-1'] as const;
const BUILT_IN_VOICES = ['alloy', 'ash', 'ballad', 'beacon', 'bossa', 'cedar', 'cinder', 'coral', 'delta', 'echo', 'gleam', 'marin', 'meridian', 'quartz', 'ripple', 'sage', 'shida', 'shimmer', 'stone', 'tempo', 'verse', 'vesper', 'willow'] as const;

type JsonObject = Record<string, unknown>;

const textPart = z.object({ type: z.enum(['input_text', 'output_text', 'text']).optional(), text: z.string() }).strict();
const sessionSchema = z
  .object({
    model: z.string().min(1),
    instructions: z.string().nullish(),
    audio: z
      .object({
        format: z.union([
          z.object({ type: z.literal('audio/pcm'), rate: z.union([z.literal(16000), z.literal(24000)]) }).strict(),
          z.object({ type: z.enum(['audio/pcmu', 'audio/pcma']), rate: z.literal(8000) }).strict(),
        ]).optional(),
        output: z.object({ voice: z.union([z.enum(BUILT_IN_VOICES), z.object({ id: z.string() }).strict()]).optional() }).strict().optional(),
      })
      .strict()
      .optional(),
    delegation: z
      .union([
        z.object({ type: z.literal('client'), acknowledgement_delay_ms: z.number().int().min(0).optional() }).strict(),
        z
          .object({
            type: z.literal('responses'),
            acknowledgement_delay_ms: z.number().int().min(0).optional(),
            responses: z
              .object({
                model: z.string().min(1),
                instructions: z.string().nullish(),
                max_output_tokens: z.number().int().nullish(),
                parallel_tool_calls: z.boolean().nullish(),
                tool_choice: z.union([z.enum(['auto', 'none', 'required']), z.record(z.string(), z.unknown())]).optional(),
                tools: z
                  .array(
                    z.union([
                      z.object({ type: z.literal('function'), name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/), description: z.string().nullish(), parameters: z.record(z.string(), z.unknown()).nullish(), strict: z.boolean().nullish() }).strict(),
                      z.object({ type: z.literal('web_search') }).passthrough(),
                    ]),
                  )
                  .optional(),
              })
              .strict(),
          })
          .strict(),
      ])
      .nullish(),
    input: z
      .array(z.object({ type: z.literal('message').optional(), role: z.enum(['developer', 'user', 'assistant']), id: z.string().nullish(), status: z.string().nullish(), content: z.array(textPart).length(1) }).strict())
      .max(128)
      .optional(),
    store: z.boolean().optional(),
  })
  .strict();
type LiveSessionConfig = z.infer<typeof sessionSchema>;

const eventId = z.string().nullish();
const clientSchemas: Record<string, z.ZodType> = {
  'session.start': z.object({ type: z.literal('session.start'), event_id: eventId, session: sessionSchema }).strict(),
  'session.update': z.object({ type: z.literal('session.update'), event_id: eventId, session: z.record(z.string(), z.unknown()) }).strict(),
  'session.input_audio.append': z.object({ type: z.literal('session.input_audio.append'), event_id: eventId, audio: z.string().regex(BASE64_RE, 'expected base64-encoded audio') }).strict(),
  'session.input_audio.mute': z.object({ type: z.literal('session.input_audio.mute'), event_id: eventId }).strict(),
  'session.input_audio.unmute': z.object({ type: z.literal('session.input_audio.unmute'), event_id: eventId }).strict(),
  'session.instructions.append': z.object({ type: z.literal('session.instructions.append'), event_id: eventId, content: z.string().min(1).max(2000), delegation_id: z.string().nullable() }).strict(),
  'session.thinking.append': z.object({ type: z.literal('session.thinking.append'), event_id: eventId, content: z.string().min(1).max(2000), delegation_id: z.string().nullable() }).strict(),
  'session.commentary.append': z.object({ type: z.literal('session.commentary.append'), event_id: eventId, content: z.string().min(1).max(2000), delegation_id: z.string().nullable() }).strict(),
  'response.item.create': z.object({ type: z.literal('response.item.create'), event_id: eventId, item: z.record(z.string(), z.unknown()) }).strict(),
  'response.create': z.object({ type: z.literal('response.create'), event_id: eventId }).strict(),
  'session.close': z.object({ type: z.literal('session.close'), event_id: eventId }).strict(),
};

export interface LiveReplyScript {
  pcm?: Int16Array;
  toneMs?: number;
  transcript?: string;
  chunkMs?: number;
  paceMs?: number;
  delayMs?: number;
}
export type LiveReplyOutcome = 'completed' | 'interrupted' | 'closed';

export interface FakeLiveConnectionEvents {
  event: [event: JsonObject];
  close: [code: number, reason: string];
  /** The model heard the user stop (500 ms quiet after speech); `pcm` is the utterance at the session's rate. */
  userTurn: [turn: { ms: number; pcm: Int16Array }];
}

export class FakeLiveConnection extends EventEmitter<FakeLiveConnectionEvents> {
  readonly index: number;
  readonly headers: Record<string, string | string[] | undefined>;
  session: LiveSessionConfig | null = null;
  sessionId: string | null = null;
  readonly received: JsonObject[] = [];
  readonly sent: JsonObject[] = [];
  readonly errors: { code: string; message: string; param?: string }[] = [];
  readonly audio: Int16Array[] = [];
  readonly commentary: string[] = [];
  readonly instructions: string[] = [];
  /** Silent context (`session.thinking.append`), in order. */
  readonly thinking: string[] = [];
  readonly toolOutputs: { call_id: string; output: string }[] = [];
  responseCreates = 0;
  /** The service ended this session at its duration limit (expireAfter), not a fault. */
  expired = false;
  closeCode: number | null = null;
  closeReason = '';
  #rate = 24_000;
  #inputSamples = 0;
  #outputSamples = 0;
  #speaking = false;
  #speechSamples = 0;
  #quietSamples = 0;
  #nextId = 1;
  #active: { stop: (outcome: LiveReplyOutcome) => void } | null = null;
  readonly #toolWaiters = new Map<string, (output: string) => void>();
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  readonly #socket: WebSocket;
  readonly #server: FakeOpenAILive;

  constructor(socket: WebSocket, index: number, headers: Record<string, string | string[] | undefined>, server: FakeOpenAILive) {
    super();
    this.#socket = socket;
    this.index = index;
    this.headers = headers;
    this.#server = server;
    socket.on('close', (code, reason) => {
      this.closeCode ??= code;
      this.closeReason ||= reason.toString();
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

  get rate(): number {
    return this.#rate;
  }

  inputPcm(): Int16Array {
    return concatPcm(this.audio);
  }

  /** Texts the session knows: startup `input` history, then commentary/instructions in order. */
  conversation(): string[] {
    return [...(this.session?.input ?? []).map((item) => `${item.role}: ${item.content[0]!.text}`), ...this.commentary.map((c) => `commentary: ${c}`), ...this.toolOutputs.map((t) => `tool: ${t.output}`)];
  }

  handleRaw(text: string): void {
    let event: JsonObject;
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      event = parsed as JsonObject;
    } catch {
      this.error('invalid_json', 'The message could not be parsed as a JSON object.');
      return;
    }
    this.received.push(event);
    this.#handleEvent(event);
    // After handling, so a waiter sees the effect of the event it was woken by.
    this.emit('event', event);
  }

  #handleEvent(event: JsonObject): void {
    const type = typeof event.type === 'string' ? event.type : '';
    const schema = clientSchemas[type];
    if (!schema) {
      this.error('invalid_value', `Invalid value: '${type}'. Supported values are: ${Object.keys(clientSchemas).map((t) => `'${t}'`).join(', ')}.`, 'type');
      return;
    }
    if (type !== 'session.start' && !this.sessionId) {
      this.error('session_not_started', 'Send session.start and wait for session.started before other commands.');
      return;
    }
    const checked = schema.safeParse(event);
    if (!checked.success) {
      const issue = describeIssue(checked.error);
      this.error(issue.code, issue.message, issue.param);
      return;
    }
    this.#dispatch(type, event);
  }

  #dispatch(type: string, event: JsonObject): void {
    switch (type) {
      case 'session.start':
        return this.#server.start(this, event.session as LiveSessionConfig);
      case 'session.input_audio.append':
        return this.#onAudio(event.audio as string);
      case 'session.commentary.append':
      case 'session.instructions.append':
      case 'session.thinking.append': {
        if (event.delegation_id !== null && this.session?.delegation?.type === 'responses') {
          this.error('invalid_value', 'Non-null delegation_id is not accepted with Responses delegation.', 'delegation_id');
          return;
        }
        const content = event.content as string;
        if (type === 'session.commentary.append') this.commentary.push(content);
        else if (type === 'session.thinking.append') this.thinking.push(content);
        else this.instructions.push(content);
        this.send({ type: type.replace('.append', '.appended'), start_ms: this.#timelineMs(), end_ms: this.#timelineMs() });
        if (type === 'session.commentary.append') this.#server.autoSpeak(this, { kind: 'text', text: content });
        return;
      }
      case 'response.item.create':
      case 'response.create': {
        if (this.session?.delegation?.type !== 'responses') {
          this.error('invalid_request_error', `${type} requires Responses delegation.`);
          return;
        }
        if (type === 'response.create') {
          this.responseCreates++;
          return;
        }
        const item = event.item as { type?: string; call_id?: string; output?: string };
        if (item.type === 'function_call_output') {
          const waiter = item.call_id ? this.#toolWaiters.get(item.call_id) : undefined;
          if (!waiter || typeof item.output !== 'string') {
            this.error('invalid_value', `No function call found with call_id '${String(item.call_id)}'.`, 'item.call_id');
            return;
          }
          this.toolOutputs.push({ call_id: item.call_id!, output: item.output });
          waiter(item.output);
        }
        return;
      }
      case 'session.close':
        this.send({ type: 'session.closed', reason: 'close_requested', usage: { seconds: this.usageSeconds }, session: this.#resource() });
        this.#socket.close(1000, 'session closed');
        return;
      default:
        return;
    }
  }

  get usageSeconds(): number {
    return Math.round(((this.#inputSamples + this.#outputSamples) / this.#rate) * 10) / 10;
  }

  startedWith(session: LiveSessionConfig, id: string): void {
    this.session = session;
    this.sessionId = id;
    this.#rate = session.audio?.format?.type === 'audio/pcm' ? session.audio.format.rate : 8000;
    this.send({ type: 'session.started', session: this.#resource() });
  }

  #resource(): JsonObject {
    return { ...this.session, id: this.sessionId, status: 'active', expires_at: Math.floor(Date.now() / 1000) + 3600 };
  }

  #timelineMs(): number {
    return Math.round((this.#inputSamples / this.#rate) * 1000);
  }

  #onAudio(audio: string): void {
    const bytes = Buffer.from(audio, 'base64');
    if (bytes.length % 2 !== 0) {
      this.error('invalid_value', 'PCM16 audio must contain an even number of bytes.', 'audio');
      return;
    }
    const pcm = base64ToPcm(audio);
    this.audio.push(pcm);
    this.#inputSamples += pcm.length;
    const loud = rms(pcm) > this.#server.vadRms;
    // Full duplex: the model hears the user over its own speech and yields.
    if (loud && this.#active) this.#active.stop('interrupted');
    if (loud && !this.#speaking) {
      this.#speaking = true;
      this.#speechSamples = 0;
      this.#quietSamples = 0;
    }
    if (!this.#speaking) return;
    this.#speechSamples += pcm.length;
    this.#quietSamples = loud ? 0 : this.#quietSamples + pcm.length;
    if (this.#quietSamples >= this.#rate / 2) {
      this.#speaking = false;
      const ms = Math.round(((this.#speechSamples - this.#quietSamples) / this.#rate) * 1000);
      this.emit('userTurn', { ms, pcm: tailPcm(this.audio, this.#speechSamples) });
      this.#server.autoSpeak(this, { kind: 'speech', ms });
    }
  }

  /** What the model heard the user say, as input transcript fragments on the session timeline. */
  sendInputTranscript(text: string, ms: number): void {
    const endMs = this.#timelineMs();
    for (const word of text.split(/(?<=\s)/)) this.send({ type: 'session.input_transcript.delta', delta: word, start_ms: Math.max(0, endMs - ms), end_ms: endMs });
  }

  /**
   * The session reaches its duration limit after `ms`: the terminal `session.closed` with reason
   * `expired` (live.d.ts SessionClosedEvent) and its final usage, then the socket closes (1000: the
   * reference publishes no close code for it; an assumption). GPT-Live has no resumption: the
   * client starts a new session with its history as `input`.
   */
  expireAfter(ms: number): void {
    this.#later(() => {
      this.expired = true;
      this.#active?.stop('closed');
      this.send({ type: 'session.closed', reason: 'expired', usage: { seconds: this.usageSeconds }, session: this.#resource() });
      this.close(1000, 'session expired');
    }, ms);
  }

  /** The model speaks (full duplex: no turn events, audio and transcript fragments only). */
  reply(script: LiveReplyScript = {}): Promise<LiveReplyOutcome> {
    this.#active?.stop('interrupted');
    const chunkMs = script.chunkMs ?? this.#server.chunkMs;
    const paceMs = script.paceMs ?? this.#server.paceMs;
    const pcm = script.pcm ?? tone(script.toneMs ?? 400, { rate: this.#rate });
    const perChunk = Math.max(1, Math.round((this.#rate * chunkMs) / 1000));
    const chunks = Math.ceil(pcm.length / perChunk);
    const words = script.transcript ? script.transcript.split(/(?<=\s)/) : [];
    return new Promise((resolve) => {
      let index = 0;
      let timer: ReturnType<typeof setTimeout> | null = null;
      const active = {
        stop: (outcome: LiveReplyOutcome) => {
          if (timer) this.#clear(timer);
          if (this.#active === active) this.#active = null;
          if (outcome !== 'closed') this.send({ type: 'session.usage.updated', usage: { seconds: this.usageSeconds } });
          resolve(outcome);
        },
      };
      this.#active = active;
      const step = (): void => {
        timer = null;
        if (this.#active !== active) return;
        if (index >= chunks) return active.stop('completed');
        const chunk = pcm.subarray(index * perChunk, Math.min(pcm.length, (index + 1) * perChunk));
        const startMs = Math.round((this.#outputSamples / this.#rate) * 1000);
        this.#outputSamples += chunk.length;
        this.send({ type: 'session.output_audio.delta', delta: pcmToBase64(chunk) });
        const from = Math.floor((index * words.length) / chunks);
        const to = Math.floor(((index + 1) * words.length) / chunks);
        if (to > from) this.send({ type: 'session.output_transcript.delta', delta: words.slice(from, to).join(''), start_ms: startMs, end_ms: Math.round((this.#outputSamples / this.#rate) * 1000) });
        index++;
        timer = this.#later(step, paceMs);
      };
      timer = this.#later(step, script.delayMs ?? 0);
    });
  }

  /** The model delegates to the Responses backend, which calls a function tool; resolves with the output. */
  toolCall(name: string, args: JsonObject | string, options: { callId?: string; timeoutMs?: number } = {}): Promise<unknown> {
    const callId = options.callId ?? `call_${this.index}_${this.#nextId++}`;
    const delegationId = `deleg_${this.index}_${this.#nextId++}`;
    const responseId = `resp_${this.index}_${this.#nextId++}`;
    const raw = typeof args === 'string' ? args : JSON.stringify(args);
    const result = new Promise<unknown>((resolve, reject) => {
      const timer = this.#later(() => reject(new Error(`fake live: no function_call_output for ${callId}`)), options.timeoutMs ?? 10_000);
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
    this.send({ type: 'session.delegation.created', offset_ms: this.#timelineMs(), delegation: { id: delegationId, target: 'responses', type: 'delegation', response_id: responseId } });
    this.send({ type: 'response.event', delegation_id: delegationId, event: { type: 'response.created', response: { id: responseId } } });
    const item = { id: `fc_${callId}`, type: 'function_call', call_id: callId, name, arguments: raw, status: 'completed' };
    this.send({ type: 'response.event', delegation_id: delegationId, event: { type: 'response.output_item.done', output_index: 0, item } });
    this.send({ type: 'response.event', delegation_id: delegationId, event: { type: 'response.completed', response: { id: responseId, usage: { total_tokens: 40 } } } });
    return result;
  }

  send(event: JsonObject): void {
    if (!this.isOpen) return;
    const full = { event_id: `evt_fake${this.index}_${this.#nextId++}`, ...event };
    this.sent.push(full);
    this.#socket.send(JSON.stringify(full));
  }

  sendRaw(data: string | Buffer): void {
    if (this.isOpen) this.#socket.send(data);
  }

  error(code: string, message: string, param?: string): void {
    this.errors.push({ code, message, param });
    this.send({ type: 'error', error: { type: 'invalid_request_error', code, message, ...(param ? { param } : {}) } });
  }

  close(code = 1011, reason = 'Internal server error'): void {
    this.closeCode ??= code;
    this.closeReason ||= reason;
    this.#socket.close(code, reason);
  }

  drop(): void {
    this.closeCode ??= 1006;
    this.#socket.terminate();
  }

  waitFor(predicate: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
    return waitUntil(this, ['event', 'close'], predicate, timeoutMs, () => `fake live connection ${this.index}: timed out waiting for ${what}`);
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

export class FakeOpenAILive extends EventEmitter<{ ready: [FakeLiveConnection] }> {
  readonly url: string;
  readonly port: number;
  upgradeAttempts = 0;
  readonly refusals: number[] = [];
  readonly connections: FakeLiveConnection[] = [];
  readonly chunkMs: number;
  readonly paceMs: number;
  readonly vadRms: number;
  readonly #server: Server;
  readonly #wss: WebSocketServer;
  readonly #options: FakeLiveOptions;
  #nextSession = 1;
  readonly #setup: SetupDelay;

  constructor(server: Server, wss: WebSocketServer, options: FakeLiveOptions) {
    super();
    this.#server = server;
    this.#wss = wss;
    this.#options = options;
    this.port = (server.address() as AddressInfo).port;
    this.url = `ws://127.0.0.1:${this.port}/v1`;
    this.chunkMs = options.chunkMs ?? 40;
    this.paceMs = options.paceMs ?? 20;
    this.vadRms = options.vadRms ?? 1000;
    this.#setup = new SetupDelay(options.setupDelayMs);
  }

  get established(): FakeLiveConnection[] {
    return this.connections.filter((c) => c.sessionId !== null);
  }

  async connection(n: number, timeoutMs = 10_000): Promise<FakeLiveConnection> {
    await waitUntil(this, ['ready'], () => this.established[n] !== undefined, timeoutMs, () => `fake live: no connection #${n} within ${timeoutMs} ms (have ${this.established.length})`);
    return this.established[n]!;
  }

  close(): Promise<void> {
    return closeWebSocketFake(this.#server, this.#wss);
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.upgradeAttempts++;
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname !== '/v1/live/sessions') return this.#refuse(socket, 404, null, `Invalid URL (GET ${url.pathname})`);
    if (url.search) return this.#refuse(socket, 400, 'unknown_parameter', 'Connect to /v1/live/sessions with no query parameters; put the model in session.start.');
    const key = /^Bearer\s+(\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const valid = this.#options.validKeys;
    if (!key || (valid ? !valid.includes(key) : key.length < 8)) {
      return this.#refuse(socket, 401, 'invalid_api_key', key ? `Incorrect API key provided: ${key.slice(0, 3)}***${key.slice(-4)}.` : "You didn't provide an API key.");
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      const connection = new FakeLiveConnection(ws, this.connections.length, { ...req.headers }, this);
      this.connections.push(connection);
      ws.on('message', (data, isBinary) => {
        if (isBinary) connection.error('invalid_request_error', 'Binary frames are not supported; send JSON text frames.');
        else connection.handleRaw(data.toString());
      });
    });
  }

  /** Called by a connection on a valid session.start. */
  start(connection: FakeLiveConnection, session: LiveSessionConfig): void {
    if (connection.sessionId || this.#setup.pending(connection)) {
      connection.error('session_already_started', 'session.start may be sent once per connection.');
      return;
    }
    if (!(this.#options.models ?? KNOWN_GPT_LIVE_MODELS).includes(session.model)) {
      connection.error('model_not_found', `The model \`${session.model}\` does not exist or you do not have access to it.`, 'session.model');
      connection.close(4000, 'invalid_request_error.model_not_found');
      return;
    }
    const id = `live_sess_${this.#nextSession++}`;
    this.#setup.run(connection, () => {
      connection.startedWith(session, id);
      if (this.#options.sessionLifetimeMs) connection.expireAfter(this.#options.sessionLifetimeMs);
      this.emit('ready', connection);
    });
  }

  autoSpeak(connection: FakeLiveConnection, trigger: { kind: 'speech'; ms: number } | { kind: 'text'; text: string }): void {
    const auto = this.#options.autoReply;
    if (!auto) return;
    if (trigger.kind === 'speech') {
      connection.sendInputTranscript(auto.inputTranscript ?? `(${trigger.ms} ms of speech)`, trigger.ms);
      void connection.reply({ transcript: auto.transcript ?? 'Hello from the fake GPT-Live model.', toneMs: auto.toneMs });
    } else {
      // A real model speaks an announcement's words and answers a message; it never reads the wording aloud.
      void connection.reply({ transcript: spokenReplyToTurn(trigger.text, auto.transcript ?? 'Hello from the fake GPT-Live model.'), toneMs: auto.toneMs });
    }
  }

  #refuse(socket: Duplex, status: number, code: string | null, message: string): void {
    this.refusals.push(status);
    refuseUpgrade(socket, status, code, message);
  }
}

export function startFakeOpenAILive(options: FakeLiveOptions = {}): Promise<FakeOpenAILive> {
  return listenWebSocketFake(options.port, (server, wss) => new FakeOpenAILive(server, wss, options));
}
