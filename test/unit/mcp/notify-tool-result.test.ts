// The MCP `notify` tool: POST /notify answers 200 whatever reached the owner, so the tool result is
// an error (isError) unless the status is `ok`, and an `unknown` outcome says it may have been
// delivered and must not be sent again. Driven through the SDK client over an in-memory transport.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { NotifyResult } from '../../../main/core/api-types.ts';
import { agentTools, type SidecarRequest } from '../../../main/core/mcp/server/agent-tools.ts';
import { createSessionServer } from '../../../main/core/mcp/server/session-server.ts';

let answer: { status: number; body: unknown } = { status: 200, body: null };
const requests: SidecarRequest[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  requests.length = 0;
});

async function connect(): Promise<Client> {
  const { server } = createSessionServer({
    name: 'lvb-test',
    version: '0.0.0',
    tools: () => agentTools([]),
    invoke: async (request) => {
      requests.push(request);
      return answer;
    },
    currentNotes: () => ({ call_id: null, notes: [] }),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test', version: '1' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  closers.push(() => client.close());
  return client;
}

const result = (status: NotifyResult['status'], results: NotifyResult['results']): NotifyResult => ({
  id: 'n-1',
  status,
  results,
  notified_at: 1,
});
const texts = (r: CallToolResult): string[] =>
  r.content.filter((c) => c.type === 'text').map((c) => (c as { text: string }).text);

describe('MCP notify tool result', () => {
  it('ok is a plain success', async () => {
    const client = await connect();
    answer = { status: 200, body: { ...result('ok', { dm: { status: 'ok', message_id: '1' } }), channel: 'dm' } };
    const r = (await client.callTool({ name: 'notify', arguments: { text: 'hi' } })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ status: 'ok', channel: 'dm' });
    expect(texts(r)).toHaveLength(1);
    expect(requests[0]).toMatchObject({ method: 'POST', url: '/notify' });
  });

  it('unknown is an error that says it may have been delivered: do not resend', async () => {
    const client = await connect();
    answer = { status: 200, body: result('unknown', { dm: { status: 'unknown', detail: 'timeout after 15000 ms' } }) };
    const r = (await client.callTool({ name: 'notify', arguments: { text: 'hi' } })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toMatchObject({ status: 'unknown' });
    expect(JSON.parse(texts(r)[0]!)).toMatchObject({ status: 'unknown' });
    expect(texts(r)[1]).toMatch(/may have been delivered.*was not re-sent\. Do not send it again/);
  });

  it('error and partial are errors too, each saying what happened', async () => {
    const client = await connect();
    answer = { status: 200, body: result('error', { dm: { status: 'error', detail: 'Missing Access' } }) };
    const failed = (await client.callTool({ name: 'notify', arguments: { text: 'hi' } })) as CallToolResult;
    expect(failed.isError).toBe(true);
    expect(texts(failed)[1]).toMatch(/^Not delivered/);
    answer = {
      status: 200,
      body: { ...result('partial', { dm: { status: 'ok' }, webhook: { status: 'error' } }), channels: ['dm'] },
    };
    const partial = (await client.callTool({
      name: 'notify',
      arguments: { text: 'hi', mode: 'all' },
    })) as CallToolResult;
    expect(partial.isError).toBe(true);
    expect(texts(partial)[1]).toMatch(/^Partly delivered.*Do not send it again/);
  });

  it('other tools are unchanged: a 200 body with a status field is not judged', async () => {
    const client = await connect();
    answer = { status: 200, body: { status: 'queued', chars: 2 } };
    const r = (await client.callTool({ name: 'say', arguments: { text: 'hi' } })) as CallToolResult;
    expect(r.isError).toBeFalsy();
  });
});
