// A protocol-faithful fake of the Gemini Live service (BidiGenerateContent over a plain ws://
// socket on 127.0.0.1). It follows the public protocol, not our client's habits:
// - the path is `/ws/google.ai.generativelanguage.<v1|v1beta|v1alpha>.GenerativeService.
//   BidiGenerateContent[Constrained]` with any number of leading slashes (the SDK sends `//ws/…`),
//   the key in `?key=` (or `?access_token=`); anything else gets an HTTP 404 at upgrade;
// - the first message must be `setup`; a bad key closes 1007, an unknown model 1008, an unknown
//   top-level setup field or a field the chosen model rejects 1007 (strictness.ts MODEL_RULES), an
//   unknown resumption handle 1008; otherwise `{"setupComplete":{}}`;
// - per model: mid-session `clientContent` on gemini-3.1-flash-live-preview closes 1007;
// - server messages are JSON in binary frames by default (what the service is reported to send;
//   `framing: 'text'` switches to text frames);
// - sessions that asked for `sessionResumption` get handles; a resumed connection continues the
//   same conversation record (session id) AS OF THE HANDLE: history after the handle is gone, and
//   tool calls asked after it are unknown to the resumed session (field-notes.md "Rotation during a
//   tool call"); calls still pending at the handle follow `pendingToolCallsOnResume`;
// - strictness (strictness.ts) defaults to the strictest reported behaviour: one open socket per
//   session, a 1011 "Deadline expired" close after goAway, a setup delay, setup and messages
//   validated (per model), expiring handles, tool-response ids matched, late input transcription,
//   slow pongs.
// Usable from vitest and from plain Node scripts (demo, latency benchmark).
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import { SetupDelay } from '../shared/setup-delay.ts';
import { fakeTiming, type FakeTiming } from '../shared/timing.ts';
import { FakeServer } from '../shared/fake-server.ts';
import { listenWebSocketFake } from '../shared/ws-server.ts';
import { readActivitySettings } from './activity.ts';
import { autoReply } from './auto-reply.ts';
import { FakeGeminiConnection, type FakeConnectionHooks, type JsonObject } from './connection.ts';
import {
  KNOWN_LIVE_MODELS,
  type FakeGeminiEvents,
  type FakeGeminiOptions,
  type FakeSessionRecord,
  type HandleRecord,
} from './options.ts';
import {
  announcesInitialHistory,
  clientMessageSchema,
  INVALID_ARGUMENT,
  MODEL_RULES,
  setupFieldRejectedBy,
  STRICT_GEMINI,
  unknownSetupField,
  type FakeGeminiStrictness,
} from './strictness.ts';

export {
  KNOWN_LIVE_MODELS,
  type AutoReplyOptions,
  type FakeGeminiEvents,
  type FakeGeminiOptions,
  type FakeSessionRecord,
} from './options.ts';

const PATH_RE =
  /^\/+ws\/google\.ai\.generativelanguage\.(v1|v1beta|v1alpha)\.GenerativeService\.BidiGenerateContent(Constrained)?$/;

export class FakeGemini extends FakeServer<FakeGeminiConnection, FakeGeminiEvents> {
  /** Base URL for `httpOptions.baseUrl` / GEMINI_LIVE_BASE_URL. */
  readonly url: string;
  readonly sessions = new Map<string, FakeSessionRecord>();
  readonly #handles = new Map<string, HandleRecord>();
  readonly strict: FakeGeminiStrictness;
  /** Resumes refused because another socket of the session was still open. */
  overlapsRefused = 0;
  readonly #options: FakeGeminiOptions;
  readonly #timing: FakeTiming;
  /** `strict.setupDelayMs`, read at each setup (a test may change it between two). */
  readonly #setup = new SetupDelay(() => this.strict.setupDelayMs);
  #nextSession = 1;
  #nextHandle = 1;
  protected override readonly incidentClose = { code: 1011, reason: 'Internal error occurred.' };

