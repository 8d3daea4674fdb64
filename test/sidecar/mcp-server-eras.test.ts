// Both protocol eras at both doors: the official v1 SDK client (2025-era: initialize, sessions,
// resources/subscribe) and the official v2 SDK client pinned to 2026-07-28 (server/discover, a
// `_meta` envelope on every request, subscriptions/listen), each over Streamable HTTP (/mcp) and
// over stdio (`live-voice-bridge mcp`), during a simulated call on the fakes. Every tool is called,
// the notes resource read and followed, bad input gets the API's codes.
import path from 'node:path';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedCall, type SimulatedCall } from '../../main/demo/simulated-call.ts';
import { NOTES_RESOURCE_URI } from '../../main/core/mcp/server/session-server.ts';
import { rawRequest } from '../helpers/http.ts';
import { waitFor } from '../integration/bridge/signals.ts';

const MODERN = '2026-07-28';

interface ToolResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
}

/** What the tests need of a connected client, whichever SDK and era. */
interface AgentClient {
  era: 'legacy' | 'modern';
  listTools(): Promise<string[]>;
  call(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  listResources(): Promise<string[]>;
  readNotes(): Promise<{ call_id: string | null; notes: { text: string }[] }>;
  /** Follows the notes resource; returns a counter of update notifications. */
  follow(): Promise<() => number>;
  close(): Promise<void>;
}

let sim: SimulatedCall;
let port: number;

function stdioParams() {
  return {
    command: process.execPath,
    args: [path.resolve('main/cli.ts'), 'mcp'],
    env: {
      PATH: process.env.PATH ?? '',
      HERMES_HOME: sim.config.paths.agentHome,
      DISCORD_VOICE_LIVE_PORT: String(port),
    },
    stderr: 'pipe' as const,
  };
}

async function v1Client(door: 'http' | 'stdio'): Promise<AgentClient> {
  const client = new ClientV1({ name: 'lvb-era-test-v1', version: '1.0.0' });
  const transport =
    door === 'http'
      ? new HttpV1(new URL(`${sim.core.sidecarUrl}/mcp`), { requestInit: { headers: sim.auth } })
      : new StdioV1(stdioParams());
  await client.connect(transport);
  let updates = 0;
  return {
    era: 'legacy',
    listTools: async () => (await client.listTools()).tools.map((t) => t.name),
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as ToolResult,
    listResources: async () => (await client.listResources()).resources.map((r) => r.uri),
    readNotes: async () =>
      JSON.parse(((await client.readResource({ uri: NOTES_RESOURCE_URI })).contents[0] as { text: string }).text),
    follow: async () => {
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
        if (n.params.uri === NOTES_RESOURCE_URI) updates++;
      });
      await client.subscribeResource({ uri: NOTES_RESOURCE_URI });
      return () => updates;
    },
    close: () => client.close(),
  };
}

