// One registry of typed tools. The same definitions serve the live model (declarations + calls),
// the sidecar (`POST /tools/:name`) and the CLI (`live-voice-bridge tool <name>`), so a tool's
// argument schema is written once, in zod, and its JSON Schema is derived from it.
import { z } from 'zod';
import { zodErrorMessage } from '../input-errors.ts';
import type { ToolDeclaration } from '../ports.ts';

export interface ToolContext {
  /** Who is calling: 'model', 'sidecar', 'cli', or a test name. Shown in notes, never trusted for auth. */
  caller: string;
  signal?: AbortSignal;
  /** For a model's call in a voice call: who was heard in the turn that led to it (see ToolAuthority). */
  heard?: HeardSpeakers;
}

/**
 * Who may make the model run a tool by voice: `owner` (the owner was heard in the turn), `speakers`
 * (any allowed speaker; the default) or `anyone`. Token holders (sidecar, CLI) are not voices and
 * are not checked here.
 */
export type ToolAuthority = 'owner' | 'speakers' | 'anyone';

/** The voices active in the turn a model's tool call answers (from the receive path's activity). */
export interface HeardSpeakers {
  ids: readonly string[];
  /** Display names, in the same order, for what the model and the notes are told. */
  names: readonly string[];
  /** Every one of them is the owner (a guest heard in the same turn takes the owner's rights away). */
  owner: boolean;
  /** Every one of them is an allowed speaker (or the owner). */
  allowed: boolean;
  /** When the owner was heard with others: the others' names (the refusal asks the owner to repeat alone). */
  notOwner?: readonly string[];
}

export interface ToolDefinition<Args = unknown, Result = unknown> {
  name: string;
  description: string;
  args: z.ZodType<Args>;
  /** JSON Schema to declare instead of the one derived from `args` (tools defined elsewhere, e.g. an MCP server's). */
  parameters?: Record<string, unknown>;
  /** Only these callers may run the tool; others get `unknown_tool` (e.g. MCP tools offered to the model only). */
  callers?: readonly string[];
  /** Who may trigger it by voice (default `speakers`). */
  authority?: ToolAuthority;
  /** Instead of `authority`, for tools whose forms differ (list for all, cancel for the owner). */
  authorityFor?(args: Args): ToolAuthority;
  /** With `authorityFor`: which forms are owner-only, in words (shown in the room view). */
  ownerOnlyForms?: string;
  run(args: Args, ctx: ToolContext): Promise<Result> | Result;
}

/**
 * A failure outcome. `status` is what it means over HTTP: 404 `unknown_tool`, 400 `invalid_args`,
 * 409 `cancelled`, the caller-mistake status a tool refused with (its own code: `empty_text`,
 * `unknown_schedule_id`, `forbidden`, …), and 500 `tool_failed` only for a fault of ours.
 */
export type ToolOutcome<Result = unknown> =
  { ok: true; result: Result } | { ok: false; error: { code: string; message: string; status: number } };

/**
 * What a tool throws to refuse its caller's request (bad input, unknown id, not allowed, conflict):
 * any Error with a string `code` and a 4xx (or 503 "not configured here") `status`. Such a refusal
 * is answered as such, never as `tool_failed`.
 */
export interface CallerRefusal extends Error {
  readonly code: string;
  readonly status: number;
}

export function isCallerRefusal(err: unknown): err is CallerRefusal {
  if (!(err instanceof Error)) return false;
  const { code, status } = err as Partial<CallerRefusal>;
  return typeof code === 'string' && typeof status === 'number' && ((status >= 400 && status < 500) || status === 503);
}

const CANCELLED = { code: 'cancelled', message: 'the call was cancelled', status: 409 } as const;

/** Identity helper that keeps `Args` inferred from the zod schema at the definition site. */
export function defineTool<Args, Result>(tool: ToolDefinition<Args, Result>): ToolDefinition<Args, Result> {
  return tool;
}

export class ToolRegistry {
  readonly #tools = new Map<string, ToolDefinition<unknown, unknown>>();
  readonly #listeners = new Set<() => void>();

