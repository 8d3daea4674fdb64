// `/mcp` for both protocol eras, told apart per request by the v2 SDK's own classifier
// (`isLegacyRequest`, the exact code its serving entry runs):
// - 2026-07-28 (a `_meta` envelope on every request; no initialize, no session): the SDK's
//   `createMcpHandler` in strict mode, a fresh server instance per request from the shared factory.
//   Notes updates reach `subscriptions/listen` streams through the handler's notifier.
// - 2025-era (initialize + `Mcp-Session-Id`): sessionful Streamable HTTP, not the SDK's stateless
//   legacy fallback, because a 2025 notification (`notifications/resources/updated`) needs a
//   session with its own GET event stream to travel on; stateless serving has neither. Sessions are
//   cheap (one server each), capped, and closed after an idle hour or by the client's DELETE.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import type { EventHub } from '../../event-hub.ts';
import { toWebRequest, writeWebResponse } from './node-web.ts';
import {
  createSessionServer,
  NOTES_RESOURCE_URI,
  type SessionServer,
  type SessionServerDeps,
} from './session-server.ts';

export const MAX_MCP_SESSIONS = 32;
const IDLE_SESSION_MS = 60 * 60_000;
/** Many notes arrive per spoken sentence; subscribers hear about them at most this often. */
const NOTES_UPDATE_COALESCE_MS = 250;
const SESSION_HEADER = 'mcp-session-id';

interface Session {
  id: string;
  transport: WebStandardStreamableHTTPServerTransport;
  mcp: SessionServer;
  lastUsed: number;
  /** The coalesced `notifications/resources/updated` for the notes resource. */
  update: Coalesced;
}

export interface McpHttpEndpointOptions extends SessionServerDeps {
  hub: EventHub;
  logger: Logger;
  /** The current call id, to tell which notes belong to the notes resource. */
  currentCallId: () => string | undefined;
}

export interface McpHttpEndpoint {
  handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void>;
  readonly sessionCount: number;
  close(): Promise<void>;
}

function jsonRpcError(status: number, code: number, message: string, data: { code: string }): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message, data }, id: null }), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
  });
}

/** A timer that runs `fire` once, `NOTES_UPDATE_COALESCE_MS` after the first of a burst of pokes. */
class Coalesced {
  #timer: ReturnType<typeof setTimeout> | null = null;
  readonly #fire: () => void;

  constructor(fire: () => void) {
    this.#fire = fire;
  }

  poke(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#fire();
    }, NOTES_UPDATE_COALESCE_MS);
    this.#timer.unref();
  }

  cancel(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }
}

/** 2025-era sessions: one server and transport each, capped (least recently used evicted), idle ones swept. */
class LegacySessions {
  readonly #sessions = new Map<string, Session>();
  readonly #options: McpHttpEndpointOptions;
  readonly #sweep: ReturnType<typeof setInterval>;

  constructor(options: McpHttpEndpointOptions) {
    this.#options = options;
    this.#sweep = setInterval(() => {
      const cutoff = Date.now() - IDLE_SESSION_MS;
      for (const session of this.#sessions.values()) if (session.lastUsed < cutoff) this.#drop(session);
    }, 60_000);
    this.#sweep.unref();
  }

  get size(): number {
    return this.#sessions.size;
  }

  async handle(request: Request, body: unknown): Promise<Response> {
    const id = request.headers.get(SESSION_HEADER) ?? undefined;
    if (id) {
      const session = this.#sessions.get(id);
      if (!session)
        return jsonRpcError(404, -32001, 'unknown or expired MCP session; initialize again', {
          code: 'unknown_session',
        });
      session.lastUsed = Date.now();
      return session.transport.handleRequest(request, { parsedBody: body });
    }
    if (request.method === 'POST' && isInitializeRequest(body)) return this.#open(request, body);
    return jsonRpcError(
      400,
      -32000,
      'no mcp-session-id: send initialize first (2025-era), or send the 2026-07-28 _meta envelope',
      { code: 'missing_session' },
    );
  }

  /** The notes resource changed: each subscribed session hears of it, coalesced. */
  notesChanged(): void {
    for (const session of this.#sessions.values()) if (session.mcp.subscribedToNotes) session.update.poke();
  }

  close(): void {
    clearInterval(this.#sweep);
    for (const session of [...this.#sessions.values()]) this.#drop(session);
  }

  async #open(request: Request, body: unknown): Promise<Response> {
    const log = this.#options.logger;
    if (this.#sessions.size >= MAX_MCP_SESSIONS) {
      // Evict the least recently used session rather than refuse a new agent.
      const oldest = [...this.#sessions.values()].sort((a, b) => a.lastUsed - b.lastUsed)[0]!;
      log.info({ sessions: this.#sessions.size }, 'MCP session limit reached; closing the least recently used one');
      this.#drop(oldest);
    }
    const mcp = createSessionServer(this.#options);
    const update = new Coalesced(() => {
      mcp.server
        .sendResourceUpdated({ uri: NOTES_RESOURCE_URI })
        .catch((err: unknown) => log.debug({ err }, 'notes update not delivered'));
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.#sessions.set(id, { id, transport, mcp, lastUsed: Date.now(), update });
        log.info({ sessions: this.#sessions.size }, 'MCP client connected');
      },
    });
    transport.onclose = () => {
      const id = transport.sessionId;
      const session = id ? this.#sessions.get(id) : undefined;
      if (session) this.#drop(session);
    };
    await mcp.server.connect(transport);
    return transport.handleRequest(request, { parsedBody: body });
  }

  #drop(session: Session): void {
    if (this.#sessions.get(session.id) !== session) return;
    this.#sessions.delete(session.id);
    session.update.cancel();
    void session.transport.close().catch(() => undefined);
  }
}

export function createMcpHttpEndpoint(options: McpHttpEndpointOptions): McpHttpEndpoint {
  const log = options.logger;
  const legacy = new LegacySessions(options);
  // 2026-07-28: one strict handler; a request without the envelope never reaches it.
  const modern = createMcpHandler(() => createSessionServer(options).server, {
    legacy: 'reject',
    onerror: (err) => log.debug({ err }, 'MCP (2026-07-28) request refused'),
  });
  const modernUpdate = new Coalesced(() => modern.notify.resourceUpdated(NOTES_RESOURCE_URI));
  const unsubscribeHub = options.hub.subscribe((event) => {
    // A new call replaces the resource's content; a note of the current call adds to it.
    const relevant =
      event.type === 'state' ||
      (event.type === 'note' && event.data.callId !== undefined && event.data.callId === options.currentCallId());
    if (!relevant) return;
    legacy.notesChanged();
    modernUpdate.poke();
  });
  return {
    async handle(req, res, body) {
      const request = toWebRequest(req, res, body);
      const isLegacy = await isLegacyRequest(request, req.method === 'POST' ? body : undefined);
      const response = isLegacy
        ? await legacy.handle(request, body)
        : await modern.fetch(request, { parsedBody: body });
      await writeWebResponse(response, res);
    },
    get sessionCount() {
      return legacy.size;
    },
    async close() {
      unsubscribeHub();
      modernUpdate.cancel();
      await modern.close().catch(() => undefined);
      legacy.close();
    },
  };
}
