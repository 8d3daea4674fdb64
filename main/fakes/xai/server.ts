// A fake of xAI's Grok Voice Agent API, written from xAI's documentation and the implementations that
// ship it (sources in docs/providers.md, "xAI Grok Voice Agent"). xAI speaks the Realtime protocol's
// events, so the conversation itself (VAD, items, responses, tool calls, usage, expiry) is the
// Realtime fake's engine (../openai/realtime/connection.ts); this file is what xAI does differently,
// each enforced by default:
// - `<base>/realtime?model=…` (base `/v1`), key in `Authorization: Bearer`; a missing or wrong key is
//   HTTP 401 at the upgrade, the key never echoed (body shape: an ASSUMPTION, xAI's REST `{code, error}`);
// - the first server event is `conversation.created` (pipecat grok/realtime/events.py), never
//   `session.created`; `ping` keep-alives come every `pingEveryMs` (their interval is not published);
// - session.update in xAI's shape, strictly: instructions (≤ 16,384 characters, aimlapi), voice
//   (Ara, Eve, Leo, Rex, Sal, any case; docs.x.ai), `turn_detection` server_vad or null at the top,
//   `audio.input/output.format` audio/pcm at 8000-48000 Hz or G.711 (docs.x.ai, pipecat), tools
//   (function, web_search, x_search, file_search). Anything else is refused with its path
//   (OpenAI's fields: `type`, `model`, `audio.output.voice`, transcription settings…);
// - turn detection is the engine's server_vad on the audio received (samples, never wall time; no
//   audio, no turn end): the session's threshold / silence_duration_ms / prefix_padding_ms
//   honoured (docs.x.ai "Session Parameters"); xAI publishes no server defaults, so the engine's
//   OpenAI ones apply (0.5 / 300 / 500 ms, an ASSUMPTION; livekit-plugins-xai sends 200 ms itself);
//   `semantic_vad` is refused (xAI documents server_vad or null only);
// - client events: session.update, input_audio_buffer.append/commit/clear, conversation.item.create,
//   response.create, response.cancel (pipecat's client events); no `conversation.item.truncate`, no
//   image content (text and audio only);
// - input transcripts stream as `…transcription.completed` with `status: in_progress`, then the final
//   one `completed` (livekit-plugins-xai realtime_model.py);
// - sessions end at 30 minutes by default ("Max session duration 30 minutes", docs.x.ai
//   voice-agent-api): what the service sends then is not published; the fake sends what OpenAI's
//   does (`error` session_expired + close 1001), an ASSUMPTION;
// - an unknown model: `error` model_not_found + close 4000, as OpenAI's (an ASSUMPTION).
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import { spokenReplyToTurn } from '../../core/model/injected-text.ts';
import {
  FakeRealtimeConnection,
  type JsonObject,
  type RealtimeConnectionHooks,
  type RealtimeReplyScript,
} from '../openai/realtime/connection.ts';
import type { ResponseTrigger } from '../openai/realtime/conversation.ts';
import { bearerKey, keyAccepted, OpenAIFakeServer } from '../openai/shared.ts';
import { base64ToPcm, pcmToBase64 } from '../shared/pcm.ts';
import type { ScriptedListening } from '../shared/scripted-speech.ts';
import { SetupDelay } from '../shared/setup-delay.ts';
import { fakeTiming, type FakeTimingOptions } from '../shared/timing.ts';
import { listenWebSocketFake } from '../shared/ws-server.ts';

export const KNOWN_XAI_MODELS = ['grok-voice-think-fast-1.0', 'grok-voice-latest', 'grok-voice-fast-1.0'] as const;
export const XAI_VOICES = ['ara', 'eve', 'leo', 'rex', 'sal'] as const;
const SESSION_LIMIT_MS = 30 * 60_000;
const ENGINE_RATE = 24_000;
const CLIENT_EVENTS = new Set([
  'session.update',
  'input_audio_buffer.append',
  'input_audio_buffer.commit',
  'input_audio_buffer.clear',
  'conversation.item.create',
  'response.create',
  'response.cancel',
]);

