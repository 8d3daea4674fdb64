// The live model using third-party MCP servers through the bridge: the real
// @modelcontextprotocol/server-memory and server-everything packages over stdio, a server that
// never answers, and the fake Gemini calling tools during a simulated call.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpApprovalView, McpServerReportView, SidecarEvent } from '../../../main/core/api-types.ts';
import { startSimulatedCall, type SimulatedCall } from '../../../main/demo/simulated-call.ts';
import type { FakeGeminiConnection } from '../../../main/fakes/gemini/connection.ts';
import { freePort } from '../../helpers/net.ts';
import { waitFor } from '../bridge/signals.ts';

const require = createRequire(import.meta.url);
/** A package's bin entry, run with this Node (no shell, no PATH lookup). */
function binOf(pkg: string): string {
  const manifest = require.resolve(`${pkg}/package.json`);
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  return path.join(path.dirname(manifest), Object.values(bin)[0]!);
}

let sim: SimulatedCall;
let model: FakeGeminiConnection;
let memoryFile: string;
let memoryDir: string;
let webServer: ChildProcess | undefined;
const events: SidecarEvent[] = [];

async function api(method: 'GET' | 'POST', route: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(sim.core.sidecarUrl + route, {
    method,
    headers: { ...sim.auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, json: await response.json() };
}

async function servers(): Promise<McpServerReportView[]> {
  return ((await api('GET', '/mcp/servers')).json as { servers: McpServerReportView[] }).servers;
}

/** One tool call from the fake model; resolves with what our bridge answered. */
async function modelCalls(
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ result?: Record<string, unknown>; error?: { code: string; message: string } }> {
  const [response] = await model.toolCall([{ name, args: args as never }], 30_000);
  // The service ends the model's turn after it has the tool answer; injected text waits for that.
  model.turnComplete();
  return (
    response as unknown as { response: { result?: Record<string, unknown>; error?: { code: string; message: string } } }
  ).response;
}

/**
 * The text an allowed tool's result reached the model with: the call's own answer, or (when the
 * machine is slow enough that the bridge answered "running") the message that followed.
 */
async function allowedResult(name: string, args: Record<string, unknown> = {}): Promise<string> {
  const answer = await modelCalls(name, args);
  if (answer.error) throw new Error(`${name}: ${answer.error.code} ${answer.error.message}`);
  if (answer.result?.status !== 'running') return String(answer.result?.content);
  const marker = `The tool ${name} you started has finished. Its result: `;
  const before = injected().split(marker).length;
  await waitFor(() => injected().split(marker).length > before, `the late result of ${name}`);
  return injected().split(marker).at(-1)!;
}

/** Everything the bridge injected as text for the model to speak. */
function injected(): string {
  return JSON.stringify(model.clientContents) + model.texts.join('\n');
}

function ownerSays(text: string): void {
  model.send({ serverContent: { inputTranscription: { text } } });
}

function memory(): string {
  return existsSync(memoryFile) ? readFileSync(memoryFile, 'utf8') : '';
}

beforeAll(async () => {
  memoryDir = mkdtempSync(path.join(tmpdir(), 'lvb-mcp-memory-'));
  memoryFile = path.join(memoryDir, 'memory.jsonl');
  const mcpServers: Record<string, unknown>[] = [
    {
      name: 'memory',
      command: process.execPath,
      args: [binOf('@modelcontextprotocol/server-memory')],
      env: { MEMORY_FILE_PATH: memoryFile },
      tools: { read_graph: 'allow', create_entities: 'ask', delete_entities: 'deny' },
      default_policy: 'ask',
    },
    {
      name: 'everything',
      command: process.execPath,
      args: [binOf('@modelcontextprotocol/server-everything'), 'stdio'],
      tools: { echo: 'allow', 'trigger-long-running-operation': 'allow' },
      default_policy: 'deny',
      timeout_seconds: 4,
    },
    // Never answers initialize: it must be reported and restarted, and never hold up the call.
    {
      name: 'hang',
      command: process.execPath,
      args: ['-e', 'setInterval(() => {}, 1000)'],
      timeout_seconds: 1,
      default_policy: 'allow',
    },
  ];
  // The same package as a Streamable HTTP server on loopback: the `url` + `headers` kind of entry.
  const webPort = await freePort();
  webServer = spawn(process.execPath, [binOf('@modelcontextprotocol/server-everything'), 'streamableHttp'], {
    env: { ...process.env, PORT: String(webPort) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let webLog = '';
  webServer.stderr!.on('data', (chunk: Buffer) => (webLog += chunk.toString()));
  await waitFor(() => webLog.includes('listening on port'), 'server-everything over HTTP to listen');
  mcpServers.push({
    name: 'web',
    url: `http://127.0.0.1:${webPort}/mcp`,
    headers: { 'x-client': 'live-voice-bridge-test' },
    tools: { echo: 'allow' },
    default_policy: 'deny',
  });
  sim = await startSimulatedCall({ env: { DISCORD_VOICE_LIVE_MCP_SERVERS: JSON.stringify(mcpServers) } });
  sim.core.hub.subscribe((event) => {
    if (event.type === 'mcp_approval' || event.type === 'mcp_server') events.push(event);
  });
  // Tools are declared when a call starts: wait for the two real servers first (not for `hang`).
  await waitFor(
    async () => (await servers()).filter((s) => s.state === 'ready').length === 3,
    'memory, everything and web to be ready',
    30_000,
  );
  const joined = await api('POST', '/join', {});
  expect(joined.status).toBe(200);
  model = await sim.gemini.connection(0);
}, 60_000);

afterAll(async () => {
  await sim?.close();
  webServer?.kill();
  rmSync(memoryDir, { recursive: true, force: true });
});

describe('MCP tools for the live model', () => {
  it('offers allow and ask tools under the mcp_<server>_ prefix, never deny tools', () => {
    const setup = JSON.stringify(model.setup);
    for (const name of [
      'mcp_memory_read_graph',
      'mcp_memory_create_entities',
      'mcp_memory_search_nodes',
      'mcp_everything_echo',
      'mcp_web_echo',
      'mcp_approval',
    ])
      expect(setup).toContain(`"${name}"`);
    for (const name of ['mcp_memory_delete_entities', 'mcp_everything_get_sum'])
      expect(setup).not.toContain(`"${name}"`);
  });

  it('allow: the tool runs and its result reaches the model, redacted and size-capped', async () => {
    expect(await allowedResult('mcp_everything_echo', { message: 'hello from the call' })).toContain(
      'hello from the call',
    );
    const password = ['hunter', '2', 'secret'].join('-');
    const redacted = await allowedResult('mcp_everything_echo', {
      message: `db at https://bob:${password}@db.example.com/x`,
    });
    expect(redacted).toContain('REDACTED');
    expect(redacted).not.toContain(password);
    const long = await allowedResult('mcp_everything_echo', { message: 'word '.repeat(3000) });
    expect(long.length).toBeLessThan(4200);
    expect(long).toContain('(cut:');
  });

  it('a Streamable HTTP server (url + headers) serves the model like a stdio one', async () => {
    expect((await servers()).find((s) => s.name === 'web')).toMatchObject({ transport: 'http', state: 'ready' });
    expect(await allowedResult('mcp_web_echo', { message: 'over HTTP' })).toContain('over HTTP');
  });

  it('deny: a call is refused and never reaches the server', async () => {
    const answer = await modelCalls('mcp_memory_delete_entities', { entityNames: ['x'] });
    expect(answer.error?.code).toBe('unknown_tool');
    // Sidecar callers cannot reach model-only tools either.
    expect((await api('POST', '/tools/mcp_memory_read_graph', {})).status).toBe(404);
  });

  it('ask, approved by voice: runs only after the owner is heard saying yes', async () => {
    // Words from before the request (the request itself) do not count as the answer.
    ownerSays('Okay, yes, please remember that Alice likes tea.');
    await waitFor(
      () => model.sent.some((m) => JSON.stringify(m).includes('remember that Alice')),
      'the transcript to be sent',
    );
    const asked = await modelCalls('mcp_memory_create_entities', {
      entities: [{ name: 'Alice', entityType: 'person', observations: ['likes tea'] }],
    });
    expect(asked.result?.status).toBe('awaiting_approval');
    const id = asked.result?.approval_id as string;

    // The model cannot approve on the owner's behalf.
    const premature = await modelCalls('mcp_approval', { approval_id: id, approved: true });
    expect(premature.error?.code).toBe('owner_not_heard');
    expect(premature.error?.message).toContain('has not been heard saying yes');
    expect(memory()).not.toContain('Alice');

    ownerSays('Yes, go ahead.');
    const approved = await modelCalls('mcp_approval', { approval_id: id, approved: true });
    expect(approved.result?.status).toBe('approved');
    await waitFor(() => memory().includes('Alice'), 'the entity in the memory file');
    await waitFor(
      () => injected().includes('mcp_memory_create_entities you started has finished'),
      'the result to reach the model',
    );
    expect(
      events.some(
        (e) =>
          e.type === 'mcp_approval' &&
          e.data.id === id &&
          e.data.status === 'approved' &&
          e.data.decided_by === 'voice',
      ),
    ).toBe(true);
  });

  it('ask, refused by voice: the tool never runs', async () => {
    const asked = await modelCalls('mcp_memory_create_entities', {
      entities: [{ name: 'Bob', entityType: 'person', observations: [] }],
    });
    const id = asked.result?.approval_id as string;
    ownerSays('No, do not do that.');
    const refused = await modelCalls('mcp_approval', { approval_id: id, approved: false });
    expect(refused.result?.status).toBe('refused');
    const again = await modelCalls('mcp_approval', { approval_id: id, approved: true });
    expect(again.error).toMatchObject({ code: 'already_decided', message: expect.stringContaining('already refused') });
    const graph = await allowedResult('mcp_memory_read_graph');
    expect(graph).toContain('Alice');
    expect(graph).not.toContain('Bob');
    expect(memory()).not.toContain('Bob');
  });

  it('ask, approved and refused on the dashboard (route + /events)', async () => {
    const asked = await modelCalls('mcp_memory_create_entities', {
      entities: [{ name: 'Carol', entityType: 'person', observations: [] }],
    });
    const id = asked.result?.approval_id as string;
    await waitFor(
      () => events.some((e) => e.type === 'mcp_approval' && e.data.id === id && e.data.status === 'pending'),
      'the pending approval event',
    );
    const pending = (await api('GET', '/mcp/approvals')).json as { approvals: McpApprovalView[] };
    expect(pending.approvals.find((a) => a.id === id)).toMatchObject({
      tool: 'mcp_memory_create_entities',
      server: 'memory',
      status: 'pending',
    });
    expect(pending.approvals.find((a) => a.id === id)!.args).toContain('Carol');

    expect((await api('POST', `/mcp/approvals/${id}`, { approved: 'yes' })).status).toBe(400);
    const decided = await api('POST', `/mcp/approvals/${id}`, { approved: true });
    expect(decided.status).toBe(200);
    expect(decided.json).toMatchObject({ approval: { id, status: 'approved', decided_by: 'dashboard' } });
    await waitFor(() => memory().includes('Carol'), 'Carol in the memory file');
    const twice = await api('POST', `/mcp/approvals/${id}`, { approved: false });
    expect(twice.status).toBe(409);
    expect((await api('POST', '/mcp/approvals/ap-nope', { approved: true })).status).toBe(404);

    const second = await modelCalls('mcp_memory_create_entities', {
      entities: [{ name: 'Dave', entityType: 'person', observations: [] }],
    });
    const secondId = second.result?.approval_id as string;
    expect((await api('POST', `/mcp/approvals/${secondId}`, { approved: false })).status).toBe(200);
    await waitFor(
      () => injected().includes('did not approve mcp_memory_create_entities'),
      'the refusal to reach the model',
    );
    expect(memory()).not.toContain('Dave');
  });

  it('a slow tool answers "running" at once and its result arrives later as a message', async () => {
    const answer = await modelCalls('mcp_everything_trigger_long_running_operation', { duration: 3, steps: 3 });
    expect(answer.result?.status).toBe('running');
    // The call goes on meanwhile.
    expect((await api('GET', '/say?text=' + encodeURIComponent('Still here while it runs.'))).status).toBe(200);
    await waitFor(() => injected().includes('Long running operation completed'), 'the late result', 30_000);
  });

  it('a hanging server is reported and restarted; a hung tool call is cut off and its server restarted; the call never stalls', async () => {
    await waitFor(
      async () => ((await servers()).find((s) => s.name === 'hang')?.restarts ?? 0) >= 1,
      'the hanging server to be restarted',
    );
    const hang = (await servers()).find((s) => s.name === 'hang')!;
    expect(hang.last_error).toContain('no answer to initialize');
    expect(events.some((e) => e.type === 'mcp_server' && e.data.name === 'hang' && e.data.state === 'restarting')).toBe(
      true,
    );

    const before = (await servers()).find((s) => s.name === 'everything')!.restarts;
    const answer = await modelCalls('mcp_everything_trigger_long_running_operation', { duration: 3600, steps: 1 });
    expect(answer.result?.status).toBe('running');
    // While the tool hangs, the owner speaks and the model answers as usual.
    const replies = model.sent.filter((m) => JSON.stringify(m).includes('outputTranscription')).length;
    await sim.ownerSpeaks(1.0);
    await waitFor(
      () => model.sent.filter((m) => JSON.stringify(m).includes('outputTranscription')).length > replies,
      'the model to reply while the tool hangs',
    );
    await waitFor(
      () => injected().includes('did not answer trigger-long-running-operation'),
      'the timeout to reach the model',
      30_000,
    );
    await waitFor(
      async () => {
        const everything = (await servers()).find((s) => s.name === 'everything')!;
        return everything.restarts > before && everything.state === 'ready';
      },
      'the hung server to come back',
      30_000,
    );
    expect(await allowedResult('mcp_everything_echo', { message: 'back again' })).toContain('back again');
  });
});