  constructor(server: Server, wss: WebSocketServer, options: FakeGeminiOptions) {
    super(server, wss, { name: 'fake gemini', readyEvent: 'setup' });
    this.#options = options;
    this.#timing = fakeTiming('gemini', options);
    this.strict = { ...STRICT_GEMINI, ...options.strict };
    if (options.setupDelayMs !== undefined) this.strict.setupDelayMs = options.setupDelayMs;
    if (options.sessionDeadlineMs !== undefined && this.strict.sessionDeadline)
      this.strict.sessionDeadline = { ...this.strict.sessionDeadline, afterMs: options.sessionDeadlineMs };
    if (options.goAwayAfterMs !== undefined)
      this.strict.connectionLifetime = {
        goAwayAfterMs: options.goAwayAfterMs,
        goAwayTimeLeftMs: options.goAwayTimeLeftMs ?? 2000,
      };
    this.url = `http://127.0.0.1:${this.port}`;
  }

  /** Connections that completed setup (i.e. the client got setupComplete). */
  get established(): FakeGeminiConnection[] {
    return this.connections.filter((c) => c.sessionId !== null);
  }

  /** Invalidate every handle issued so far (as if they expired): resumption attempts then fail 1008. */
  forgetHandles(): void {
    this.#handles.clear();
  }

  // --- internals ---------------------------------------------------------------------------

  protected acceptUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    // Split by hand: `new URL('//ws/…', base)` would read `ws` as a host (protocol-relative URL).
    const raw = req.url ?? '/';
    const queryAt = raw.indexOf('?');
    const pathname = queryAt < 0 ? raw : raw.slice(0, queryAt);
    const query = new URLSearchParams(queryAt < 0 ? '' : raw.slice(queryAt + 1));
    const match = PATH_RE.exec(pathname);
    if (!match || !this.strict.apiVersions.includes(match[1]!)) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    const key = query.get('key') ?? query.get('access_token');
    this.wss.handleUpgrade(req, socket, head, (ws) => this.#accept(ws, req, match[1]!, pathname, key));
  }