const format = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('audio/pcm'),
      rate: z
        .union(
          [8000, 16000, 21050, 24000, 32000, 44100, 48000].map((r) => z.literal(r)) as [
            z.ZodLiteral<number>,
            z.ZodLiteral<number>,
          ],
        )
        .optional(),
    })
    .strict(),
  z.object({ type: z.literal('audio/pcmu') }).strict(),
  z.object({ type: z.literal('audio/pcma') }).strict(),
]);
const tool = z.union([
  z
    .object({
      type: z.literal('function'),
      name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
      description: z.string().optional(),
      parameters: z.record(z.string(), z.unknown()).optional(),
    })
    .strict(),
  z.object({ type: z.literal('web_search') }).strict(),
  z.object({ type: z.literal('x_search'), allowed_x_handles: z.array(z.string()).optional() }).strict(),
  z
    .object({
      type: z.literal('file_search'),
      vector_store_ids: z.array(z.string()),
      max_num_results: z.number().int().optional(),
    })
    .strict(),
]);
export const xaiSessionSchema = z
  .object({
    instructions: z.string().max(16_384).optional(),
    voice: z
      .string()
      .refine((v) => (XAI_VOICES as readonly string[]).includes(v.toLowerCase()), 'unknown voice')
      .optional(),
    turn_detection: z
      .object({
        type: z.literal('server_vad'),
        threshold: z.number().min(0).max(1).optional(),
        silence_duration_ms: z.number().int().min(0).optional(),
        prefix_padding_ms: z.number().int().min(0).optional(),
        create_response: z.boolean().optional(),
        interrupt_response: z.boolean().optional(),
      })
      .strict()
      .nullable()
      .optional(),
    audio: z
      .object({
        input: z.object({ format: format.optional() }).strict().optional(),
        output: z.object({ format: format.optional() }).strict().optional(),
      })
      .strict()
      .optional(),
    tools: z.array(tool).optional(),
  })
  .strict();
export type XaiSession = z.infer<typeof xaiSessionSchema>;

/** How the fake answers by itself; `transcribe`/`answer` as the other fakes (shared/scripted-speech.ts). */
export interface XaiAutoReply extends Pick<ScriptedListening, 'transcribe' | 'answer'> {
  /** What the model says to user speech (default: `answer` of what it heard, else a short fixed sentence). */
  transcript?: string;
  /** Input transcription of user speech (default: `transcribe` of it at 24 kHz, else "(N ms of speech)"). */
  inputTranscript?: string;
  toneMs?: number;
}

export interface FakeXaiOptions extends FakeTimingOptions {
  port?: number;
  validKeys?: readonly string[];
  models?: readonly string[];
  autoReply?: XaiAutoReply | false;
  vadRms?: number;
  /** Each session ends after this long. Default 30 min (docs.x.ai); null: never. */
  sessionLifetimeMs?: number | null;
  /** Socket open → conversation.created (default 300 ms, the OpenAI figure: none published). */
  setupDelayMs?: number;
  /** Keep-alive `ping` interval (default 10 s; not published); null: none. */
  pingEveryMs?: number | null;
}

/** One socket as xAI sees it: its own session view and checks, the Realtime engine underneath. */
export class FakeXaiConnection extends FakeRealtimeConnection {
  /** The session in xAI's shape, as the client set it. */
  xaiSession: XaiSession = {
    voice: 'Ara',
    turn_detection: { type: 'server_vad' },
    audio: { input: { format: { type: 'audio/pcm', rate: 24000 } } },
  };

  get inputRate(): number {
    const f = this.xaiSession.audio?.input?.format;
    return f?.type === 'audio/pcm' ? (f.rate ?? 24000) : 8000;
  }