  register<Args, Result>(tool: ToolDefinition<Args, Result>): this {
    if (this.#tools.has(tool.name)) throw new Error(`tool ${tool.name} is already registered`);
    this.#tools.set(tool.name, tool as ToolDefinition<unknown, unknown>);
    for (const listener of this.#listeners) listener();
    return this;
  }

  /** Tools that come and go at run time (an MCP server restarted with another tool list). */
  unregister(name: string): boolean {
    const removed = this.#tools.delete(name);
    if (removed) for (const listener of this.#listeners) listener();
    return removed;
  }

  /** Called after each register/unregister (a call in progress updates its model's tools); returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  names(): string[] {
    return [...this.#tools.keys()];
  }

  /** Tools, or forms of them, that only the owner's voice may trigger (the room view). */
  ownerOnly(): string[] {
    return [...this.#tools.values()].flatMap((tool) =>
      tool.authority === 'owner'
        ? [tool.name]
        : tool.authorityFor && tool.ownerOnlyForms
          ? [`${tool.name} (${tool.ownerOnlyForms})`]
          : [],
    );
  }

  /** Declarations for the live model: name, description and the JSON Schema of the arguments. */
  declarations(): ToolDeclaration[] {
    return [...this.#tools.values()].map((tool) => {
      const { $schema: _drop, ...parameters } =
        tool.parameters ?? (z.toJSONSchema(tool.args, { io: 'input' }) as Record<string, unknown>);
      return { name: tool.name, description: tool.description, parameters };
    });
  }

  /**
   * Validate and run. Never throws: a bad argument or a failing tool becomes an error outcome, so a
   * model's mistake cannot kill the session and a client's mistake is a 4xx, not a 500.
   */
  async invoke(name: string, rawArgs: unknown, ctx: ToolContext): Promise<ToolOutcome> {
    const tool = this.#tools.get(name);
    if (!tool || (tool.callers && !tool.callers.includes(ctx.caller)))
      return {
        ok: false,
        error: { code: 'unknown_tool', message: `no tool named ${JSON.stringify(name)}`, status: 404 },
      };
    const parsed = tool.args.safeParse(rawArgs ?? {});
    if (!parsed.success) {
      return { ok: false, error: { code: 'invalid_args', message: zodErrorMessage(parsed.error), status: 400 } };
    }
    const refused = authorityRefusal(tool, parsed.data, ctx.heard);
    if (refused) return { ok: false, error: refused };
    if (ctx.signal?.aborted) return { ok: false, error: CANCELLED };
    try {
      return { ok: true, result: await tool.run(parsed.data, ctx) };
    } catch (err) {
      if (ctx.signal?.aborted) return { ok: false, error: CANCELLED };
      if (isCallerRefusal(err))
        return { ok: false, error: { code: err.code, message: err.message, status: err.status } };
      return {
        ok: false,
        error: { code: 'tool_failed', message: err instanceof Error ? err.message : String(err), status: 500 },
      };
    }
  }
}

/**
 * Refuse a voice-triggered call the voices heard may not make. A turn with no voice at all (text
 * injected by a token holder, a scheduled reminder) is not a guest's request and passes.
 */
function authorityRefusal(
  tool: ToolDefinition<unknown, unknown>,
  args: unknown,
  heard: HeardSpeakers | undefined,
): { code: string; message: string; status: number } | null {
  if (!heard || heard.ids.length === 0) return null;
  const authority = tool.authorityFor?.(args) ?? tool.authority ?? 'speakers';
  const who = heard.names.join(' and ');
  if (authority === 'owner' && !heard.owner && heard.notOwner) {
    const others = heard.notOwner.join(' and ');
    return {
      code: 'owner_only',
      status: 403,
      message: `Only the owner may ask for this, and ${others} spoke in the same turn, so it is not clear who asked. Tell them you will do it when the owner asks again on their own.`,
    };
  }
  if (authority === 'owner' && !heard.owner) {
    return {
      code: 'owner_only',
      status: 403,
      message: `Only the owner may ask for this; it was asked by ${who}. Tell ${who} that you cannot do it for them, and that the owner can ask.`,
    };
  }
  if (authority === 'speakers' && !heard.allowed) {
    return {
      code: 'not_allowed',
      status: 403,
      message: `${who} may not ask for this; only the allowed speakers may. Tell them so.`,
    };
  }
  return null;
}
