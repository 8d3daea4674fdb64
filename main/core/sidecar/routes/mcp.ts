// `/mcp`: the MCP server for agents (Streamable HTTP, GET/POST/DELETE). The security hook has
// already run (Host allowlist, no cross-site, bearer token), so the raw request and response go
// straight to the SDK transport. Each tool call is replayed through this same app with
// fastify.inject, so it passes the same checks and handlers as the HTTP API.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { NoteEvent } from '../../api-types.ts';
import type { EventHub } from '../../event-hub.ts';
import { agentTools, type SidecarInvoker } from '../../mcp/server/agent-tools.ts';
import type { McpHttpEndpoint, McpHttpEndpointOptions } from '../../mcp/server/http-endpoint.ts';
import type { ToolDeclaration } from '../../ports.ts';
import { z } from 'zod';
import { ApprovalError, type ApprovalBroker } from '../../mcp/client/approvals.ts';
import type { OwnerQuestions } from '../../mcp/owner-questions.ts';
import type { McpModelTools } from '../../mcp/client/model-tools.ts';
import { HttpError } from '../errors.ts';
import type { RouteModule } from '../route-types.ts';
import { IMAGE_BODY_LIMIT } from '../server.ts';

/** A push_frame call carries an image as base64 (4/3 of the bytes) inside JSON-RPC. */
export const MCP_BODY_LIMIT = Math.ceil((IMAGE_BODY_LIMIT * 4) / 3) + 64 * 1024;

export interface McpRouteDeps {
  token: string;
  version: string;
  hub: EventHub;
  logger: Logger;
  helperTools: () => readonly ToolDeclaration[];
  notes: { recent(limit: number): NoteEvent[] };
  currentCallId: () => string | undefined;
  /** Third-party MCP servers for the model (absent when none are configured). */
  modelTools?: McpModelTools | null;
  /** Every owner decision (model tools under `ask`, agents' questions); default the model tools' own. */
  approvals?: ApprovalBroker;
  /** Agents' yes/no questions to the owner (`POST /ask-owner`, the `ask_owner` MCP tool). */
  ownerQuestions?: OwnerQuestions;
  /** Our tools an agent may run only after the owner's yes (DISCORD_VOICE_LIVE_MCP_ASK_TOOLS). */
  askTools?: readonly string[];
}

const AskBody = z
  .object({ question: z.string().trim().min(1).max(500), from: z.string().trim().min(1).max(60).optional() })
  .strict();

const DecisionBody = z.object({ approved: z.boolean() }).strict();

function injectInvoker(app: FastifyInstance, token: string): SidecarInvoker {
  return async (request) => {
    const address = app.server.address();
    const port = address && typeof address === 'object' ? address.port : 0;
    const headers: Record<string, string> = { host: `127.0.0.1:${port}`, authorization: `Bearer ${token}` };
    let payload: string | Buffer | undefined;
    if (request.image) {
      headers['content-type'] = 'application/octet-stream';
      payload = request.image;
    } else if (request.json !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(request.json);
    }
    const response = await app.inject({
      method: request.method,
      url: request.url,
      headers,
      ...(payload !== undefined ? { payload } : {}),
    });
    let body: unknown = response.body;
    try {
      body = response.body ? JSON.parse(response.body) : null;
    } catch {
      // Not JSON: keep the text.
    }
    return { status: response.statusCode, body };
  };
}

export const registerMcpRoutes: RouteModule<McpRouteDeps> = (app, deps) => {
  const openEndpoint = lazyEndpoint(app, deps);
  registerOwnerRoutes(app, deps);
  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: '/mcp',
    bodyLimit: MCP_BODY_LIMIT,
    handler: async (request, reply) => {
      reply.hijack();
      const res = reply.raw;
      // onSend hooks do not run for a hijacked reply: set the sidecar's usual headers here.
      res.setHeader('x-content-type-options', 'nosniff');
      res.setHeader('referrer-policy', 'no-referrer');
      res.setHeader('cache-control', 'no-store');
      try {
        await (await openEndpoint()).handle(request.raw, res, request.body);
      } catch (err) {
        request.log.error({ err }, 'MCP request failed');
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
          res.end(
            JSON.stringify({
              jsonrpc: '2.0',
              error: { code: -32603, message: 'internal error; see the sidecar log' },
              id: null,
            }),
          );
        } else res.end();
      }
    },
  });
};

