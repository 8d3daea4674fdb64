// The model-side MCP client against servers of both eras: a v2-SDK server (2026-07-28 is spoken),
// a v1-SDK server and the registry's server-everything (the 2025 handshake is spoken). A server's
// yes/no question arrives through `input_required` (new) or `elicitation/create` (old) and gets the
// answer the owner gave. And no server child outlives stop(), even one hung in its handshake.
import { execFileSync } from 'node:child_process';
import { createServer, type Server as HttpServer } from 'node:http';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { toWebRequest, writeWebResponse } from '../../../main/core/mcp/server/node-web.ts';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  McpServerConnection,
  type ServerQuestion,
  type ServerQuestionAnswer,
} from '../../../main/core/mcp/client/server-connection.ts';
import { silentLogger } from '../../../main/core/log/logger.ts';
import { McpServersSchema } from '../../../main/core/config/mcp-servers.ts';
import { waitFor } from '../bridge/signals.ts';

const require = createRequire(import.meta.url);
function binOf(pkg: string): string {
  const manifest = require.resolve(`${pkg}/package.json`);
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  return path.join(path.dirname(manifest), Object.values(bin)[0]!);
}

const open: McpServerConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.stop()));
});

function connect(
  entry: Record<string, unknown>,
  onElicit?: (q: ServerQuestion) => Promise<ServerQuestionAnswer>,
): McpServerConnection {
  const [config] = McpServersSchema.parse([{ default_policy: 'allow', timeout_seconds: 20, ...entry }]);
  const connection = new McpServerConnection({
    config: config!,
    logger: silentLogger(),
    clientVersion: 'test',
    ...(onElicit ? { onElicit } : {}),
  });
  open.push(connection);
  connection.start();
  return connection;
}

const text = (result: { content?: unknown }) =>
  (result.content as { text?: string }[]).map((c) => c.text ?? '').join('');

describe.each([
  {
    era: '2026-07-28',
    server: 'a v2-SDK server',
    args: [path.resolve('test/fixtures/mcp/ask-server-v2.ts')],
    version: /^2026-07-28$/,
  },
  {
    era: '2025',
    server: 'a v1-SDK server',
    args: [path.resolve('test/fixtures/mcp/ask-server-v1.ts')],
    version: /^2025-/,
  },
])('the model-side client and $server', ({ args, version }) => {
  it("speaks the revision the server offers, calls its tools, and answers its yes/no question with the owner's answer", async () => {
    const questions: ServerQuestion[] = [];
    let reply: ServerQuestionAnswer = { action: 'accept', content: { confirm: true } };
    const connection = connect({ name: 'asker', command: process.execPath, args }, async (q) => {
      questions.push(q);
      return reply;
    });
    await waitFor(() => connection.state === 'ready', 'the server to be ready', 30_000);
    expect(connection.report().protocol_version).toMatch(version);
    expect(connection.tools.map((t) => t.name).sort()).toEqual(['deploy', 'echo']);
    expect(text(await connection.callTool('echo', { message: 'hi' }))).toBe('echo: hi');

    expect(text(await connection.callTool('deploy', { env: 'prod' }))).toBe('deployed to prod');
    expect(questions).toEqual([{ server: 'asker', message: 'Deploy to prod?', yesNoField: 'confirm' }]);
    reply = { action: 'accept', content: { confirm: false } };
    expect(text(await connection.callTool('deploy', { env: 'staging' }))).toContain('not deployed to staging');
    expect(questions).toHaveLength(2);
  }, 60_000);
});

describe("the model-side client and the registry's server-everything (v1 SDK)", () => {
  it('falls back to the 2025 handshake and calls a tool', async () => {
    const connection = connect({
      name: 'everything',
      command: process.execPath,
      args: [binOf('@modelcontextprotocol/server-everything'), 'stdio'],
    });
    await waitFor(() => connection.state === 'ready', 'server-everything to be ready', 30_000);
    expect(connection.report().protocol_version).toMatch(/^2025-/);
    expect(text(await connection.callTool('echo', { message: 'old era' }))).toContain('old era');
  }, 60_000);
});

describe('the model-side client and a v2-SDK server over Streamable HTTP', () => {
  let http: HttpServer | undefined;
  afterEach(() => new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve())));

  it('speaks 2026-07-28 to it over HTTP, with the configured headers', async () => {
    const seenAuth: string[] = [];
    const handler = createMcpHandler(() => {
      const server = new McpServer({ name: 'web-v2', version: '1.0.0' });
      server.registerTool(
        'echo',
        { description: 'Echoes', inputSchema: z.object({ message: z.string() }) },
        async ({ message }) => ({ content: [{ type: 'text', text: `echo: ${message}` }] }),
      );
      return server;
    });
    http = createServer((req, res) => {
      seenAuth.push(String(req.headers['x-api-key']));
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown) : undefined;
        void handler
          .fetch(toWebRequest(req, res, body), { parsedBody: body })
          .then((response) => writeWebResponse(response, res));
      });
    });
    await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
    const port = (http.address() as { port: number }).port;
    const connection = connect({
      name: 'webv2',
      url: `http://127.0.0.1:${port}/mcp`,
      headers: { 'x-api-key': 'key-for-the-v2-server' },
    });
    await waitFor(() => connection.state === 'ready', 'the HTTP server to be ready', 30_000);
    expect(connection.report()).toMatchObject({ transport: 'http', protocol_version: '2026-07-28' });
    expect(text(await connection.callTool('echo', { message: 'over http' }))).toBe('echo: over http');
    expect(new Set(seenAuth)).toEqual(new Set(['key-for-the-v2-server']));
    await connection.stop();
    await handler.close();
  }, 60_000);
});

/** Our own children whose command line carries the marker. */
function childrenWith(marker: string): number[] {
  let out: string;
  try {
    out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when there is no child at all
  }
  return out
    .split('\n')
    .filter((line) => line.includes(marker))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

describe('MCP server children end with stop()', () => {
  it('a server hung in its handshake (never answers initialize) does not outlive stop()', async () => {
    const marker = `lvb-hung-mcp-${process.pid}-${Date.now()}`;
    // Ignores stdin closing and SIGTERM: only SIGKILL ends it, as with the child found 1 h 40 min later.
    const hung = connect({
      name: 'hung',
      command: process.execPath,
      args: ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)", marker],
      timeout_seconds: 600,
    });
    await waitFor(() => childrenWith(marker).length > 0, 'the hung server to be running', 20_000);
    expect(hung.state).toBe('starting');
    await hung.stop();
    await waitFor(() => childrenWith(marker).length === 0, 'no hung child left after stop()', 20_000);
  }, 60_000);

  it("a ready server's child ends with stop() too", async () => {
    const marker = `lvb-ready-mcp-${process.pid}-${Date.now()}`;
    const ready = connect({
      name: 'ready',
      command: process.execPath,
      args: [path.resolve('test/fixtures/mcp/ask-server-v1.ts'), marker],
    });
    await waitFor(() => ready.state === 'ready', 'the server to be ready', 30_000);
    expect(childrenWith(marker).length).toBeGreaterThan(0);
    await ready.stop();
    expect(childrenWith(marker)).toEqual([]);
  }, 60_000);
});
