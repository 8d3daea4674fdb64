// DISCORD_VOICE_LIVE_MCP_SERVERS: the MCP servers whose tools the live model may use. A JSON list;
// each entry is a stdio command (command + args, optional env and cwd) or a URL (Streamable HTTP,
// optional headers), with a policy per tool. Header and env values are secrets: they join the
// logger's scrub list and never appear in errors.
import { z } from 'zod';

export const TOOL_POLICIES = ['allow', 'ask', 'deny'] as const;
export type ToolPolicy = (typeof TOOL_POLICIES)[number];

const Policy = z.enum(TOOL_POLICIES);

const common = {
  /** Part of the model-facing tool names (`mcp_<name>_<tool>`), so short and plain. */
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,23}$/, 'name must be 1–24 letters, digits, _ or -'),
  /** Policy per tool name (the server's own tool name); tools not listed get `default_policy`. */
  tools: z.record(z.string(), Policy).default({}),
  default_policy: Policy.default('ask'),
  /** How long initialize, tools/list and one tool call may take before the server counts as hung. */
  timeout_seconds: z.number().positive().max(3600).default(30),
};

const StdioServer = z
  .object({
    ...common,
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().optional(),
  })
  .strict();

const HttpServer = z
  .object({
    ...common,
    url: z.url({ protocol: /^https?$/, error: 'url must be an http(s) URL' }),
    headers: z.record(z.string(), z.string()).default({}),
  })
  .strict();

export const McpServersSchema = z
  .array(
    z.union([StdioServer, HttpServer], { error: 'each server needs either command (stdio) or url (HTTP), not both' }),
  )
  .max(20)
  .refine(
    (servers) => new Set(servers.map((s) => s.name.toLowerCase())).size === servers.length,
    'server names must be unique',
  );

export type McpServerConfig = z.output<typeof McpServersSchema>[number];
export type McpStdioServerConfig = z.output<typeof StdioServer>;

export function isStdioServer(server: McpServerConfig): server is McpStdioServerConfig {
  return 'command' in server;
}

/**
 * Parse the variable's JSON. Errors name the entry and field, never a value (headers hold tokens).
 */
export function parseMcpServers(raw: string): { servers: McpServerConfig[] } | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { error: 'must be a JSON list of servers (value hidden: it is not valid JSON)' };
  }
  const parsed = McpServersSchema.safeParse(json);
  if (parsed.success) return { servers: parsed.data };
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length
    ? issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')
    : '';
  return { error: `${where ? `${where}: ` : ''}${issue.message} (value hidden)` };
}

/** Values the logger must scrub: header values and env values of every server. */
export function mcpSecretValues(servers: readonly McpServerConfig[]): string[] {
  return servers.flatMap((s) => Object.values(isStdioServer(s) ? s.env : s.headers)).filter((v) => v.length >= 8);
}