/**
 * The MCP endpoint, opened on first use and closed with the app. The MCP SDK (with ajv and
 * zod-to-json-schema, ~7 MB of heap) loads on the first /mcp request, not at start-up: an idle core
 * that no agent talks to does not need it (docs/performance.md).
 */
function lazyEndpoint(app: FastifyInstance, deps: McpRouteDeps): () => Promise<McpHttpEndpoint> {
  let endpoint: Promise<McpHttpEndpoint> | null = null;
  app.addHook('onClose', async () => {
    if (endpoint) await (await endpoint).close();
  });
  return () =>
    (endpoint ??= Promise.all([
      import('../../mcp/server/http-endpoint.ts'),
      import('../../mcp/server/session-server.ts'),
    ]).then(([{ createMcpHttpEndpoint }, { NOTES_RESOURCE_LIMIT }]) =>
      createMcpHttpEndpoint({
        name: 'live-voice-bridge',
        version: deps.version,
        hub: deps.hub,
        logger: deps.logger,
        tools: () => agentTools(deps.helperTools()),
        invoke: injectInvoker(app, deps.token),
        currentCallId: deps.currentCallId,
        ownerGate: ownerGate(deps),
        currentNotes: () => {
          const callId = deps.currentCallId() ?? null;
          return {
            call_id: callId,
            notes: callId ? deps.notes.recent(NOTES_RESOURCE_LIMIT).filter((n) => n.callId === callId) : [],
          };
        },
      }),
    ));
}

/** A tool under DISCORD_VOICE_LIVE_MCP_ASK_TOOLS runs for an agent only after the owner's yes. */
function ownerGate(deps: McpRouteDeps): NonNullable<McpHttpEndpointOptions['ownerGate']> {
  return async (tool, args) => {
    if (!deps.askTools?.includes(tool)) return null;
    if (!deps.ownerQuestions)
      return {
        code: 'owner_unavailable',
        message: `${tool} needs the owner's yes, and nobody can ask them`,
        status: 503,
      };
    const shown = JSON.stringify(args);
    const outcome = await deps.ownerQuestions.ask({
      from: 'an agent over MCP',
      question: `May the agent run ${tool}${shown === '{}' ? '' : ` with ${shown.slice(0, 300)}`}?`,
    });
    if (outcome.answer === 'yes') return null;
    return outcome.answer === 'no'
      ? { code: 'owner_refused', message: `the owner said no to ${tool} (${outcome.by ?? 'voice'})`, status: 403 }
      : { code: 'owner_no_answer', message: `the owner did not answer about ${tool} in time`, status: 408 };
  };
}

/** The model's MCP servers and the owner's approvals (the dashboard prompt answers through here), and agents' questions. */
function registerOwnerRoutes(app: FastifyInstance, deps: McpRouteDeps): void {
  app.get('/mcp/servers', async () => ({ servers: deps.modelTools?.servers() ?? [] }));
  const approvals = (): ApprovalBroker | undefined => deps.approvals ?? deps.modelTools?.approvals;
  app.get('/mcp/approvals', async () => ({ approvals: approvals()?.pending() ?? [] }));
  // An agent's yes/no question: asked aloud in the call (or shown on the dashboard), answered by the
  // owner; the request waits for the answer (at most the approval lifetime, 5 minutes).
  app.post('/ask-owner', async (request) => {
    const body = AskBody.safeParse(request.body ?? {});
    if (!body.success)
      throw new HttpError(400, 'invalid_request', 'send { "question": "…" } (1–500 characters), optionally "from"');
    if (!deps.ownerQuestions) throw new HttpError(503, 'unavailable', 'owner questions are not available in this core');
    return deps.ownerQuestions.ask({ from: body.data.from ?? 'an agent', question: body.data.question });
  });
  app.post<{ Params: { id: string } }>('/mcp/approvals/:id', async (request) => {
    const body = DecisionBody.safeParse(request.body === undefined ? {} : request.body);
    if (!body.success)
      throw new HttpError(400, 'invalid_request', 'send { "approved": true } or { "approved": false }');
    const broker = approvals();
    if (!broker) throw new HttpError(404, 'unknown_approval', 'no approval requests exist');
    try {
      return { approval: broker.decide(request.params.id, body.data.approved, 'dashboard') };
    } catch (err) {
      if (err instanceof ApprovalError) throw new HttpError(err.status, err.code, err.message);
      throw err;
    }
  });
}
