// The floors of main/core, bottom first. A file may import only from floors below its own (and from
// its own folder); two folders on one floor may not import each other. Type-only imports count: a
// type is a dependency too. Types more than one floor needs live on floor 0 (api-types.ts, contracts/).
// eslint.config.js turns this list into the boundaries rule; test/unit/lint/floors.test.ts checks the
// rule fires and that the tree has no import up a floor and no cycle.
export const CORE_FLOORS: readonly (readonly string[])[] = [
  // 0: contracts, pure helpers and the logger: no imports inside main/core.
  [
    'api-types.ts',
    'contracts',
    'core-node-flags.ts',
    'faults.ts',
    'input-errors.ts',
    'private-dir.ts',
    'persona.ts',
    'shutdown-signals.ts',
    'idle-memory-trim.ts',
    'log',
  ],
  // 1: the seams (ports.ts), the event fan-out, the embedded database (store) and the provider
  // declarations (data every floor reads), on the contracts.
  ['ports.ts', 'event-hub.ts', 'health-verdict.ts', 'process-guard.ts', 'store', 'providers'],
  // 2: leaves: audio graph, tool registry, notes, token/cost accounting, the lifecycle runner.
  ['audio', 'tools', 'notes', 'usage', 'lifecycle.ts'],
  // 3: the configuration loader (prices and MCP server lists are parsed by the leaves' schemas), and
  // the call memory (summaries from the notes with the helper tools, the recall tool).
  ['config', 'memory'],
  // 4: settings, the model providers, notifications.
  ['settings', 'model', 'notify'],
  // 5: one call (bridge), the MCP server/client, the set-up checks.
  ['bridge', 'mcp', 'setup'],
  // 6: Discord voice.
  ['voice'],
  // 7: the room, the native-pieces report, the sidecar's HTTP routes.
  ['room', 'native', 'sidecar'],
  // 8: the core's outside contract (options, handle), and the typed client of the sidecar (its wire
  // types come from below).
  ['core-contract.ts', 'sidecar-client'],
  // 9: the capabilities: each starts one part of the core on the lifecycle (lifecycle.ts).
  ['capabilities'],
  // 10: the composition root: the capabilities in dependency order.
  ['core.ts'],
];

/** The floor of a repository-relative path under main/core, or undefined. */
export function floorOf(file: string): { floor: number; entry: string } | undefined {
  const rest = /^main\/core\/([^/]+)/.exec(file)?.[1];
  if (!rest) return undefined;
  const index = CORE_FLOORS.findIndex((floor) => floor.includes(rest));
  return index < 0 ? undefined : { floor: index, entry: rest };
}