  override handleRaw(text: string): void {
    let event: JsonObject;
    try {
      event = JSON.parse(text) as JsonObject;
    } catch {
      return this.error('invalid_json', 'The server could not parse the event as JSON.');
    }
    const type = typeof event.type === 'string' ? event.type : '';
    const eventId = typeof event.event_id === 'string' ? event.event_id : null;
    if (!CLIENT_EVENTS.has(type)) {
      this.received.push(event);
      return this.error('invalid_event', `Unknown event type: ${JSON.stringify(type)}.`, { param: 'type', eventId });
    }
    if (type === 'session.update') return this.#sessionUpdate(event, eventId);
    if (type === 'conversation.item.create' && JSON.stringify(event.item ?? {}).includes('"input_image"')) {
      this.received.push(event);
      return this.error('invalid_value', 'Unsupported content type input_image: content must be text or audio.', {
        param: 'item.content',
        eventId,
      });
    }
    if (type === 'input_audio_buffer.append' && typeof event.audio === 'string' && this.inputRate !== ENGINE_RATE) {
      return super.handleRaw(
        JSON.stringify({ ...event, audio: pcmToBase64(toEngineRate(base64ToPcm(event.audio), this.inputRate)) }),
      );
    }
    super.handleRaw(text);
  }

  #sessionUpdate(event: JsonObject, eventId: string | null): void {
    const parsed = xaiSessionSchema.safeParse(event.session);
    if (!parsed.success) {
      this.received.push(event);
      const issue = parsed.error.issues[0]!;
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
      const param = ['session', ...issue.path.map(String), ...keys.slice(0, 1)].join('.');
      return this.error(
        keys.length ? 'unknown_parameter' : 'invalid_value',
        `Invalid session.update: ${issue.message} (${param}).`,
        { param, eventId },
      );
    }
    const update = parsed.data;
    this.xaiSession = { ...this.xaiSession, ...update, audio: { ...this.xaiSession.audio, ...update.audio } };
    // The same settings to the engine in its own shape: it runs VAD, transcription and replies.
    const engine: JsonObject = {
      type: 'realtime',
      audio: {
        input: {
          transcription: { model: 'grok' },
          ...(update.turn_detection !== undefined ? { turn_detection: update.turn_detection } : {}),
        },
      },
    };
    if (update.instructions !== undefined) engine.instructions = update.instructions;
    if (update.tools) engine.tools = update.tools.filter((t) => t.type === 'function');
    super.handleRaw(
      JSON.stringify({ type: 'session.update', ...(eventId ? { event_id: eventId } : {}), session: engine }),
    );
  }

  override send(event: JsonObject): void {
    if (event.type === 'session.updated') return super.send({ type: 'session.updated', session: this.xaiSession });
    if (event.type === 'conversation.item.input_audio_transcription.completed') {
      const transcript = String(event.transcript ?? '');
      super.send({ ...event, transcript: transcript.split(' ').slice(0, 1).join(' '), status: 'in_progress' });
      return super.send({ ...event, status: 'completed' });
    }
    super.send(event);
  }

  /** Keep-alive pings until the socket ends (their timers die with it). */
  pingEvery(ms: number): void {
    this.later(() => {
      super.send({ type: 'ping', timestamp: Date.now() });
      this.pingEvery(ms);
    }, ms);
  }
}

/** Linear interpolation to the engine's 24 kHz (the fake's VAD and transcripts count 24 kHz samples). */
function toEngineRate(pcm: Int16Array, rate: number): Int16Array {
  const out = new Int16Array(Math.round((pcm.length * ENGINE_RATE) / rate));
  for (let i = 0; i < out.length; i++) {
    const at = (i * rate) / ENGINE_RATE;
    const j = Math.floor(at);
    const next = pcm[Math.min(j + 1, pcm.length - 1)] ?? 0;
    out[i] = Math.round((pcm[j] ?? 0) + (at - j) * (next - (pcm[j] ?? 0)));
  }
  return out;
}

export class FakeXai extends OpenAIFakeServer<
  FakeXaiConnection,
  { connection: [FakeXaiConnection]; ready: [FakeXaiConnection] }
