// The tools our MCP server offers to agents. Each one is a thin translation of its arguments into
// one sidecar HTTP request: the route does the validation and the work, so an agent over MCP and a
// program over HTTP get the same behaviour and the same error codes (`empty_text`, `unknown_mode`,
// `no_call`, ...). Only what the HTTP API cannot express (which schedule action, a file path for a
// frame) is decided here.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { NOTIFY_MODES } from '../../api-types.ts';
import type { ToolDeclaration } from '../../ports.ts';
import { IMAGE_BODY_LIMIT } from '../../contracts/sidecar-limits.ts';
import { Refusal } from '../../contracts/refusal.ts';

export interface SidecarRequest {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  json?: unknown;
  image?: Buffer;
}

export interface SidecarAnswer {
  status: number;
  body: unknown;
}

/** Runs one request through the sidecar's own routes (fastify.inject: same checks, same handlers). */
export type SidecarInvoker = (request: SidecarRequest) => Promise<SidecarAnswer>;

/** A refusal decided before any route runs (missing action, unreadable file), with an API-style code. */
export class AgentToolInputError extends Refusal {
  constructor(code: string, message: string, status = 400) {
    super(code, message, status);
  }
}

export interface AgentTool {
  name: string;
  title: string;
  description: string;
  /** JSON Schema of the arguments (an object schema). */
  inputSchema: Record<string, unknown>;
  readOnly: boolean;
  toRequest(args: Record<string, unknown>): SidecarRequest | Promise<SidecarRequest>;
}

const MCP_SOURCE = 'mcp';
/** How an agent that does not name itself is introduced to the owner. */
const MCP_SOURCE_AGENT = 'an agent over MCP';

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return rest;
}

