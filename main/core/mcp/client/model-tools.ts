// Third-party MCP tools for the live model. Each configured server's tools join the tool registry
// as `mcp_<server>_<tool>` (model only), under the server's policy per tool:
//   allow — run at once; a result within a moment is the tool's answer, a slower one arrives later
//           as a message, so the model can say "working on it" instead of leaving dead air;
//   ask   — the model gets "ask the owner" at once; the owner answers by voice (the model relays it
//           through `mcp_approval`, checked against the owner's own words) or on the dashboard;
//   deny  — never offered, never run.
// Results are redacted and size-capped before they reach the model.
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { EventHub } from '../../event-hub.ts';
import type { NotesSink } from '../../ports.ts';
import type { ToolContext, ToolRegistry } from '../../tools/registry.ts';
import { ApprovalBroker, ApprovalError, type ApprovalDecision } from './approvals.ts';
import type { McpServerConfig, ToolPolicy } from '../../config/mcp-servers.ts';
import {
  McpServerConnection,
  type McpServerReport,
  type ServerQuestion,
  type ServerQuestionAnswer,
} from './server-connection.ts';
import { AFFIRMATIVE, NEGATIVE, type OwnerQuestions } from '../owner-questions.ts';

export const APPROVAL_TOOL = 'mcp_approval';
export const MODEL_TOOL_PREFIX = 'mcp_';
/** What the model reads of one result; the rest is cut (the model speaks, it does not read pages). */
export const RESULT_MAX_CHARS = 4000;
/** Arguments shown to the owner for approval. */
const APPROVAL_ARGS_MAX_CHARS = 500;
/** A result within this long is the tool call's own answer; a slower one arrives as a message. */
const QUICK_RESULT_MS = 1500;
const MODEL_ONLY = ['model'] as const;
/** Transcription fragments of the owner kept for approval checks (a few minutes of talk). */
const OWNER_WORDS_KEPT = 400;

export interface McpModelToolsOptions {
  servers: readonly McpServerConfig[];
  registry: ToolRegistry;
  hub: EventHub;
  notes: NotesSink;
  logger: Logger;
  clientVersion: string;
  /** The redactor every result passes before the model sees it. */
  redact: (text: string) => string;
  /** Hand text to the model as its next turn; says whether it got there (no live call, no idle moment). */
  deliverToModel: (text: string) => Promise<{ delivered: boolean; reason?: string }>;
  /** The owner's Discord id: only their transcribed words count as a spoken approval. */
  ownerId?: string;
  /** Only the owner's voice reaches the model, so an unattributed transcript is the owner's. */
  ownerOnlyVoice: () => boolean;
  quickResultMs?: number;
  backoffMs?: readonly number[];
  /** One broker for every owner decision (the dashboard lists them together); default a new one. */
  approvals?: ApprovalBroker;
  /** A server's yes/no question (elicitation / input_required) put to the owner; without it, declined. */
  ownerQuestions?: Pick<OwnerQuestions, 'ask'>;
  /** Whose spoken yes approves an `ask` tool (the owner and named approvers); default the owner's alone. */
  mayAnswer?: (speaker: string | undefined) => boolean;
}

export interface McpModelTools {
  approvals: ApprovalBroker;
  /** An input transcription fragment as it arrives, with who was speaking (for spoken approvals). */
  heard(text: string, speaker: string | undefined): void;
  servers(): McpServerReport[];
  /** Resolves once every server has been ready or failed at least once (tests, start-up). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** `mcp_<server>_<tool>` with only the characters every live model accepts, at most 64 long. */
export function modelToolName(server: string, tool: string): string {
  return `${MODEL_TOOL_PREFIX}${server}_${tool}`.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 64);
}

/** MCP content → the text the model reads: text parts as they are, other parts as short markers. */
export function resultText(result: CallToolResult): string {
  const parts = (result.content ?? []).map((part) => {
    switch (part.type) {
      case 'text':
        return part.text;
      case 'image':
      case 'audio':
        return `[${part.type} ${part.mimeType} omitted]`;
      case 'resource':
        return 'text' in part.resource ? part.resource.text : `[resource ${part.resource.uri}]`;
      case 'resource_link':
        return `[resource ${part.uri}]`;
      default:
        return '';
    }
  });
  const text = parts.filter(Boolean).join('\n');
  if (text) return text;
  return result.structuredContent ? JSON.stringify(result.structuredContent) : '(no content)';
}

