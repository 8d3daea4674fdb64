// A protocol-faithful fake of GPT-Live's primary WebSocket (`<base>/live/sessions`) on a plain
// ws:// socket. Follows openai@7.57.0 resources/live/live.d.ts and the voice-websockets guide:
// - no query parameters on the URL (one is an HTTP 400), `Authorization: Bearer` (bad key: HTTP 401
//   with OpenAI's JSON error body);
// - `session.start` must be the first message; the session object is strict (unknown fields →
//   `unknown_parameter`), PCM is 16000 or 24000 Hz only, `input` holds at most 128 text messages
//   with one part each; an unknown model gets `model_not_found` and close 4000 (the Realtime
//   pattern; GPT-Live's exact code is not published);
// - commands before `session.started`, unknown event types, bad base64, `response.*` without
//   Responses delegation, a function_call_output for an unknown call: each gets an `error` event
//   (connection.ts);
// - full duplex: the "model" speaks when scripted and yields when the user speaks over it; output
//   and input transcripts are fragments with session-timeline ms; usage is cumulative seconds;
// - the service's timing by default (shared/service-timing.ts): session setup, first audio after
//   the user's turn ends, audio delivered faster than real time.
// Scriptable like the other fakes; usable from vitest and plain Node.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import { spokenReplyToTurn } from '../../../core/model/injected-text.ts';
import { SERVICE_TIMING } from '../../shared/service-timing.ts';
import { SetupDelay } from '../../shared/setup-delay.ts';
import { fakeTiming } from '../../shared/timing.ts';
import { listenWebSocketFake } from '../../shared/ws-server.ts';
import { bearerKey, keyAccepted, OPENAI_NOT_FOUND, OpenAIFakeServer } from '../shared.ts';
import { FakeLiveConnection, type LiveConnectionHooks, type LiveTrigger } from './connection.ts';
import type { FakeLiveOptions } from './options.ts';
import { KNOWN_GPT_LIVE_MODELS, type LiveSessionConfig } from './protocol.ts';

export type { FakeLiveOptions } from './options.ts';
export { KNOWN_GPT_LIVE_MODELS } from './protocol.ts';
export { FakeLiveConnection, type LiveReplyOutcome, type LiveReplyScript } from './connection.ts';

export class FakeOpenAILive extends OpenAIFakeServer<FakeLiveConnection, { ready: [FakeLiveConnection] }> {
  readonly vadRms: number;
  readonly #hooks: LiveConnectionHooks;
  readonly #options: FakeLiveOptions;
  #nextSession = 1;
  readonly #setup: SetupDelay;

  constructor(server: Server, wss: WebSocketServer, options: FakeLiveOptions) {
    super(server, wss, 'fake live');
    this.#options = options;
    this.vadRms = options.vadRms ?? 1000;
    this.#hooks = {
      timing: fakeTiming('openai-live', options),
      vadRms: this.vadRms,
      start: (connection, session) => this.#start(connection, session),
      autoSpeak: (connection, trigger) => this.#autoSpeak(connection, trigger),
    };
    this.#setup = new SetupDelay(options.setupDelayMs ?? SERVICE_TIMING['openai-live'].setupMs);
  }

  get established(): FakeLiveConnection[] {
    return this.connections.filter((c) => c.sessionId !== null);
  }

  protected acceptUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname !== '/v1/live/sessions')
      return this.refuse(socket, 404, null, `Invalid URL (GET ${url.pathname})`);
    if (url.search)
      return this.refuse(
        socket,
        400,
        'unknown_parameter',
        'Connect to /v1/live/sessions with no query parameters; put the model in session.start.',
      );
    const key = bearerKey(req);
    if (!keyAccepted(key, this.#options.validKeys)) {
      return this.refuse(
        socket,
        401,
        'invalid_api_key',
        key ? `Incorrect API key provided: ${key.slice(0, 3)}***${key.slice(-4)}.` : "You didn't provide an API key.",
      );
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const connection = new FakeLiveConnection(ws, this.connections.length, { ...req.headers }, this.#hooks);
      this.connections.push(connection);
      this.routeTextFrames(ws, connection);
    });
  }

  /** A valid session.start. */
  #start(connection: FakeLiveConnection, session: LiveSessionConfig): void {
    if (connection.sessionId || this.#setup.pending(connection)) {
      connection.error('session_already_started', 'session.start may be sent once per connection.');
      return;
    }
    if (!(this.#options.models ?? KNOWN_GPT_LIVE_MODELS).includes(session.model)) {
      connection.error(
        'model_not_found',
        `The model \`${session.model}\` does not exist or you do not have access to it.`,
        'session.model',
      );
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

  #autoSpeak(connection: FakeLiveConnection, trigger: LiveTrigger): void {
    const auto = this.#options.autoReply;
    if (!auto) return;
    const fixed = 'Hello from the fake GPT-Live model.';
    if (trigger.kind === 'speech') {
      const heard =
        auto.inputTranscript ?? auto.transcribe?.(trigger.pcm, trigger.rate) ?? `(${trigger.ms} ms of speech)`;
      if (heard) connection.sendInputTranscript(heard, trigger.ms);
      void connection.reply({
        transcript: auto.transcript ?? ((auto.answer && heard && auto.answer(heard)) || fixed),
        toneMs: auto.toneMs,
      });
    } else {
      // A real model speaks an announcement's words and answers a message; it never reads the wording aloud.
      const transcript = spokenReplyToTurn(trigger.text, auto.transcript ?? auto.answer ?? fixed);
      if (transcript) void connection.reply({ transcript, toneMs: auto.toneMs });
    }
  }
}

export function startFakeOpenAILive(options: FakeLiveOptions = {}): Promise<FakeOpenAILive> {
  return listenWebSocketFake(
    { port: options.port, notFoundBody: OPENAI_NOT_FOUND },
    (server, wss) => new FakeOpenAILive(server, wss, options),
  );
}