/** Strings pass through; anything else is left for the route to refuse with its own code. */
function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function queryString(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

const SayArgs = z.object({
  text: z.string().describe('What the model should say in its next turn (at most 2000 characters).'),
});
const NotifyArgs = z.object({
  text: z.string().describe('The notification text.'),
  mode: z
    .enum(NOTIFY_MODES)
    .optional()
    .describe(
      'voice (spoken in the call), dm, channel, webhook, auto (the first that delivers of voice, DM, channel, webhook) or all. Default auto.',
    ),
  title: z.string().optional(),
  urgent: z.boolean().optional().describe('Urgent notifications bypass the webhook throttle.'),
});
const ScheduleArgs = z.object({
  action: z
    .enum(['create', 'list', 'cancel'])
    .describe('create a scheduled notification, list them, or cancel one by id'),
  text: z.string().optional().describe('create: the notification text'),
  delay_seconds: z.number().optional().describe('create: seconds from now (0 to 30 days)'),
  mode: z.enum(NOTIFY_MODES).optional().describe('create: delivery mode, default auto'),
  title: z.string().optional(),
  id: z.string().optional().describe('cancel: the schedule id returned by create or list'),
});
const PushFrameArgs = z.object({
  path: z.string().optional().describe('Absolute path of a PNG, JPEG or WebP file on this machine'),
  base64: z.string().optional().describe('The image bytes, base64-encoded (instead of path)'),
});
const ReadNotesArgs = z.object({
  limit: z.number().int().min(1).max(500).optional().describe('How many recent events (default 50)'),
});
const SearchNotesArgs = z.object({
  q: z.string().min(1).max(200).describe('Words to look for in every past call (full text)'),
  since: z.number().optional().describe('Only lines at or after this time (epoch seconds)'),
  limit: z.number().int().min(1).max(100).optional().describe('How many hits (default 20)'),
});
const JoinArgs = z.object({
  guild_id: z.string().optional().describe('With channel_id: join this voice channel instead of following the owner'),
  channel_id: z.string().optional(),
});
const NoArgs = z.object({});
const AskOwnerArgs = z.object({
  question: z
    .string()
    .describe('A yes-or-no question for the owner (at most 500 characters), e.g. "May I push the release branch?"'),
  from: z.string().optional().describe('Who is asking, as the owner should hear it (e.g. "the build agent")'),
});

async function readImageFile(file: string): Promise<Buffer> {
  if (!path.isAbsolute(file))
    throw new AgentToolInputError(
      'invalid_args',
      'path must be absolute: the sidecar does not share your working folder',
    );
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new AgentToolInputError('file_not_found', `${file} is not a file`, 404);
    if (info.size > IMAGE_BODY_LIMIT)
      throw new AgentToolInputError('payload_too_large', `image is larger than ${IMAGE_BODY_LIMIT} bytes`, 413);
    return await readFile(file);
  } catch (err) {
    if (err instanceof AgentToolInputError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw new AgentToolInputError('file_not_found', `no file at ${file}`, 404);
    if (code === 'EACCES' || code === 'EPERM')
      throw new AgentToolInputError('file_unreadable', `cannot read ${file} (permission denied)`, 403);
    throw err;
  }
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

const CALL_TOOLS: AgentTool[] = [
  {
    name: 'say',
    title: 'Say in the call',
    description:
      'An announcement: the live model says this text word for word in its next turn (never cutting off a reply in progress). To have the model answer something instead, use message_model. Needs a live call.',
    inputSchema: jsonSchemaOf(SayArgs),
    readOnly: false,
    // POST: the text as given (a non-string is the client's mistake, 400), and long text needs no URL.
    toRequest: (args) => ({ method: 'POST', url: '/say', json: { text: args.text ?? '' } }),
  },
  {
    name: 'message_model',
    title: 'Message the model',
    description:
      'A message to the live model, which answers it aloud in the call as if the user had asked (e.g. "Tell me a one-line joke"). To have a text read out as it is, use say. Needs a live call.',
    inputSchema: jsonSchemaOf(SayArgs),
    readOnly: false,
    toRequest: (args) => ({ method: 'POST', url: '/ask', json: { text: args.text ?? '' } }),
  },
  {
    name: 'notify',
    title: 'Notify the owner',
    description:
      'Deliver a notification now by voice, Discord DM, channel post or webhook. The result lists what reached whom.',
    inputSchema: jsonSchemaOf(NotifyArgs),
    readOnly: false,
    toRequest: (args) => ({ method: 'POST', url: '/notify', json: { source: MCP_SOURCE, ...args } }),
  },
  {
    name: 'schedule',
    title: 'Scheduled notifications',
    description:
      'action=create schedules a notification (text, delay_seconds, mode); action=list shows them; action=cancel removes one by id.',
    inputSchema: jsonSchemaOf(ScheduleArgs),
    readOnly: false,
    toRequest: (args) => {
      switch (args.action) {
        case 'list':
          return { method: 'GET', url: '/schedule' };
        case 'cancel': {
          const id = optionalString(args.id)?.trim();
          if (!id) throw new AgentToolInputError('invalid_args', 'cancel needs the schedule id');
          return { method: 'DELETE', url: `/schedule/${encodeURIComponent(id)}` };
        }
        case 'create': {
          const { action: _action, id: _id, ...request } = args;
          return { method: 'POST', url: '/schedule', json: { source: MCP_SOURCE, ...request } };
        }
        default:
          throw new AgentToolInputError('invalid_args', 'action must be create, list or cancel');
      }
    },
  },
  {
    name: 'push_frame',
    title: 'Show an image to the model',
    description:
      'Send one image (PNG, JPEG or WebP; a file path or base64) for the live model to see. At most one frame per second is sent; newer frames replace older ones.',
    inputSchema: jsonSchemaOf(PushFrameArgs),
    readOnly: false,
    toRequest: async (args) => {
      const file = optionalString(args.path);
      const base64 = optionalString(args.base64);
      if ((file === undefined) === (base64 === undefined))
        throw new AgentToolInputError('invalid_args', 'give exactly one of path or base64');
      if (base64 !== undefined) {
        const compact = base64.replace(/^data:[^,]*,/, '').replace(/\s+/g, '');
        if (!BASE64.test(compact)) throw new AgentToolInputError('invalid_args', 'base64 is not valid base64');
        if ((compact.length * 3) / 4 > IMAGE_BODY_LIMIT)
          throw new AgentToolInputError('payload_too_large', `image is larger than ${IMAGE_BODY_LIMIT} bytes`, 413);
        return { method: 'POST', url: '/frame', image: Buffer.from(compact, 'base64') };
      }
      return { method: 'POST', url: '/frame', image: await readImageFile(file!) };
    },
  },
  {
    name: 'read_notes',
    title: 'Read the call notes',
    description:
      'Recent transcripts (what the owner and the model said), notes, tool calls and notifications, newest last.',
    inputSchema: jsonSchemaOf(ReadNotesArgs),
    readOnly: true,
    toRequest: (args) => ({
      method: 'GET',
      url: `/notes${queryString({ limit: typeof args.limit === 'number' ? args.limit : optionalString(args.limit) })}`,
    }),
  },
  {
    name: 'search_notes',
    title: 'Search past calls',
    description:
      'Full-text search over every recorded call (newest first). Answers { hits: [{ call_id, at, speaker, snippet }] }; at is epoch seconds, speaker a display name.',
    inputSchema: jsonSchemaOf(SearchNotesArgs),
    readOnly: true,
    toRequest: (args) => ({
      method: 'GET',
      url: `/notes/search${queryString({ q: optionalString(args.q), since: typeof args.since === 'number' ? args.since : undefined, limit: typeof args.limit === 'number' ? args.limit : undefined })}`,
    }),
  },
  {
    name: 'call_status',
    title: 'Call status',
    description:
      'Whether a call is live (bridge state, call id, Discord and model connections), audio levels and counters.',
    inputSchema: jsonSchemaOf(NoArgs),
    readOnly: true,
    toRequest: () => ({ method: 'GET', url: '/health' }),
  },
  {
    name: 'join',
    title: 'Start a call',
    description:
      "Join the owner's voice channel (or the given guild_id + channel_id) and connect the live model. Answers once connected.",
    inputSchema: jsonSchemaOf(JoinArgs),
    readOnly: false,
    toRequest: (args) => ({ method: 'POST', url: '/join', json: args }),
  },
  {
    name: 'ask_owner',
    title: 'Ask the owner (yes/no)',
    description:
      "Ask the owner a yes-or-no question and wait for the answer (up to 5 minutes). In a live call it is asked aloud and only the owner's own spoken answer counts; " +
      'otherwise it waits on the dashboard. Answers { answer: "yes" | "no" | "no_answer", by: "voice" | "dashboard", asked_aloud }.',
    inputSchema: jsonSchemaOf(AskOwnerArgs),
    readOnly: false,
    toRequest: (args) => ({
      method: 'POST',
      url: '/ask-owner',
      json: {
        question: args.question,
        ...(args.from !== undefined ? { from: args.from } : { from: MCP_SOURCE_AGENT }),
      },
    }),
  },
  {
    name: 'leave',
    title: 'End the call',
    description: 'Leave the voice channel and close the model session. Idempotent.',
    inputSchema: jsonSchemaOf(NoArgs),
    readOnly: false,
    toRequest: () => ({ method: 'GET', url: '/leave' }),
  },
];

/** The helper tools (`sora_*`) come from the tool registry's own declarations: one schema, two doors. */
export const HELPER_TOOL_PREFIX = 'sora_';

/** The delegate watcher's tool; offered to agents as `delegate` when a delegate command is configured. */
const DELEGATE_TOOL = 'local_delegate_execute';

export function agentTools(helperDeclarations: readonly ToolDeclaration[]): AgentTool[] {
  const helpers = helperDeclarations
    .filter((d) => d.name.startsWith(HELPER_TOOL_PREFIX))
    .map((d): AgentTool => ({
      name: d.name,
      title: d.name,
      description: d.description,
      inputSchema: { type: 'object', ...d.parameters },
      readOnly: false,
      toRequest: (args) => ({ method: 'POST', url: `/tools/${encodeURIComponent(d.name)}`, json: args }),
    }));
  // A long job an agent starts is a task: it answers { started: id } at once, and its end is
  // announced to the owner (spoken in a call, else a DM) by the delegate watcher.
  const delegate = helperDeclarations.find((d) => d.name === DELEGATE_TOOL);
  const delegateTool: AgentTool[] = delegate
    ? [
        {
          name: 'delegate',
          title: 'Hand a long task to the delegate agent',
          description: `${delegate.description} Poll with status_id; the owner hears when it ends.`,
          inputSchema: { type: 'object', ...delegate.parameters },
          readOnly: false,
          toRequest: (args) => ({ method: 'POST', url: `/tools/${DELEGATE_TOOL}`, json: args }),
        },
      ]
    : [];
  return [...CALL_TOOLS, ...helpers, ...delegateTool];
}
