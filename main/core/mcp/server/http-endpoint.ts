// Streamable HTTP sessions for `/mcp`. Session mode, not stateless: the notes resource pushes
// `notifications/resources/updated` to subscribers, and a notification needs a session with its
// own GET event stream to travel on. Sessions are cheap (one SDK server each), capped, and closed
// after an idle hour or by the client's DELETE.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { EventHub } from '../../event-hub.ts';
import { createSessionServer, NOTES_RESOURCE_URI, type SessionServer, type SessionServerDeps } from './session-server.ts';

export const MAX_MCP_SESSIONS = 32;
const IDLE_SESSION_MS = 60 * 60_000;
/** Many notes arrive per spoken sentence; subscribers hear about them at most this often. */
const NOTES_UPDATE_COALESCE_MS = 250;
const SESSION_HEADER = 'mcp-session-id';

interface Session {
  id: string;
  transport: StreamableHTTPServerTransport;
  mcp: SessionServer;
  lastUsed: number;
  updateTimer: ReturnType<typeof setTimeout> | null;
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

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string, data: { code: string }): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message, data }, id: null }));
}

export function createMcpHttpEndpoint(options: McpHttpEndpointOptions): McpHttpEndpoint {
  const sessions = new Map<string, Session>();
  const log = options.logger;

  const notifyNotesChanged = (session: Session): void => {
    if (!session.mcp.subscribedToNotes || session.updateTimer) return;
    session.updateTimer = setTimeout(() => {
      session.updateTimer = null;
      session.mcp.server.sendResourceUpdated({ uri: NOTES_RESOURCE_URI }).catch((err: unknown) => log.debug({ err }, 'notes update not delivered'));
    }, NOTES_UPDATE_COALESCE_MS);
    session.updateTimer.unref();
  };

  const unsubscribeHub = options.hub.subscribe((event) => {
    // A new call replaces the resource's content; a note of the current call adds to it.
    const relevant = event.type === 'state' || (event.type === 'note' && event.data.callId !== undefined && event.data.callId === options.currentCallId());
    if (!relevant) return;
    for (const session of sessions.values()) notifyNotesChanged(session);
  });

  const drop = (session: Session): void => {
    if (sessions.get(session.id) !== session) return;
    sessions.delete(session.id);
    if (session.updateTimer) clearTimeout(session.updateTimer);
    void session.transport.close().catch(() => undefined);
  };

  const sweep = setInterval(() => {
    const cutoff = Date.now() - IDLE_SESSION_MS;
    for (const session of sessions.values()) if (session.lastUsed < cutoff) drop(session);
  }, 60_000);
  sweep.unref();

  async function openSession(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (sessions.size >= MAX_MCP_SESSIONS) {
      // Evict the least recently used session rather than refuse a new agent.
      const oldest = [...sessions.values()].sort((a, b) => a.lastUsed - b.lastUsed)[0]!;
      log.info({ sessions: sessions.size }, 'MCP session limit reached; closing the least recently used one');
      drop(oldest);
    }
    const mcp = createSessionServer(options);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { id, transport, mcp, lastUsed: Date.now(), updateTimer: null });
        log.info({ sessions: sessions.size }, 'MCP client connected');
      },
    });
    transport.onclose = () => {
      const id = transport.sessionId;
      const session = id ? sessions.get(id) : undefined;
      if (session) drop(session);
    };
    await mcp.server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  return {
    async handle(req, res, body) {
      const header = req.headers[SESSION_HEADER];
      const id = typeof header === 'string' ? header : undefined;
      if (id) {
        const session = sessions.get(id);
        if (!session) return jsonRpcError(res, 404, -32001, 'unknown or expired MCP session; initialize again', { code: 'unknown_session' });
        session.lastUsed = Date.now();
        return session.transport.handleRequest(req, res, body);
      }
      if (req.method === 'POST' && isInitializeRequest(body)) return openSession(req, res, body);
      return jsonRpcError(res, 400, -32000, 'no mcp-session-id: send initialize first', { code: 'missing_session' });
    },
    get sessionCount() {
      return sessions.size;
    },
    async close() {
      clearInterval(sweep);
      unsubscribeHub();
      for (const session of [...sessions.values()]) drop(session);
    },
  };
}
