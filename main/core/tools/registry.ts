// One registry of typed tools. The same definitions serve the live model (declarations + calls),
// the sidecar (`POST /tools/:name`) and the CLI (`live-voice-bridge tool <name>`), so a tool's
// argument schema is written once, in zod, and its JSON Schema is derived from it.
import { z } from 'zod';
import type { ToolDeclaration } from '../ports.ts';

export interface ToolContext {
  /** Who is calling: 'model', 'sidecar', 'cli', or a test name. Shown in notes, never trusted for auth. */
  caller: string;
  signal?: AbortSignal;
}

export interface ToolDefinition<Args = unknown, Result = unknown> {
  name: string;
  description: string;
  args: z.ZodType<Args>;
  run(args: Args, ctx: ToolContext): Promise<Result> | Result;
}

export type ToolOutcome<Result = unknown> =
  | { ok: true; result: Result }
  | { ok: false; error: { code: 'unknown_tool' | 'invalid_args' | 'tool_failed' | 'cancelled'; message: string } };

/** Identity helper that keeps `Args` inferred from the zod schema at the definition site. */
export function defineTool<Args, Result>(tool: ToolDefinition<Args, Result>): ToolDefinition<Args, Result> {
  return tool;
}

export class ToolRegistry {
  readonly #tools = new Map<string, ToolDefinition<unknown, unknown>>();

  register<Args, Result>(tool: ToolDefinition<Args, Result>): this {
    if (this.#tools.has(tool.name)) throw new Error(`tool ${tool.name} is already registered`);
    this.#tools.set(tool.name, tool as ToolDefinition<unknown, unknown>);
    return this;
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  names(): string[] {
    return [...this.#tools.keys()];
  }

  /** Declarations for the live model: name, description and the JSON Schema of the arguments. */
  declarations(): ToolDeclaration[] {
    return [...this.#tools.values()].map((tool) => {
      const { $schema: _drop, ...parameters } = z.toJSONSchema(tool.args, { io: 'input' }) as Record<string, unknown>;
      return { name: tool.name, description: tool.description, parameters };
    });
  }

  /**
   * Validate and run. Never throws: a bad argument or a failing tool becomes an error outcome, so a
   * model's mistake cannot kill the session and a client's mistake is a 4xx, not a 500.
   */
  async invoke(name: string, rawArgs: unknown, ctx: ToolContext): Promise<ToolOutcome> {
    const tool = this.#tools.get(name);
    if (!tool) return { ok: false, error: { code: 'unknown_tool', message: `no tool named ${JSON.stringify(name)}` } };
    const parsed = tool.args.safeParse(rawArgs ?? {});
    if (!parsed.success) {
      return { ok: false, error: { code: 'invalid_args', message: z.prettifyError(parsed.error) } };
    }
    if (ctx.signal?.aborted) return { ok: false, error: { code: 'cancelled', message: 'the call was cancelled' } };
    try {
      return { ok: true, result: await tool.run(parsed.data, ctx) };
    } catch (err) {
      if (ctx.signal?.aborted) return { ok: false, error: { code: 'cancelled', message: 'the call was cancelled' } };
      return { ok: false, error: { code: 'tool_failed', message: err instanceof Error ? err.message : String(err) } };
    }
  }
}
