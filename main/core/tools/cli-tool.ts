// `live-voice-bridge tool <name>`: run one helper tool on the JSON arguments read from stdin and
// print its JSON result. Exit 0 on success, 2 on a usage error (unknown tool, bad JSON, invalid
// arguments), 1 when the tool itself failed. No running bridge is needed (or contacted).
import { createHelperTools, defaultAgentHome } from './helpers/index.ts';
import { ToolRegistry } from './registry.ts';

export interface ToolCommandIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Enough for long call notes; a larger input is refused rather than buffered without end. */
const STDIN_LIMIT = 8 * 1024 * 1024;

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
    size += buf.length;
    if (size > STDIN_LIMIT) throw new RangeError(`stdin is larger than ${STDIN_LIMIT} bytes`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function usage(registry: ToolRegistry): string {
  return `usage: live-voice-bridge tool NAME < args.json\n       live-voice-bridge tool --list\ntools: ${registry.names().join(', ')}\n`;
}

export function createCliToolRegistry(env: NodeJS.ProcessEnv = process.env): ToolRegistry {
  const registry = new ToolRegistry();
  for (const tool of createHelperTools({ agentHome: () => defaultAgentHome(env) })) registry.register(tool);
  return registry;
}

export async function runToolCommand(
  argv: string[],
  io: ToolCommandIo,
  registry: ToolRegistry = createCliToolRegistry(),
): Promise<number> {
  const args = argv[0] === 'tool' ? argv.slice(1) : argv;
  const [name, ...extra] = args;
  if (name === '--list') {
    io.stdout.write(JSON.stringify(registry.declarations(), null, 2) + '\n');
    return 0;
  }
  if (!name || name === '--help' || name === '-h' || extra.length > 0) {
    io.stderr.write(usage(registry));
    return 2;
  }
  if (!registry.has(name)) {
    io.stderr.write(`error: unknown tool ${JSON.stringify(name)}\n${usage(registry)}`);
    return 2;
  }
  let input: unknown;
  try {
    const text = await readAll(io.stdin);
    input = text.trim() ? JSON.parse(text) : {};
  } catch (err) {
    io.stderr.write(`error: stdin is not valid JSON (${err instanceof Error ? err.message : String(err)})\n`);
    return 2;
  }
  const outcome = await registry.invoke(name, input, { caller: 'cli' });
  if (!outcome.ok) {
    io.stderr.write(`error: ${outcome.error.code}: ${outcome.error.message}\n`);
    // A caller's mistake (bad args, unknown tool, a refused request) is a usage error.
    return outcome.error.status < 500 ? 2 : 1;
  }
  io.stdout.write(JSON.stringify(outcome.result ?? null, null, 2) + '\n');
  return 0;
}
