// The tray's HTTP client against a loopback server: bearer header, JSON errors surfaced with their
// code and message, and /events followed across a dropped connection.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SidecarClient, SidecarRequestError } from '../../../main/app/sidecar-client.ts';
import type { SidecarEvent } from '../../../main/core/api-types.ts';

const TOKEN = 'client-test-' + 'z'.repeat(24);
const seen: { method: string; url: string; auth?: string; type?: string; bytes: number }[] = [];
let eventConnections = 0;
let base = '';
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    seen.push({
      method: req.method!,
      url: req.url!,
      auth: req.headers.authorization,
      type: req.headers['content-type'],
      bytes: Buffer.concat(chunks).length,
    });
    if (req.url === '/join') {
      res.writeHead(409, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ error: { code: 'already_active', message: 'a call is already live' } }));
    }
    if (req.url === '/events') {
      eventConnections++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': connected\n\n');
      res.write(
        `event: state\ndata: ${JSON.stringify({ state: eventConnections === 1 ? 'connecting' : 'connected', previous: 'idle', ts: 1 })}\n\n`,
      );
      // The first stream drops at once; the client must come back.
      if (eventConnections === 1) return res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: 'sent' }));
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('SidecarClient', () => {
  it('sends the bearer token and the image bytes with their type', async () => {
    const client = new SidecarClient({ baseUrl: base + '/', token: TOKEN });
    await expect(client.pushFrame(new Uint8Array([1, 2, 3, 4]), 'image/png')).resolves.toEqual({ status: 'sent' });
    await client.leave();
    expect(seen.slice(-2)).toEqual([
      { method: 'POST', url: '/frame', auth: `Bearer ${TOKEN}`, type: 'image/png', bytes: 4 },
      { method: 'GET', url: '/leave?by=tray', auth: `Bearer ${TOKEN}`, type: undefined, bytes: 0 },
    ]);
  });

  it('the tray\'s "Stop talking" posts /interrupt with the bearer token', async () => {
    await new SidecarClient({ baseUrl: base, token: TOKEN }).interrupt();
    expect(seen.at(-1)).toEqual({
      method: 'POST',
      url: '/interrupt',
      auth: `Bearer ${TOKEN}`,
      type: 'application/json',
      bytes: 2,
    });
  });

  it('turns a JSON error into SidecarRequestError with code and message', async () => {
    const err = await new SidecarClient({ baseUrl: base, token: TOKEN }).join().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SidecarRequestError);
    expect(err).toMatchObject({ status: 409, code: 'already_active', message: 'a call is already live' });
  });

  it('follows /events and reconnects after the stream drops', async () => {
    const events: SidecarEvent[] = [];
    const ups: boolean[] = [];
    const abort = new AbortController();
    const done = new SidecarClient({ baseUrl: base, token: TOKEN }).followEvents(
      (e) => events.push(e),
      abort.signal,
      (up) => ups.push(up),
      20,
    );
    const deadline = Date.now() + 10_000;
    while (events.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    abort.abort();
    await done;
    expect(events.map((e) => e.type === 'state' && e.data.state)).toEqual(['connecting', 'connected']);
    expect(ups.slice(0, 3)).toEqual([true, false, true]);
  });
});