  #hooks(): FakeConnectionHooks {
    return {
      framing: this.#options.framing ?? 'binary',
      timing: this.#timing,
      bargeInRms: this.#options.bargeInRms === undefined ? 2000 : this.#options.bargeInRms,
      strict: this.strict,
      issueHandle: (connection) => {
        const handle = `fake-handle-${connection.sessionId}-${this.#nextHandle++}`;
        const session = this.sessions.get(connection.sessionId!);
        this.#handles.set(handle, {
          sessionId: connection.sessionId!,
          issuedAt: Date.now(),
          historyLength: session?.history.length ?? 0,
          pendingToolCalls: [...connection.outstandingToolCalls.values()].map((call) => ({
            name: call.name,
            args: call.args,
          })),
          audioSamples: session?.audioSamples ?? 0,
        });
        return handle;
      },
      refused: (connection, code, reason) => this.emit('refused', connection, code, reason),
      consumedAudio: (connection, samples) => {
        const session = connection.sessionId ? this.sessions.get(connection.sessionId) : undefined;
        if (session) session.audioSamples += samples;
      },
      interactionStatus: (connection) => MODEL_RULES[connection.model ?? '']?.interactionStatus === true,
      voiceActivity: (connection) => MODEL_RULES[connection.model ?? '']?.voiceActivity === true,
      recordHistory: (connection, role, text) => {
        const session = connection.sessionId ? this.sessions.get(connection.sessionId) : undefined;
        session?.history.push({ role, text, connection: connection.index });
      },
    };
  }

  #accept(ws: WebSocket, req: IncomingMessage, apiVersion: string, path: string, key: string | null): void {
    const connection = new FakeGeminiConnection(
      ws,
      { index: this.connections.length, path, apiVersion, key, headers: { ...req.headers } },
      this.#hooks(),
    );
    this.connections.push(connection);
    this.emit('connection', connection);
    // The service answers pings late (field notes: 8–30 s): a client ping timeout shorter than that
    // closes its own calls.
    ws.on('ping', (data) => {
      if (this.strict.pongDelayMs <= 0) ws.pong(data);
      else connection.later(() => ws.pong(data), this.strict.pongDelayMs);
    });
    ws.on('message', (data) => {
      let message: JsonObject;
      try {
        message = JSON.parse(data.toString()) as JsonObject;
      } catch {
        connection.refuse(1007, INVALID_ARGUMENT);
        return;
      }
      if (!connection.setup) this.#onSetup(connection, message);
      else if (this.strict.validateMessages && !clientMessageSchema.safeParse(message).success) {
        // A second setup, an unknown field, a bad MIME type or bad base64 after setup.
        connection.refuse(1007, INVALID_ARGUMENT);
      } else if (
        !this.#refusedByModel(connection, message) &&
        !this.#contextUpdateRefused(connection, message) &&
        !this.#activitySignalRefused(connection, message)
      ) {
        this.#noteVideo(connection, message);
        connection.handleClientMessage(message);
        this.#autoReply(connection, message);
      }
    });
  }

  #onSetup(connection: FakeGeminiConnection, message: JsonObject): void {
    const setup = message.setup as JsonObject | undefined;
    if (!setup || Object.keys(message).length !== 1) {
      connection.refuse(1007, INVALID_ARGUMENT);
      return;
    }
    connection.setup = setup;
    const valid = this.#options.validKeys;
    if (!connection.key || (valid && !valid.includes(connection.key))) {
      connection.refuse(1007, 'API key not valid. Please pass a valid API key.');
      return;
    }
    const model = typeof setup.model === 'string' ? setup.model.replace(/^models\//, '') : '';
    connection.model = model;
    if (!(this.#options.models ?? KNOWN_LIVE_MODELS).includes(model)) {
      connection.refuse(
        1008,
        `models/${model} is not found for API version ${connection.apiVersion}, or is not supported for bidiGenerateContent.`,
      );
      return;
    }
    if (this.strict.validateSetup) {
      const unknown = unknownSetupField(setup);
      if (unknown !== null) {
        connection.refusedFor = `unknown setup field "${unknown}"`;
        connection.refuse(1007, INVALID_ARGUMENT);
        return;
      }
    }
    if (this.strict.modelRules) {
      const rejected = setupFieldRejectedBy(model, setup);
      if (rejected !== null) {
        connection.refusedFor = `${model} rejects setup ${rejected}`;
        connection.refuse(1007, INVALID_ARGUMENT);
        return;
      }
    }
    const activity = readActivitySettings(setup);
    if ('problem' in activity) {
      if (this.strict.validateSetup) {
        connection.refusedFor = activity.problem;
        connection.refuse(1007, INVALID_ARGUMENT);
        return;
      }
    } else connection.configureActivity(activity.settings);
    connection.initialHistoryOpen = announcesInitialHistory(setup);
    const resumption = setup.sessionResumption as { handle?: string } | undefined;
    let session: FakeSessionRecord | undefined;
    let issued: HandleRecord | undefined;
    if (resumption?.handle) {
      issued = this.#handles.get(resumption.handle);
      session =
        issued && Date.now() - issued.issuedAt <= this.strict.handleTtlMs
          ? this.sessions.get(issued.sessionId)
          : undefined;
      if (!session) {
        connection.refuse(1008, 'Invalid session resumption handle.');
        return;
      }
      const deadline = this.strict.sessionDeadline;
      if (deadline && (session.expired || Date.now() - session.startedAt >= deadline.afterMs)) {
        // After the 58:00 close the handle is refused with 1007 (discuss thread 186392). A session
        // that passed its deadline with no socket open (parked, or in an outage) meets it here.
        session.expired = true;
        connection.refusedFor = 'resume of a session past its deadline';
        connection.refuse(deadline.refuseResume.code, deadline.refuseResume.reason);
        return;
      }
      connection.resumedWithHandle = resumption.handle;
    } else {
      session = {
        id: `s${this.#nextSession++}`,
        history: [],
        connections: [],
        open: new Set(),
        startedAt: Date.now(),
        compressed: setup.contextWindowCompression !== undefined,
        video: false,
        expired: false,
        audioSamples: 0,
        rolledBackSamples: 0,
        contextUpdate: null,
      };
      this.sessions.set(session.id, session);
    }
    const record = session;
    const overlapped = (): boolean =>
      this.strict.overlappedResume === 'reject' && [...record.open].some((c) => c.isOpen);
    if (overlapped()) {
      this.overlapsRefused++;
      connection.refuse(1011, 'Internal error occurred.');
      return;
    }
    record.connections.push(connection.index);
    const finish = (): void => {
      if (!connection.isOpen) return;
      // Checked again: another resume of the same session may have completed during the delay.
      if (overlapped()) {
        this.overlapsRefused++;
        connection.refuse(1011, 'Internal error occurred.');
        return;
      }
      connection.sessionId = record.id;
      record.open.add(connection);
      connection.once('close', () => record.open.delete(connection));
      if (issued && resumption?.handle) {
        // The session as of the handle: later turns are gone, later tool calls were never asked.
        const turnsDropped = Math.max(0, record.history.length - issued.historyLength);
        record.history.length = Math.min(record.history.length, issued.historyLength);
        connection.restoredFrom = {
          handle: resumption.handle,
          pendingToolCalls: issued.pendingToolCalls,
          turnsDropped,
        };
        // What the session heard is what it had heard when the handle was issued.
        record.rolledBackSamples += Math.max(0, record.audioSamples - issued.audioSamples);
        record.audioSamples = issued.audioSamples;
      }
      connection.transparent =
        (resumption as { transparent?: unknown } | undefined)?.transparent === true &&
        this.strict.transparentResumption === 'sent';
      connection.send({ setupComplete: {} });
      this.emit('setup', connection);
      if (resumption) connection.resumptionUpdate();
      const pending = connection.restoredFrom?.pendingToolCalls ?? [];
      if (pending.length > 0 && this.strict.pendingToolCallsOnResume === 'reask') {
        connection.reaskedToolCalls = connection.toolCall(
          pending.map((call) => ({ name: call.name, args: call.args })),
        );
        connection.reaskedToolCalls.catch(() => undefined);
      }
      const lifetime = this.strict.connectionLifetime;
      if (lifetime) connection.later(() => connection.goAway(lifetime.goAwayTimeLeftMs), lifetime.goAwayAfterMs);
      this.#armSessionLimit(connection, record);
      this.#armSessionDeadline(connection, record);
    };
    this.#setup.run(connection, finish);
  }

  /** The uncompressed session's end (strict.uncompressedSessionLimit), as a deadline close on this socket. */
  #armSessionLimit(connection: FakeGeminiConnection, record: FakeSessionRecord): void {
    const limit = this.strict.uncompressedSessionLimit;
    if (!limit || record.compressed) return;
    const remaining = record.startedAt + (record.video ? limit.videoMs : limit.audioMs) - Date.now();
    const { code, reason } = this.strict.deadlineClose;
    if (remaining <= 0) connection.close(code, reason);
    else connection.later(() => connection.close(code, reason), remaining);
  }

  /** The session's hard deadline (strict.sessionDeadline): 1011 "Deadline expired", the session is over. */
  #armSessionDeadline(connection: FakeGeminiConnection, record: FakeSessionRecord): void {
    const deadline = this.strict.sessionDeadline;
    if (!deadline) return;
    const expire = (): void => {
      record.expired = true;
      connection.close(deadline.close.code, deadline.close.reason);
    };
    const remaining = record.startedAt + deadline.afterMs - Date.now();
    if (remaining <= 0) expire();
    else connection.later(expire, remaining);
  }

  /** `contextUpdate` where the model does not take it mid-session (MODEL_RULES.acceptsContextUpdate): 1007. */
  #contextUpdateRefused(connection: FakeGeminiConnection, message: JsonObject): boolean {
    const update = message.contextUpdate as JsonObject | undefined;
    if (!update) return false;
    if (this.strict.modelRules && !MODEL_RULES[connection.model ?? '']?.acceptsContextUpdate) {
      connection.refusedFor = `${connection.model} rejects mid-session contextUpdate`;
      connection.refuse(1007, INVALID_ARGUMENT);
      return true;
    }
    const record = connection.sessionId ? this.sessions.get(connection.sessionId) : undefined;
    if (record) record.contextUpdate = { ...record.contextUpdate, ...update };
    return false;
  }

  /**
   * activityStart / activityEnd "can only be sent if automatic (i.e. server-side) activity detection
   * is disabled" (genai.d.ts ActivityStart, ActivityEnd): with it on, 1007 like any invalid argument.
   */
  #activitySignalRefused(connection: FakeGeminiConnection, message: JsonObject): boolean {
    const realtime = message.realtimeInput as JsonObject | undefined;
    if (!realtime || (realtime.activityStart === undefined && realtime.activityEnd === undefined)) return false;
    if (!connection.activity.automatic || !this.strict.validateMessages) return false;
    connection.refusedFor = 'activityStart/activityEnd with automatic activity detection on';
    connection.refuse(1007, INVALID_ARGUMENT);
    return true;
  }

  /** The first image sent to an uncompressed session moves its end to the audio-and-video limit. */
  #noteVideo(connection: FakeGeminiConnection, message: JsonObject): void {
    const realtime = message.realtimeInput as { video?: unknown; mediaChunks?: { mimeType?: string }[] } | undefined;
    const record = connection.sessionId === null ? undefined : this.sessions.get(connection.sessionId);
    if (!realtime || !record || record.video) return;
    if (
      realtime.video === undefined &&
      !(realtime.mediaChunks ?? []).some((chunk) => chunk.mimeType?.startsWith('image/'))
    )
      return;
    record.video = true;
    this.#armSessionLimit(connection, record);
  }

  /** Per-model refusals after setup (MODEL_RULES): mid-session `clientContent` on the 3.1 preview. */
  #refusedByModel(connection: FakeGeminiConnection, message: JsonObject): boolean {
    const content = message.clientContent as JsonObject | undefined;
    if (!content || !this.strict.modelRules || !MODEL_RULES[connection.model ?? '']?.refusesClientContent) return false;
    if (connection.initialHistoryOpen) {
      // Initial history announced in setup: taken up to (and including) its turnComplete.
      if (content.turnComplete === true) connection.initialHistoryOpen = false;
      return false;
    }
    connection.refusedFor = `${connection.model} rejects mid-session clientContent`;
    connection.refuse(1007, INVALID_ARGUMENT);
    return true;
  }

  #autoReply(connection: FakeGeminiConnection, message: JsonObject): void {
    const auto = this.#options.autoReply;
    if (auto) autoReply(connection, message, auto, (text) => this.#recordUser(connection, text));
  }

  #recordUser(connection: FakeGeminiConnection, text: string): void {
    const session = connection.sessionId ? this.sessions.get(connection.sessionId) : undefined;
    session?.history.push({ role: 'user', text, connection: connection.index });
  }
}

export function startFakeGemini(options: FakeGeminiOptions = {}): Promise<FakeGemini> {
  // autoPong off: pongs are answered (late) by the fake itself, like the service.
  const notFoundBody = { error: { code: 404, message: 'Not found', status: 'NOT_FOUND' } };
  return listenWebSocketFake(
    { port: options.port, notFoundBody, autoPong: false },
    (server, wss) => new FakeGemini(server, wss, options),
  );
}