export function capText(text: string, max = RESULT_MAX_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (cut: ${text.length - max} more characters)`;
}

/**
 * What the approvers said, fragment by fragment in arrival order: a spoken approval must come after
 * the request (words from before it, like the request itself, do not count). A sequence number,
 * not a clock: a fragment and the request can arrive within the same millisecond.
 */
class SpokenWords {
  readonly #words: { seq: number; text: string }[] = [];
  readonly #seqAtRequest = new Map<string, number>();
  #seq = 0;

  heard(text: string): void {
    this.#words.push({ seq: ++this.#seq, text });
    if (this.#words.length > OWNER_WORDS_KEPT) this.#words.splice(0, this.#words.length - OWNER_WORDS_KEPT);
  }

  /** Remember where the words stood when approval `id` was asked for, until `decided` settles. */
  markRequest(id: string, decided: Promise<unknown>): void {
    this.#seqAtRequest.set(id, this.#seq);
    void decided.finally(() => this.#seqAtRequest.delete(id));
  }

  /** Everything heard since approval `id` was asked for ('' for an unknown request). */
  since(id: string): string {
    const seq = this.#seqAtRequest.get(id) ?? Number.POSITIVE_INFINITY;
    return this.#words
      .filter((w) => w.seq > seq)
      .map((w) => w.text)
      .join('');
  }
}

/** Runs a model's call of an MCP tool under its policy: at once (allow) or after the owner's approval (ask). */
class McpToolRunner {
  readonly #options: McpModelToolsOptions;
  readonly #approvals: ApprovalBroker;
  readonly #spoken: SpokenWords;
  readonly #quickMs: number;

  constructor(options: McpModelToolsOptions, approvals: ApprovalBroker, spoken: SpokenWords) {
    this.#options = options;
    this.#approvals = approvals;
    this.#spoken = spoken;
    this.#quickMs = options.quickResultMs ?? QUICK_RESULT_MS;
  }

  async runAllowed(
    connection: McpServerConnection,
    tool: string,
    modelName: string,
    args: Record<string, unknown>,
    ctx: ToolContext,
  ): Promise<unknown> {
    const job = this.#execute(connection, tool, modelName, args, ctx.signal);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const slow = new Promise<'slow'>((resolve) => (timer = setTimeout(() => resolve('slow'), this.#quickMs)));
    const first = await Promise.race([job.then((text) => ({ text })), slow]).finally(() => clearTimeout(timer));
    if (first !== 'slow') return { content: first.text };
    this.#deliverWhenDone(job, modelName);
    return {
      status: 'running',
      message: `${modelName} takes a while. Tell the owner it is running; its result will arrive as a message when ready.`,
    };
  }

  runAsked(connection: McpServerConnection, tool: string, modelName: string, args: Record<string, unknown>): unknown {
    const { notes, redact } = this.#options;
    const shownArgs = capText(redact(JSON.stringify(args)), APPROVAL_ARGS_MAX_CHARS);
    const { id, decision } = this.#approvals.request({
      tool: modelName,
      server: connection.config.name,
      args: shownArgs,
    });
    this.#spoken.markRequest(id, decision);
    notes.append({ kind: 'tool_call', text: `${modelName}: waiting for the owner's approval (${id})` });
    void decision.then((outcome: ApprovalDecision) => {
      if (outcome === 'approved')
        return this.#deliverWhenDone(this.#execute(connection, tool, modelName, args), modelName);
      notes.append({ kind: 'tool_call', text: `${modelName}: ${outcome} by the owner (${id})` });
      const view = this.#approvals.get(id);
      // A spoken refusal went through the model already; tell it about the others.
      if (view?.decided_by !== 'voice')
        this.#deliver(
          `The owner did not approve ${modelName} (${outcome === 'expired' ? 'no answer in time' : 'refused on the dashboard'}); it was not run.`,
        );
    });
    return {
      status: 'awaiting_approval',
      approval_id: id,
      message:
        `Ask the owner out loud whether to run ${modelName} with ${shownArgs}. Then call ${APPROVAL_TOOL} with approval_id "${id}" ` +
        `and approved true only if the owner clearly said yes (false if no). They can also answer on the dashboard. The result will arrive as a message.`,
    };
  }

  /** Runs the tool; resolves with the (redacted, capped) text, rejects with a message for the model. */
  async #execute(
    connection: McpServerConnection,
    tool: string,
    modelName: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<string> {
    const { notes, redact } = this.#options;
    const started = performance.now();
    try {
      const result = await connection.callTool(tool, args, signal);
      const text = capText(redact(resultText(result)));
      notes.append({
        kind: 'tool_call',
        text: `${modelName}: ${result.isError ? 'error' : 'ok'} (${Math.round(performance.now() - started)} ms)`,
      });
      if (result.isError) throw new Error(`${modelName} failed: ${text}`);
      return text;
    } catch (err) {
      const message = redact(err instanceof Error ? err.message : String(err));
      if (!message.startsWith(`${modelName} failed:`))
        notes.append({ kind: 'tool_call', text: `${modelName}: error (${message.slice(0, 200)})` });
      throw new Error(message.startsWith(`${modelName}`) ? message : `${modelName} failed: ${message}`, { cause: err });
    }
  }

  /** The later half of a slow or approved call: the outcome reaches the model as a message. */
  #deliverWhenDone(job: Promise<string>, modelName: string): void {
    job.then(
      (text) => this.#deliver(`The tool ${modelName} you started has finished. Its result: ${text}`),
      (err: unknown) => this.#deliver(`The tool ${modelName} you started did not succeed: ${(err as Error).message}`),
    );
  }

  #deliver(text: string): void {
    const log = this.#options.logger;
    void this.#options.deliverToModel(text).then(
      (outcome) => {
        if (!outcome.delivered)
          log.info({ reason: outcome.reason }, 'an MCP tool outcome did not reach the model; it is only in the notes');
      },
      (err: unknown) => log.warn({ err }, 'an MCP tool outcome could not be handed to the model'),
    );
  }
}

