// A protocol-faithful fake of the OpenAI Realtime API (GA) on a plain ws:// socket on 127.0.0.1.
// It follows the published protocol, not our client's habits:
// - the socket lives at `<base>/realtime?model=…` (base `/v1`); any other path is an HTTP 404;
// - the key comes in `Authorization: Bearer …`; a missing or wrong key is refused at the upgrade
//   with HTTP 401 and OpenAI's JSON error body (`invalid_api_key`), never echoing the key;
// - an unknown model gets an `error` event (`model_not_found`) and close 4000
//   `invalid_request_error.model_not_found` (the pattern livekit/agents-js #1756 reports for
//   rejected models);
// - the first server event is `session.created`; every client event is validated (protocol.ts):
//   unknown event types, unknown or invalid session fields, bad base64, truncating past the audio,
//   a second response while one is active, cancelling none… each get the `error` event the
//   service sends, and the session stays open (most Realtime errors are recoverable);
// - turn detection runs on the appended audio, counted in samples, never wall time (no audio: no
//   turn end): server_vad with the session's threshold / prefix_padding_ms / silence_duration_ms
//   (defaults 0.5 / 300 / 500) and a documented stand-in for semantic_vad's eagerness
//   (turn-detection.ts); interrupt_response / create_response behave as documented;
// - there is no resumption: each socket is a new, empty conversation.
// Usable from vitest and from plain Node scripts (demo, latency benchmark).
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { spokenReplyToTurn } from '../../../core/model/injected-text.ts';
import type { WebSocket, WebSocketServer } from 'ws';
import { SERVICE_TIMING } from '../../shared/service-timing.ts';
import { SetupDelay } from '../../shared/setup-delay.ts';
import { fakeTiming, type FakeTiming, type FakeTimingOptions } from '../../shared/timing.ts';
import { listenWebSocketFake } from '../../shared/ws-server.ts';
import { bearerKey, keyAccepted, OPENAI_NOT_FOUND, OpenAIFakeServer } from '../shared.ts';
import type { ResponseTrigger } from './conversation.ts';
import { FakeRealtimeConnection, REALTIME_RATE, type RealtimeReplyScript } from './connection.ts';
import type { ScriptedListening } from '../../shared/scripted-speech.ts';
import { FakeTranscriptionConnection } from './transcription.ts';

export const KNOWN_REALTIME_MODELS = [
  'gpt-realtime-2.1',
  'gpt-realtime-2.1-mini',
  'gpt-realtime-2',
  'gpt-realtime-1.5',
  'gpt-realtime',
  'gpt-realtime-mini',
] as const;

/** Sessions last at most 60 minutes (research/protocols.md §2, the realtime-conversations guide). */
const REALTIME_SESSION_LIMIT_MS = 60 * 60_000;

export interface RealtimeAutoReply extends ScriptedListening {
  /** What the model says to user speech (default: `answer` of what it heard, else a short fixed sentence). */
  transcript?: string;
  /** Input transcription of user speech (default: `transcribe` of it at 24 kHz, else "(N ms of speech)"). */
  inputTranscript?: string;
  /** Speak injected user text (default true): the reply's transcript is the text itself. */
  speakInjectedText?: boolean;
  toneMs?: number;
}

export interface FakeRealtimeOptions extends FakeTimingOptions {
  port?: number;
  /** Only these keys are accepted; by default every key of 8+ characters is. */
  validKeys?: readonly string[];
  models?: readonly string[];
  autoReply?: RealtimeAutoReply | false;
  /** RMS above which appended audio counts as speech for server VAD. Default 1000. */
  vadRms?: number;
  /** What transcription sessions hear in a committed buffer (default "(N ms of speech)"). */
  transcribe?: (pcm24k: Int16Array) => string;
  /** How long a transcription takes after the commit. Default 50 ms. */
  transcribeDelayMs?: number;
  /** Each session ends after this long (`session_expired`, close 1001). Default: the service's 60 min; null: never. */
  sessionLifetimeMs?: number | null;
  /** Socket open → session.created, ms (default SERVICE_TIMING['openai-realtime'].setupMs). */
  setupDelayMs?: number;
}

export interface FakeRealtimeEvents {
  connection: [connection: FakeRealtimeConnection];
  /** The client got `session.created`. */
  ready: [connection: FakeRealtimeConnection];
  /** A transcription-only session opened. */
  transcription: [];
}

export class FakeOpenAIRealtime extends OpenAIFakeServer<FakeRealtimeConnection, FakeRealtimeEvents> {
  /** Transcription-only sessions (`?intent=transcription`), in order. */
  readonly transcriptions: FakeTranscriptionConnection[] = [];
  readonly #options: FakeRealtimeOptions;
  readonly #setup: SetupDelay;
  readonly #timing: FakeTiming;

  constructor(server: Server, wss: WebSocketServer, options: FakeRealtimeOptions) {
    super(server, wss, 'fake realtime');
    this.#setup = new SetupDelay(options.setupDelayMs ?? SERVICE_TIMING['openai-realtime'].setupMs);
    this.#timing = fakeTiming('openai-realtime', options);
    this.#options = options;
  }

