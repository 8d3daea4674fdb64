// The MCP server for agents, driven by the official SDK client over Streamable HTTP (/mcp) and over
// stdio (`live-voice-bridge mcp` as a child process) during a simulated call on the fakes.
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEMO_MODEL_REPLY, startSimulatedCall, type SimulatedCall } from '../../main/demo/simulated-call.ts';
import { MAX_MCP_SESSIONS } from '../../main/core/mcp/server/http-endpoint.ts';
import { NOTES_RESOURCE_URI } from '../../main/core/mcp/server/session-server.ts';
import { rawRequest } from '../helpers/http.ts';
import { waitFor } from '../integration/bridge/signals.ts';

let sim: SimulatedCall;
let port: number;
let client: Client;

function connectHttp(headers: Record<string, string>): { client: Client; transport: StreamableHTTPClientTransport } {
  const transport = new StreamableHTTPClientTransport(new URL(`${sim.core.sidecarUrl}/mcp`), {
    requestInit: { headers },
  });
  return { client: new Client({ name: 'lvb-test', version: '1.0.0' }), transport };
}

async function call(c: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await c.callTool({ name, arguments: args })) as CallToolResult;
}

function structured(result: CallToolResult): Record<string, unknown> {
  return result.structuredContent as Record<string, unknown>;
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

beforeAll(async () => {
  sim = await startSimulatedCall();
  port = Number(new URL(sim.core.sidecarUrl).port);
  const { client: c, transport } = connectHttp(sim.auth);
  await c.connect(transport);
  client = c;
});

afterAll(async () => {
  await client?.close();
  await sim?.close();
});

describe('MCP over Streamable HTTP at /mcp', () => {
  it('lists the call tools and the helper tools, each with an object JSON schema', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of [
      'say',
      'notify',
      'schedule',
      'push_frame',
      'read_notes',
      'search_notes',
      'call_status',
      'join',
      'leave',
      'sora_redact',
      'sora_handoff',
    ])
      expect(names).toContain(name);
    for (const tool of tools) expect(tool.inputSchema.type).toBe('object');
    const notify = tools.find((t) => t.name === 'notify')!;
    expect((notify.inputSchema.properties as Record<string, { enum?: string[] }>).mode!.enum).toEqual([
      'voice',
      'dm',
      'channel',
      'webhook',
      'auto',
      'all',
    ]);
  });

  it('joins, says, reads the call transcripts, and reports tool errors with the API codes', async () => {
    const noCall = await call(client, 'say', { text: 'too early' });
    expect(noCall.isError).toBe(true);
    expect(structured(noCall)).toMatchObject({ error: { code: 'no_call' }, status: 409 });

    const joined = await call(client, 'join');
    expect(joined.isError).toBeFalsy();
    expect(structured(joined)).toMatchObject({ state: 'connected' });
    const status = structured(await call(client, 'call_status'));
    expect(status).toMatchObject({ bridge: { state: 'connected' } });

    const model = await sim.gemini.connection(0);
    const said = await call(client, 'say', { text: 'Your build finished.' });
    expect(structured(said)).toEqual({
      status: 'queued',
      chars: 20,
      as: 'announce',
      id: expect.stringMatching(/^say_/),
    });
    await waitFor(
      () =>
        JSON.stringify(model.clientContents).includes('Your build finished.') ||
        model.texts.some((t) => t.includes('Your build finished.')),
      'the said text at the model',
    );

    await sim.ownerSpeaks(1.2);
    await waitFor(
      async () =>
        JSON.stringify(structured(await call(client, 'read_notes', { limit: 100 }))).includes(
          DEMO_MODEL_REPLY.slice(0, 20),
        ),
      'the reply transcript in read_notes',
    );
    const notes = structured(await call(client, 'read_notes', { limit: 100 })).notes as {
      kind: string;
      text: string;
      callId?: string;
    }[];
    const callId = (status.bridge as { call_id: string }).call_id;
    expect(notes.some((n) => n.kind === 'input_transcript' && n.callId === callId)).toBe(true);
    expect(notes.some((n) => n.kind === 'output_transcript' && n.text.includes('I can hear you clearly'))).toBe(true);

    const badMode = await call(client, 'notify', { text: 'hello', mode: 'shout' });
    expect(badMode.isError).toBe(true);
    expect(structured(badMode)).toMatchObject({ error: { code: 'unknown_mode' }, status: 400 });
    const empty = await call(client, 'say', { text: '  ' });
    expect(structured(empty)).toMatchObject({ error: { code: 'empty_text' }, status: 400 });
    const notText = await call(client, 'say', { text: 5 });
    expect(structured(notText)).toMatchObject({ error: { code: 'invalid_request' }, status: 400 });
    const noAction = await call(client, 'schedule', { text: 'x' });
    expect(structured(noAction)).toMatchObject({ error: { code: 'invalid_args' } });
    const unknownId = await call(client, 'schedule', { action: 'cancel', id: 'nope' });
    expect(structured(unknownId)).toMatchObject({ error: { code: 'unknown_schedule_id' }, status: 404 });
    const missingFile = await call(client, 'push_frame', { path: '/nonexistent/frame.png' });
    expect(structured(missingFile)).toMatchObject({ error: { code: 'file_not_found' }, status: 404 });
  });

  it('schedules, lists and cancels; pushes a frame; runs a helper tool', async () => {
    const created = structured(
      await call(client, 'schedule', { action: 'create', text: 'stand-up', delay_seconds: 3600 }),
    );
    const id = created.scheduled as string;
    expect(id).toBeTruthy();
    const listed = structured(await call(client, 'schedule', { action: 'list' }));
    expect(JSON.stringify(listed.entries)).toContain(id);
    const cancelled = structured(await call(client, 'schedule', { action: 'cancel', id }));
    expect(cancelled.cancelled).toBe(id);

    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    const frame = await call(client, 'push_frame', { base64: png.toString('base64') });
    expect(frame.isError).toBeFalsy();
    expect(structured(frame)).toMatchObject({ input_type: 'png' });
    const model = await sim.gemini.connection(0);
    await waitFor(() => model.frames.length > 0, 'the frame at the model');

    const password = ['s3cr3t', 'pass', 'word'].join('-');
    const redacted = structured(
      await call(client, 'sora_redact', { text: `db at https://bob:${password}@db.example.com/x` }),
    );
    expect(JSON.stringify(redacted)).not.toContain(password);
    expect(JSON.stringify(redacted)).toContain('REDACTED');
  });

  it('offers the current call notes as a resource and notifies subscribers of new notes', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain(NOTES_RESOURCE_URI);
    let updates = 0;
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      if (n.params.uri === NOTES_RESOURCE_URI) updates++;
    });
    await client.subscribeResource({ uri: NOTES_RESOURCE_URI });
    await call(client, 'say', { text: 'A note for subscribers.' });
    await waitFor(() => updates > 0, 'a resources/updated notification');
    const read = await client.readResource({ uri: NOTES_RESOURCE_URI });
    const content = JSON.parse((read.contents[0] as { text: string }).text) as {
      call_id: string;
      notes: { text: string }[];
    };
    expect(content.call_id).toBeTruthy();
    expect(content.notes.some((n) => n.text === 'A note for subscribers.')).toBe(true);
  });

  it('refuses a request without the token (401) and cross-site requests (403)', async () => {
    const noToken = await rawRequest({ port, method: 'POST', path: '/mcp', headers: MCP_HEADERS, body: INITIALIZE });
    expect(noToken.status).toBe(401);
    expect(noToken.headers['www-authenticate']).toBe('Bearer');
    const wrongToken = connectHttp({ authorization: 'Bearer not-the-token' });
    await expect(wrongToken.client.connect(wrongToken.transport)).rejects.toMatchObject({ code: 401 });

    const crossOrigin = await rawRequest({
      port,
      method: 'POST',
      path: '/mcp',
      headers: { ...MCP_HEADERS, ...sim.auth, origin: 'https://evil.example' },
      body: INITIALIZE,
    });
    expect(crossOrigin.status).toBe(403);
    expect((crossOrigin.json as { error: { code: string } }).error.code).toBe('cross_origin');
    const crossSite = await rawRequest({
      port,
      method: 'POST',
      path: '/mcp',
      headers: { ...MCP_HEADERS, ...sim.auth, 'sec-fetch-site': 'cross-site' },
      body: INITIALIZE,
    });
    expect(crossSite.status).toBe(403);
    const badHost = await rawRequest({
      port,
      method: 'POST',
      path: '/mcp',
      headers: { ...MCP_HEADERS, ...sim.auth, host: `attacker.example:${port}` },
      body: INITIALIZE,
    });
    expect(badHost.status).toBe(403);
    const unknownSession = await rawRequest({
      port,
      method: 'POST',
      path: '/mcp',
      headers: { ...MCP_HEADERS, ...sim.auth, 'mcp-session-id': 'no-such-session' },
      body: INITIALIZE,
    });
    expect(unknownSession.status).toBe(404);
  });
});