async function v2Client(door: 'http' | 'stdio'): Promise<AgentClient> {
  const client = new ClientV2(
    { name: 'lvb-era-test-v2', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  const transport =
    door === 'http'
      ? new HttpV2(new URL(`${sim.core.sidecarUrl}/mcp`), { requestInit: { headers: sim.auth } })
      : new StdioV2(stdioParams());
  await client.connect(transport);
  let updates = 0;
  return {
    era: 'modern',
    listTools: async () => (await client.listTools()).tools.map((t) => t.name),
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as ToolResult,
    listResources: async () => (await client.listResources()).resources.map((r) => r.uri),
    readNotes: async () =>
      JSON.parse(((await client.readResource({ uri: NOTES_RESOURCE_URI })).contents[0] as { text: string }).text),
    follow: async () => {
      client.setNotificationHandler('notifications/resources/updated', (n) => {
        if (n.params.uri === NOTES_RESOURCE_URI) updates++;
      });
      await client.listen({ resourceSubscriptions: [NOTES_RESOURCE_URI] });
      return () => updates;
    },
    close: () => client.close(),
  };
}

beforeAll(async () => {
  // A delegate command that finishes at once: the `delegate` tool's long job, announced when done.
  sim = await startSimulatedCall({
    env: { DISCORD_VOICE_LIVE_DELEGATE_COMMAND: `${process.execPath},-e,console.log("delegate ran")` },
  });
  port = Number(new URL(sim.core.sidecarUrl).port);
}, 60_000);

afterAll(async () => {
  await sim?.close();
});

const CASES = [
  { sdk: 'v1', door: 'http', open: () => v1Client('http') },
  { sdk: 'v1', door: 'stdio', open: () => v1Client('stdio') },
  { sdk: 'v2', door: 'http', open: () => v2Client('http') },
  { sdk: 'v2', door: 'stdio', open: () => v2Client('stdio') },
] as const;

describe.each(CASES)('the $sdk SDK client over $door', ({ sdk, door, open }) => {
  it('calls every tool, reads and follows the notes resource, and gets the API codes for bad input', async () => {
    const client = await open();
    try {
      expect(client.era).toBe(sdk === 'v1' ? 'legacy' : 'modern');
      const tools = await client.listTools();
      for (const name of [
        'say',
        'message_model',
        'ask_owner',
        'notify',
        'schedule',
        'push_frame',
        'read_notes',
        'call_status',
        'join',
        'leave',
        'sora_redact',
      ])
        expect(tools).toContain(name);

      expect((await client.call('leave')).isError).toBeFalsy();
      const noCall = await client.call('say', { text: 'too early' });
      expect(noCall).toMatchObject({ isError: true, structuredContent: { error: { code: 'no_call' }, status: 409 } });

      const joined = await client.call('join');
      expect(joined.structuredContent).toMatchObject({ state: 'connected' });
      expect((await client.call('call_status')).structuredContent).toMatchObject({ bridge: { state: 'connected' } });

      expect(await client.listResources()).toContain(NOTES_RESOURCE_URI);
      const updates = await client.follow();
      const marker = `Hello from ${sdk} over ${door}.`;
      expect((await client.call('say', { text: marker })).structuredContent).toEqual({
        status: 'queued',
        chars: marker.length,
        as: 'announce',
        id: expect.stringMatching(/^say_/),
      });
      // The other verb: a message the model answers (POST /ask), sent as it is.
      const question = `What is ${sdk} over ${door}?`;
      expect((await client.call('message_model', { text: question })).structuredContent).toEqual({
        status: 'queued',
        chars: question.length,
        as: 'message',
        id: expect.stringMatching(/^say_/),
      });
      await waitFor(() => updates() > 0, `a notes update for the ${sdk} client over ${door}`);
      const notes = await client.readNotes();
      expect(notes.call_id).toBeTruthy();
      expect(notes.notes.some((n) => n.text === marker)).toBe(true);
      expect(JSON.stringify((await client.call('read_notes', { limit: 50 })).structuredContent)).toContain(marker);

      const delivered = await client.call('notify', { text: `notify from ${sdk}`, mode: 'voice' });
      expect(delivered.isError).toBeFalsy();
      const created = (await client.call('schedule', { action: 'create', text: 'stand-up', delay_seconds: 3600 }))
        .structuredContent!;
      expect(JSON.stringify((await client.call('schedule', { action: 'list' })).structuredContent)).toContain(
        String(created.scheduled),
      );
      expect(
        (await client.call('schedule', { action: 'cancel', id: created.scheduled })).structuredContent,
      ).toMatchObject({ cancelled: created.scheduled });
      const png = await sharp({ create: { width: 32, height: 24, channels: 3, background: '#336699' } })
        .png()
        .toBuffer();
      expect((await client.call('push_frame', { base64: png.toString('base64') })).structuredContent).toMatchObject({
        input_type: 'png',
      });
      const password = ['s3cr3t', 'pass', sdk, door].join('-');
      const redacted = JSON.stringify(
        (await client.call('sora_redact', { text: `db at https://bob:${password}@db.example.com/x` }))
          .structuredContent,
      );
      expect(redacted).not.toContain(password);
      expect(redacted).toContain('REDACTED');

      expect(await client.call('notify', { text: 'x', mode: 'shout' })).toMatchObject({
        isError: true,
        structuredContent: { error: { code: 'unknown_mode' }, status: 400 },
      });
      expect(await client.call('say', { text: '  ' })).toMatchObject({
        isError: true,
        structuredContent: { error: { code: 'empty_text' }, status: 400 },
      });
      expect(await client.call('schedule', { text: 'x' })).toMatchObject({
        isError: true,
        structuredContent: { error: { code: 'invalid_args' } },
      });
      expect(await client.call('push_frame', { path: '/nonexistent/frame.png' })).toMatchObject({
        isError: true,
        structuredContent: { error: { code: 'file_not_found' }, status: 404 },
      });
      expect(await client.call('no_such_tool')).toMatchObject({
        isError: true,
        structuredContent: { error: { code: 'unknown_tool' }, status: 404 },
      });

      expect((await client.call('leave')).isError).toBeFalsy();
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe('with no call up', () => {
  it("an agent's ask_owner waits on the dashboard and gets the answer given there", async () => {
    await rawRequest({ port, method: 'GET', path: '/leave', headers: sim.auth });
    const client = await v2Client('http');
    try {
      const answer = client.call('ask_owner', { question: 'Merge the pull request?', from: 'the review agent' });
      let id = '';
      await waitFor(async () => {
        const listed = (await rawRequest({ port, method: 'GET', path: '/mcp/approvals', headers: sim.auth })).json as {
          approvals: { id: string; args: string }[];
        };
        id = listed.approvals.find((a) => a.args === 'Merge the pull request?')?.id ?? '';
        return id !== '';
      }, 'the question on the dashboard list');
      const decided = await rawRequest({
        port,
        method: 'POST',
        path: `/mcp/approvals/${id}`,
        headers: { ...sim.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ approved: true }),
      });
      expect(decided.status).toBe(200);
      expect((await answer).structuredContent).toEqual({ answer: 'yes', by: 'dashboard', asked_aloud: false });
      expect(await client.call('ask_owner', { question: '' })).toMatchObject({
        isError: true,
        structuredContent: { error: { code: 'invalid_request' }, status: 400 },
      });
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a long job an agent starts (delegate) answers at once and is announced to the owner when done', async () => {
    const client = await v1Client('http');
    try {
      const started = (await client.call('delegate', { prompt: 'run the release checks', label: 'release checks' }))
        .structuredContent!;
      expect(started.started).toBeTruthy();
      await waitFor(async () => {
        const session = (
          (await client.call('delegate', { status_id: started.started })).structuredContent as {
            session: { state: string; notified?: string };
          }
        ).session;
        return session.state === 'succeeded' && session.notified !== undefined;
      }, 'the delegate to finish and its end to be announced');
    } finally {
      await client.close();
    }
  }, 60_000);
});

/** A 2026-07-28 request as a client sends it: the `_meta` envelope, and the headers derived from it. */
const DISCOVER = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'server/discover',
  params: {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
});
const MODERN_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': MODERN,
  'mcp-method': 'server/discover',
};

describe('the 2026-07-28 door behind the sidecar checks', () => {
  it('answers server/discover with the token, and refuses no token (401), a foreign Origin or Host (403)', async () => {
    const ok = await rawRequest({
      port,
      method: 'POST',
      path: '/mcp',
      headers: { ...MODERN_HEADERS, ...sim.auth },
      body: DISCOVER,
    });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain(MODERN);

    const noToken = await rawRequest({ port, method: 'POST', path: '/mcp', headers: MODERN_HEADERS, body: DISCOVER });
    expect(noToken.status).toBe(401);
    expect((noToken.json as { error: { code: string } }).error.code).toBe('unauthorized');
    const crossOrigin = await rawRequest({
      port,
      method: 'POST',
      path: '/mcp',
      headers: { ...MODERN_HEADERS, ...sim.auth, origin: 'https://evil.example' },
      body: DISCOVER,
    });
    expect(crossOrigin.status).toBe(403);
    expect((crossOrigin.json as { error: { code: string } }).error.code).toBe('cross_origin');
    const badHost = await rawRequest({
      port,
      method: 'POST',
      path: '/mcp',
      headers: { ...MODERN_HEADERS, ...sim.auth, host: `attacker.example:${port}` },
      body: DISCOVER,
    });
    expect(badHost.status).toBe(403);
  });

  it('refuses a v2 client with the wrong token', async () => {
    const client = new ClientV2(
      { name: 'lvb-era-test', version: '1' },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    const transport = new HttpV2(new URL(`${sim.core.sidecarUrl}/mcp`), {
      requestInit: { headers: { authorization: 'Bearer not-the-token' } },
    });
    await expect(client.connect(transport)).rejects.toThrow(/401|unauthorized|invalid bearer token/i);
  });
});