  /** Connections whose model was accepted (the client got session.created). */
  get established(): FakeRealtimeConnection[] {
    return this.connections.filter((c) => c.sent.some((e) => e.type === 'session.created'));
  }

  protected acceptUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname !== '/v1/realtime') return this.refuse(socket, 404, null, `Invalid URL (GET ${url.pathname})`);
    const key = bearerKey(req);
    if (!key)
      return this.refuse(
        socket,
        401,
        null,
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
      );
    if (!keyAccepted(key, this.#options.validKeys)) {
      return this.refuse(
        socket,
        401,
        'invalid_api_key',
        `Incorrect API key provided: ${key.slice(0, 3)}***${key.slice(-4)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      );
    }
    const model = url.searchParams.get('model');
    if (!model && url.searchParams.get('intent') === 'transcription') {
      this.wss.handleUpgrade(req, socket, head, (ws) => this.#acceptTranscription(ws));
      return;
    }
    if (!model) return this.refuse(socket, 400, 'missing_model', "Missing required parameter: 'model'.");
    this.wss.handleUpgrade(req, socket, head, (ws) => this.#accept(ws, req, model, key));
  }

  #acceptTranscription(ws: WebSocket): void {
    const transcribe =
      this.#options.transcribe ?? ((pcm: Int16Array) => `(${Math.round(pcm.length / 24)} ms of speech)`);
    this.transcriptions.push(
      new FakeTranscriptionConnection(ws, { transcribe, delayMs: this.#options.transcribeDelayMs ?? 50 }),
    );
    this.emit('transcription');
  }

  #accept(ws: WebSocket, req: IncomingMessage, model: string, key: string): void {
    const transcribe = this.#options.autoReply ? this.#options.autoReply.transcribe : undefined;
    const stream = this.#options.autoReply ? this.#options.autoReply.stream : undefined;
    const connection = new FakeRealtimeConnection(
      ws,
      { index: this.connections.length, model, key, headers: { ...req.headers } },
      {
        timing: this.#timing,
        vadRms: this.#options.vadRms ?? 1000,
        autoReply: (c, trigger) => this.#autoReply(c, trigger),
        ...(transcribe ? { transcribe: (pcm: Int16Array) => transcribe(pcm, REALTIME_RATE) } : {}),
        ...(stream ? { stream } : {}),
      },
    );
    this.connections.push(connection);
    this.emit('connection', connection);
    this.routeTextFrames(ws, connection);
    if (!(this.#options.models ?? KNOWN_REALTIME_MODELS).includes(model)) {
      connection.error('model_not_found', `The model \`${model}\` does not exist or you do not have access to it.`);
      connection.close(4000, 'invalid_request_error.model_not_found');
      return;
    }
    this.#setup.run(connection, () => this.#created(connection));
  }

  #created(connection: FakeRealtimeConnection): void {
    connection.send({
      type: 'session.created',
      session: { ...connection.session, id: `sess_fake_${connection.index}`, object: 'realtime.session' },
    });
    const inputTranscript = this.#options.autoReply ? this.#options.autoReply.inputTranscript : undefined;
    if (inputTranscript) connection.setInputTranscript(inputTranscript);
    const lifetime =
      this.#options.sessionLifetimeMs === undefined ? REALTIME_SESSION_LIMIT_MS : this.#options.sessionLifetimeMs;
    if (lifetime !== null) connection.expireAfter(lifetime);
    this.emit('ready', connection);
  }

  #autoReply(connection: FakeRealtimeConnection, trigger: ResponseTrigger): RealtimeReplyScript | null {
    const auto = this.#options.autoReply;
    if (!auto) return null;
    const fixed = 'Hello from the fake OpenAI model.';
    if (trigger.kind === 'speech') {
      // What the committed turn was transcribed as (the user item #commit just added).
      const heard = connection.items.findLast((item) => item.role === 'user')?.text ?? '';
      return {
        transcript: auto.transcript ?? ((auto.answer && heard && auto.answer(heard)) || fixed),
        toneMs: auto.toneMs,
      };
    }
    // A real model speaks an announcement's words and answers a message; it never reads the wording aloud.
    if (trigger.kind === 'text') {
      if (auto.speakInjectedText === false) return null;
      const transcript = spokenReplyToTurn(trigger.text, auto.transcript ?? auto.answer ?? fixed);
      return transcript ? { transcript, toneMs: auto.toneMs } : null;
    }
    return { transcript: `The tool answered: ${trigger.output.slice(0, 80)}`, toneMs: auto.toneMs };
  }
}

export function startFakeOpenAIRealtime(options: FakeRealtimeOptions = {}): Promise<FakeOpenAIRealtime> {
  return listenWebSocketFake(
    { port: options.port, notFoundBody: OPENAI_NOT_FOUND },
    (server, wss) => new FakeOpenAIRealtime(server, wss, options),
  );
}