/** `live-voice-bridge mcp` as a stdio MCP client launches it: only the environment the CLI reads. */
function stdioRelay(extraEnv: Record<string, string> = {}): {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
} {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.resolve('main/cli.ts'), 'mcp'],
    env: {
      PATH: process.env.PATH ?? '',
      HERMES_HOME: sim.config.paths.agentHome,
      DISCORD_VOICE_LIVE_PORT: String(port),
      ...extraEnv,
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { client: new Client({ name: 'lvb-stdio-test', version: '1.0.0' }), transport, stderr: () => stderr };
}

describe('MCP over stdio (live-voice-bridge mcp)', () => {
  it('relays to the running sidecar with the port and the token file, like the CLI', async () => {
    // The agent home (and so the token file) and the port, nothing else.
    const { client: stdioClient, transport } = stdioRelay();
    await stdioClient.connect(transport);
    try {
      const { tools } = await stdioClient.listTools();
      expect(tools.map((t) => t.name)).toContain('say');
      const said = await call(stdioClient, 'say', { text: 'Hello over stdio.' });
      expect(structured(said)).toEqual({
        status: 'queued',
        chars: 17,
        as: 'announce',
        id: expect.stringMatching(/^say_/),
      });
      const bad = await call(stdioClient, 'notify', { text: 'x', mode: 'loud' });
      expect(structured(bad)).toMatchObject({ error: { code: 'unknown_mode' } });
      const notes = structured(await call(stdioClient, 'read_notes'));
      expect(JSON.stringify(notes)).toContain('Hello over stdio.');
    } finally {
      await stdioClient.close();
    }
  });

  it('opens a new sidecar session by itself when the old one is gone', async () => {
    const { client: stdioClient, transport, stderr } = stdioRelay();
    await stdioClient.connect(transport);
    try {
      expect(structured(await call(stdioClient, 'call_status'))).toHaveProperty('bridge');
      // Enough new sessions to evict every older one, the relay's among them. Twice the limit: the
      // relay opens its event stream (a GET that counts as use) on its own after connecting, and
      // under load that GET can land while the first batch is opening, making one of the new
      // sessions the least recently used instead (the relay's then survives: no note, a CI flake).
      for (let i = 0; i < 2 * MAX_MCP_SESSIONS; i++) {
        const opened = await rawRequest({
          port,
          method: 'POST',
          path: '/mcp',
          headers: { ...MCP_HEADERS, ...sim.auth },
          body: INITIALIZE,
        });
        expect(opened.status).toBe(200);
      }
      const after = await call(stdioClient, 'call_status');
      expect(after.isError).toBeFalsy();
      expect(structured(after)).toHaveProperty('bridge');
      // The relay's stderr and its answer on stdout are separate pipes: under load the answer can
      // arrive first, so the note is awaited rather than expected already read.
      await vi.waitFor(() => expect(stderr()).toContain('the sidecar lost this MCP session'));
    } finally {
      await stdioClient.close();
    }
  });

  it('answers requests with an error naming the problem when the token is wrong', async () => {
    const { client: stdioClient, transport } = stdioRelay({
      DISCORD_VOICE_LIVE_SIDECAR_TOKEN: 'wrong-token-but-long-enough',
    });
    await expect(stdioClient.connect(transport)).rejects.toThrow(/refused the token \(401\)/);
    await stdioClient.close();
  });
});
