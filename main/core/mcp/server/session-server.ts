// One MCP server instance per serving unit: a 2025-era client session, or one 2026-07-28 request
// (the v2 SDK builds a fresh instance per stateless request from the same factory, so both eras
// get the same tools and resources). Tools are listed with their JSON Schemas and called through
// the sidecar's routes; the current call's notes are a resource. A 2025-era subscriber gets
// `notifications/resources/updated` on its session; a 2026-07-28 client opens
// `subscriptions/listen`, which the SDK's serving entry answers (see http-endpoint.ts).
import { ProtocolError, ProtocolErrorCode, Server, type CallToolResult } from '@modelcontextprotocol/server';
import type { NoteEvent } from '../../api-types.ts';
import { NOTIFY_STATUS_MEANING } from '../../notify/format.ts';
import {
  AgentToolInputError,
  type AgentTool,
  type SidecarAnswer,
  type SidecarInvoker,
  type SidecarRequest,
} from './agent-tools.ts';

export const NOTES_RESOURCE_URI = 'live-voice-bridge://call/current/notes';
/** The resource carries the newest notes of the current call; older ones stay in the JSONL file. */
export const NOTES_RESOURCE_LIMIT = 500;

export interface CurrentCallNotes {
  call_id: string | null;
  notes: NoteEvent[];
}

export interface SessionServerDeps {
  name: string;
  version: string;
  tools: () => AgentTool[];
  invoke: SidecarInvoker;
  currentNotes: () => CurrentCallNotes;
  /**
   * For a tool that needs the owner's yes first: resolves null to run it, or the refusal to answer
   * with (the owner said no, or nobody answered). Absent: every tool runs.
   */
  ownerGate?: (
    tool: string,
    args: Record<string, unknown>,
  ) => Promise<{ code: string; message: string; status: number } | null>;
}

export interface SessionServer {
  server: Server;
  /** True while the client is subscribed to the notes resource. */
  readonly subscribedToNotes: boolean;
}

function errorFromAnswer(answer: SidecarAnswer): { code: string; message: string } {
  const error = (answer.body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return {
    code: typeof error?.code === 'string' ? error.code : `http_${answer.status}`,
    message: typeof error?.message === 'string' ? error.message : `the sidecar answered ${answer.status}`,
  };
}

/** A tool error the agent can act on: `isError` with the HTTP API's code and status, as JSON text. */
export function toolError(code: string, message: string, status: number): CallToolResult {
  const body = { error: { code, message }, status };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}

/**
 * A route's answer as a tool result. `request` names the route: a `POST /notify` answer whose
 * `status` is not `ok` is 200 over HTTP but a tool error here (`isError`), with a sentence saying
 * whether it may have been delivered.
 */
export function answerToResult(
  answer: SidecarAnswer,
  request?: Pick<SidecarRequest, 'method' | 'url'>,
): CallToolResult {
  if (answer.status >= 400) {
    const { code, message } = errorFromAnswer(answer);
    return toolError(code, message, answer.status);
  }
  const body = answer.body;
  const structured =
    body !== null && typeof body === 'object' && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : { result: body };
  const result: CallToolResult = {
    content: [{ type: 'text', text: JSON.stringify(body) }],
    structuredContent: structured,
  };
  if (request?.method === 'POST' && request.url === '/notify' && structured.status !== 'ok') {
    const status = structured.status === 'partial' || structured.status === 'unknown' ? structured.status : 'error';
    result.isError = true;
    result.content.push({ type: 'text', text: NOTIFY_STATUS_MEANING[status] });
  }
  return result;
}

export function createSessionServer(deps: SessionServerDeps): SessionServer {
  const server = new Server(
    { name: deps.name, version: deps.version },
    {
      capabilities: { tools: {}, resources: { subscribe: true } },
      instructions:
        'Live Voice Bridge: a voice call between the owner and a live speech model in Discord. Use say to make the model speak, ' +
        'notify/schedule to reach the owner, read_notes or the notes resource for what was said, join/leave to start or end the call.',
    },
  );
  let subscribed = false;

  server.setRequestHandler('tools/list', async () => ({
    tools: deps.tools().map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: { type: 'object' as const, ...tool.inputSchema },
      annotations: { title: tool.title, readOnlyHint: tool.readOnly, openWorldHint: false },
    })),
  }));

  server.setRequestHandler('tools/call', async (request): Promise<CallToolResult> => {
    const tool = deps.tools().find((t) => t.name === request.params.name);
    if (!tool) return toolError('unknown_tool', `no tool named ${JSON.stringify(request.params.name)}`, 404);
    const args = request.params.arguments ?? {};
    const refused = await deps.ownerGate?.(tool.name, args);
    if (refused) return toolError(refused.code, refused.message, refused.status);
    try {
      const sidecarRequest = await tool.toRequest(args);
      return answerToResult(await deps.invoke(sidecarRequest), sidecarRequest);
    } catch (err) {
      if (err instanceof AgentToolInputError) return toolError(err.code, err.message, err.status);
      throw err;
    }
  });

  server.setRequestHandler('resources/list', async () => ({
    resources: [
      {
        uri: NOTES_RESOURCE_URI,
        name: 'current-call-notes',
        title: 'Notes of the current call',
        description:
          'Transcripts, notes, tool calls and notifications of the current (or last) call, newest last. Subscribe for updates.',
        mimeType: 'application/json',
      },
    ],
  }));

  server.setRequestHandler('resources/read', async (request) => {
    if (request.params.uri !== NOTES_RESOURCE_URI)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown resource ${request.params.uri}`);
    return {
      contents: [{ uri: NOTES_RESOURCE_URI, mimeType: 'application/json', text: JSON.stringify(deps.currentNotes()) }],
    };
  });

  server.setRequestHandler('resources/subscribe', async (request) => {
    if (request.params.uri !== NOTES_RESOURCE_URI)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown resource ${request.params.uri}`);
    subscribed = true;
    return {};
  });

  server.setRequestHandler('resources/unsubscribe', async (request) => {
    if (request.params.uri === NOTES_RESOURCE_URI) subscribed = false;
    return {};
  });

  return {
    server,
    get subscribedToNotes() {
      return subscribed;
    },
  };
}
