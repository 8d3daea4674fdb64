// The one typed sidecar client (main/core/sidecar-client/client.ts) against a loopback server: what a
// status code becomes (the answer, or through okBody a typed error carrying the sidecar's code), the
// bearer header, raw image bodies, the /events stream, and a refused connection as "not running".
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../helpers/net.ts';
import {
  okBody,
  SidecarClient,
  SidecarRequestError,
  SidecarTokenRefusedError,
  SidecarUnavailableError,
  TOKEN_REFUSED_HINT,
} from '../../../main/core/sidecar-client/client.ts';

const TOKEN = 'typed-client-' + 'k'.repeat(24);
const seen: { method: string; url: string; auth?: string; type?: string; body: string }[] = [];
let base = '';

/** Each path answers a fixed status: the client must turn it into what its caller sees. */
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    seen.push({
      method: req.method!,
      url: req.url!,
      auth: req.headers.authorization,
      type: req.headers['content-type'],
      body: Buffer.concat(chunks).toString('latin1'),
    });
    const json = (status: number, body: unknown) => (
      res.writeHead(status, { 'content-type': 'application/json' }),
      res.end(JSON.stringify(body))
    );
    if (req.headers.authorization !== `Bearer ${TOKEN}` && req.url !== '/health')
      return json(401, { error: { code: 'unauthorized', message: 'missing or wrong bearer token' } });
    if (req.url === '/join') return json(409, { error: { code: 'already_active', message: 'a call is already live' } });
    if (req.url === '/mute') return json(200, { muted: true, ptt: { enabled: false, held: false }, to_model: false });
    if (req.url === '/interrupt')
      return json(503, { error: { code: 'not_configured', message: 'voice calls are off' } });
    if (req.url === '/frame') return json(200, { status: 'sent' });
    if (req.url === '/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return res.end('event: state\ndata: {"state":"connected"}\n\n');
    }
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end('boom');
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

describe('status codes', () => {
  const client = () => new SidecarClient({ baseUrl: base + '/', token: TOKEN });

  it('a 2xx is the body; the bearer token and JSON go out', async () => {
    const answer = await client().mute(true);
    expect(answer).toEqual({
      status: 200,
      body: { muted: true, ptt: { enabled: false, held: false }, to_model: false },
    });
    expect(okBody(answer, 'POST /mute')).toMatchObject({ muted: true });
    expect(seen.at(-1)).toEqual({
      method: 'POST',
      url: '/mute',
      auth: `Bearer ${TOKEN}`,
      type: 'application/json',
      body: '{"muted":true}',
    });
  });

  it("a 409 is an answer, and okBody makes it a SidecarRequestError with the sidecar's code", async () => {
    const answer = await client().join();
    expect(answer.status).toBe(409);
    const err = (() => {
      try {
        return okBody(answer, 'POST /join');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(SidecarRequestError);
    expect(err).not.toBeInstanceOf(SidecarTokenRefusedError);
    expect(err).toMatchObject({ status: 409, code: 'already_active', message: 'a call is already live' });
  });

  it('a 503 keeps its status and code', () => {
    return client()
      .interrupt()
      .then((answer) =>
        expect(() => okBody(answer, 'POST /interrupt')).toThrow(
          expect.objectContaining({ status: 503, code: 'not_configured' }) as Error,
        ),
      );
  });

  it('a 401 is a SidecarTokenRefusedError', async () => {
    const answer = await new SidecarClient({ baseUrl: base, token: 'wrong-' + 'x'.repeat(30) }).mute(false);
    expect(() => okBody(answer, 'POST /mute')).toThrow(SidecarTokenRefusedError);
    expect(() => okBody(answer, 'POST /mute')).toThrow(
      expect.objectContaining({ status: 401, code: 'unauthorized' }) as Error,
    );
  });

  it('a 500 that is not JSON keeps the text and says which route answered', async () => {
    const answer = await client().request('GET', '/other');
    expect(answer).toEqual({ status: 500, body: 'boom' });
    expect(() => okBody(answer, 'GET /other')).toThrow(
      expect.objectContaining({ status: 500, code: 'http_error', message: 'GET /other answered 500' }) as Error,
    );
  });
});

describe('bodies and streams', () => {
  it('sends an image as its raw bytes with its type', async () => {
    const answer = await new SidecarClient({ baseUrl: base, token: TOKEN }).pushFrame(
      new Uint8Array([0x89, 0x50, 0x4e, 0x47]),
      'image/png',
    );
    expect(answer.status).toBe(200);
    expect(seen.at(-1)).toEqual({
      method: 'POST',
      url: '/frame',
      auth: `Bearer ${TOKEN}`,
      type: 'image/png',
      body: '\x89PNG',
    });
  });

  it('opens /events as a stream, and a refused token as SidecarTokenRefusedError', async () => {
    const stream = await new SidecarClient({ baseUrl: base, token: TOKEN }).stream(
      '/events',
      new AbortController().signal,
    );
    stream.setEncoding('utf8');
    let text = '';
    for await (const chunk of stream as AsyncIterable<string>) text += chunk;
    expect(text).toBe('event: state\ndata: {"state":"connected"}\n\n');
    const refused = await new SidecarClient({ baseUrl: base, token: 'wrong-' + 'y'.repeat(30) })
      .stream('/events', new AbortController().signal)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SidecarTokenRefusedError);
    expect((refused as Error).message).toBe(TOKEN_REFUSED_HINT);
  });

  it('nothing listening: SidecarUnavailableError that says it is not running (nothing was sent)', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const err = await new SidecarClient({ baseUrl: closed, token: TOKEN }).join().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SidecarUnavailableError);
    expect((err as Error).message).toContain(`the sidecar is not running at ${closed}`);
  });
});