/** `mcp_approval`: the model relays the owner's spoken answer, checked against the owner's own words. */
function registerApprovalTool(registry: ToolRegistry, approvals: ApprovalBroker, spoken: SpokenWords): void {
  registry.register({
    name: APPROVAL_TOOL,
    description:
      "Relay the owner's spoken answer to a pending MCP tool approval. approved=true only after the owner clearly said yes in the call; " +
      'an approval without their spoken yes is refused.',
    args: z.object({ approval_id: z.string().min(1).max(40), approved: z.boolean() }),
    callers: MODEL_ONLY,
    run: ({ approval_id, approved }) => {
      const view = approvals.get(approval_id);
      if (!view) throw new ApprovalError('unknown_approval', `no approval request ${JSON.stringify(approval_id)}`);
      if (view.status !== 'pending')
        throw new ApprovalError('already_decided', `approval ${approval_id} was already ${view.status}`);
      if (!approved) {
        approvals.decide(approval_id, false, 'voice');
        return { status: 'refused', message: `${view.tool} will not run.` };
      }
      // The model's word is not the owner's: the owner must have been heard saying yes since the request.
      const heard = spoken.since(approval_id);
      if (!AFFIRMATIVE.test(heard) || NEGATIVE.test(heard)) {
        throw new ApprovalError(
          'owner_not_heard',
          'the owner has not been heard saying yes since the request; ask them and wait for a clear yes (or they approve on the dashboard)',
        );
      }
      approvals.decide(approval_id, true, 'voice');
      return { status: 'approved', message: `${view.tool} is running; its result will arrive as a message.` };
    },
  });
}

/** A server's yes/no question put to the owner aloud; a form with other fields is declined, not guessed. */
function serverQuestionHandler(
  options: McpModelToolsOptions,
): ((question: ServerQuestion) => Promise<ServerQuestionAnswer>) | undefined {
  const askOwner = options.ownerQuestions;
  if (!askOwner) return undefined;
  return async (question) => {
    const shown = capText(options.redact(question.message), APPROVAL_ARGS_MAX_CHARS);
    if (!question.yesNoField) {
      options.notes.append({
        kind: 'note',
        text: `MCP server ${question.server} asked for a form the owner cannot answer by voice; declined: ${shown}`,
      });
      return { action: 'decline' };
    }
    const outcome = await askOwner.ask({ from: `MCP server ${question.server}`, question: shown });
    if (outcome.answer === 'no_answer') return { action: 'cancel' };
    return { action: 'accept', content: { [question.yesNoField]: outcome.answer === 'yes' } };
  };
}