> {
  readonly #options: FakeXaiOptions;
  readonly #setup: SetupDelay;
  readonly #hooks: RealtimeConnectionHooks;

  constructor(server: Server, wss: WebSocketServer, options: FakeXaiOptions) {
    super(server, wss, 'fake xai');
    this.#options = options;
    this.#setup = new SetupDelay(options.setupDelayMs ?? 300);
    const transcribe = options.autoReply ? options.autoReply.transcribe : undefined;
    this.#hooks = {
      timing: fakeTiming('openai-realtime', options),
      vadRms: options.vadRms ?? 1000,
      autoReply: (c, trigger) => this.#autoReply(c, trigger),
      // The engine's buffer is at 24 kHz whatever rate the client sends (toEngineRate).
      ...(transcribe ? { transcribe: (pcm: Int16Array) => transcribe(pcm, ENGINE_RATE) } : {}),
    };
  }

  /** Connections whose model was accepted (the client got conversation.created). */
  get established(): FakeXaiConnection[] {
    return this.connections.filter((c) => c.sent.some((e) => e.type === 'conversation.created'));
  }

  protected override refuse(socket: Duplex, status: number, code: string | null, message: string): void {
    this.refusals.push(status);
    const body = JSON.stringify({ code: code ?? 'Unauthorized', error: message });
    socket.end(
      `HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : 'Not Found'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }

  protected acceptUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname !== '/v1/realtime')
      return this.refuse(socket, 404, 'Not Found', `No route for GET ${url.pathname}`);
    const key = bearerKey(req);
    if (!key)
      return this.refuse(socket, 401, 'Unauthorized', 'No API key provided in the Authorization header (Bearer).');
    if (!keyAccepted(key, this.#options.validKeys))
      return this.refuse(
        socket,
        401,
        'Unauthorized',
        `Incorrect API key provided: ${key.slice(0, 2)}***${key.slice(-2)}. You can obtain an API key from https://console.x.ai.`,
      );
    const model = url.searchParams.get('model') ?? 'grok-voice-latest';
    this.wss.handleUpgrade(req, socket, head, (ws) => this.#accept(ws, req, model, key));
  }

  #accept(ws: WebSocket, req: IncomingMessage, model: string, key: string): void {
    const connection = new FakeXaiConnection(
      ws,
      { index: this.connections.length, model, key, headers: { ...req.headers } },
      this.#hooks,
    );
    this.connections.push(connection);
    this.emit('connection', connection);
    this.routeTextFrames(ws, connection);
    if (!(this.#options.models ?? KNOWN_XAI_MODELS).includes(model)) {
      connection.error('model_not_found', `The model ${model} does not exist or your team does not have access to it.`);
      connection.close(4000, 'model_not_found');
      return;
    }
    this.#setup.run(connection, () => {
      connection.send({
        type: 'conversation.created',
        conversation: { id: `conv_fake_${connection.index}`, object: 'realtime.conversation' },
      });
      const transcript = this.#options.autoReply ? this.#options.autoReply.inputTranscript : undefined;
      if (transcript) connection.setInputTranscript(transcript);
      const lifetime =
        this.#options.sessionLifetimeMs === undefined ? SESSION_LIMIT_MS : this.#options.sessionLifetimeMs;
      if (lifetime !== null) connection.expireAfter(lifetime);
      const ping = this.#options.pingEveryMs === undefined ? 10_000 : this.#options.pingEveryMs;
      if (ping !== null) connection.pingEvery(ping);
      this.emit('ready', connection);
    });
  }

  #autoReply(connection: FakeRealtimeConnection, trigger: ResponseTrigger): RealtimeReplyScript | null {
    const auto = this.#options.autoReply;
    if (!auto) return null;
    const fixed = 'Hello from the fake Grok model.';
    if (trigger.kind === 'speech') {
      // What the committed turn was transcribed as (the user item the engine's commit added).
      const heard = connection.items.findLast((item) => item.role === 'user')?.text ?? '';
      return {
        transcript: auto.transcript ?? ((auto.answer && heard && auto.answer(heard)) || fixed),
        toneMs: auto.toneMs,
      };
    }
    // A model speaks an announcement's words and answers a message; it never reads the wording aloud.
    if (trigger.kind === 'text') {
      const transcript = spokenReplyToTurn(trigger.text, auto.transcript ?? auto.answer ?? fixed);
      return transcript ? { transcript, toneMs: auto.toneMs } : null;
    }
    return { transcript: `The tool answered: ${trigger.output.slice(0, 80)}`, toneMs: auto.toneMs };
  }
}

export function startFakeXai(options: FakeXaiOptions = {}): Promise<FakeXai> {
  return listenWebSocketFake(
    { port: options.port, notFoundBody: { code: 'Not Found', error: 'Not found' } },
    (server, wss) => new FakeXai(server, wss, options),
  );
}