/** Offers a server's tools to the registry under their policies, replacing what it offered before. */
function toolOffer(
  registry: ToolRegistry,
  runner: McpToolRunner,
  log: Logger,
): (connection: McpServerConnection, tools: readonly Tool[]) => void {
  const registered = new Map<McpServerConnection, string[]>();
  return (connection, tools) => {
    for (const name of registered.get(connection) ?? []) registry.unregister(name);
    const names: string[] = [];
    const config = connection.config;
    for (const tool of tools) {
      const policy: ToolPolicy = config.tools[tool.name] ?? config.default_policy;
      if (policy === 'deny') continue;
      const modelName = modelToolName(config.name, tool.name);
      if (registry.has(modelName)) {
        log.warn({ tool: modelName }, 'MCP tool name collides with another tool; not offered');
        continue;
      }
      registry.register({
        name: modelName,
        description:
          `${tool.description ?? tool.title ?? tool.name} (MCP server ${config.name}${policy === 'ask' ? "; needs the owner's approval" : ''})`.slice(
            0,
            1024,
          ),
        args: z.record(z.string(), z.unknown()),
        parameters: { ...tool.inputSchema, type: 'object' },
        callers: MODEL_ONLY,
        // A tool the owner must approve is not one a guest may even ask for.
        authority: policy === 'ask' ? 'owner' : 'speakers',
        run: (args, ctx) =>
          policy === 'allow'
            ? runner.runAllowed(connection, tool.name, modelName, args, ctx)
            : runner.runAsked(connection, tool.name, modelName, args),
      });
      names.push(modelName);
    }
    registered.set(connection, names);
  };
}

/** Resolves once the connection has been ready or has failed once; its reports go to the hub and the notes. */
function firstSettled(connection: McpServerConnection, hub: EventHub, notes: NotesSink): Promise<void> {
  return new Promise<void>((resolve) => {
    connection.on('report', (report) => {
      hub.publish({ type: 'mcp_server', data: report });
      if (report.state === 'ready' || report.state === 'restarting') resolve();
      if (report.state === 'restarting')
        notes.append({
          kind: 'note',
          text: `MCP server ${report.name} failed (${report.last_error ?? 'unknown'}); restarting`,
        });
    });
  });
}

export function startMcpModelTools(options: McpModelToolsOptions): McpModelTools {
  const { registry, hub, notes, logger: log } = options;
  const approvals = options.approvals ?? new ApprovalBroker({ hub });
  const spoken = new SpokenWords();
  if (options.servers.length > 0) registerApprovalTool(registry, approvals, spoken);
  const onElicit = serverQuestionHandler(options);
  const connections = options.servers.map(
    (config) =>
      new McpServerConnection({
        config,
        logger: log,
        clientVersion: options.clientVersion,
        ...(options.backoffMs ? { backoffMs: options.backoffMs } : {}),
        ...(onElicit ? { onElicit } : {}),
      }),
  );
  const offer = toolOffer(registry, new McpToolRunner(options, approvals, spoken), log);
  const settledOnce = connections.map((connection) => firstSettled(connection, hub, notes));
  for (const connection of connections) {
    connection.on('tools', (tools) => offer(connection, tools));
    connection.start();
  }
  // Nobody is left to answer a spoken approval once the call ends.
  const unsubscribe = hub.subscribe((event) => {
    if (event.type === 'state' && (event.data.state === 'stopped' || event.data.state === 'error'))
      approvals.expireAll();
  });
  // Only the owner's words count; unattributed ones only when nobody else can reach the model.
  const mayAnswer =
    options.mayAnswer ??
    ((who: string | undefined) => (who !== undefined ? who === options.ownerId : options.ownerOnlyVoice()));
  return {
    approvals,
    heard(text, speaker) {
      if (mayAnswer(speaker)) spoken.heard(text);
    },
    servers: () => connections.map((c) => c.report()),
    settled: async () => {
      await Promise.all(settledOnce);
    },
    async close() {
      unsubscribe();
      approvals.expireAll();
      await Promise.all(connections.map((c) => c.stop()));
    },
  };
}
