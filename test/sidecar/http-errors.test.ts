// What a client sees when its request is wrong in shape rather than in content: a binary body on a
// JSON route, a malformed multipart upload, a path the router cannot take, a method Node's parser
// refuses, a trailing slash. Every one is a 4xx in the sidecar's `{ error: { code, message } }`
// shape, with a specific code and a small body, on a real core (all routes) over a real socket.
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCore, type TestCore } from '../helpers/core.ts';
import { errorCode, rawRequest, type RawResponse } from '../helpers/http.ts';

let t: TestCore;
beforeAll(async () => {
  t = await startTestCore();
});
afterAll(async () => {
  await t.close();
});

/** Status, code and that the body is the sidecar's error shape, under `maxBytes`. */
function refusal(res: RawResponse, maxBytes = 1024): [number, string | undefined] {
  expect(Buffer.byteLength(res.text)).toBeLessThan(maxBytes);
  expect(Object.keys((res.json as { error: object }).error).sort()).toEqual(
    expect.arrayContaining(['code', 'message']),
  );
  return [res.status, errorCode(res)];
}

const post = (p: string, contentType: string, body: string | Buffer) =>
  rawRequest({ port: t.port, method: 'POST', path: p, headers: { ...t.auth, 'content-type': contentType }, body });

/** A request written byte for byte (for what http.request will not send), answered on the socket. */
function rawExchange(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(t.port, '127.0.0.1', () => socket.write(request));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('binary bodies outside POST /frame', () => {
  it('POST /join with 8 MB of application/octet-stream → 415 unsupported_media_type, a small body', async () => {
    const res = await post('/join', 'application/octet-stream', Buffer.alloc(8 * 1024 * 1024, 1));
    expect(refusal(res)).toEqual([415, 'unsupported_media_type']);
  });

  it('every JSON route refuses image and octet-stream bodies with 415 (and does no work)', async () => {
    for (const [route, type] of [
      ['/handoff', 'application/octet-stream'],
      ['/handoff', 'application/x-www-form-urlencoded'],
      ['/tools/sora_handoff', 'image/png'],
      ['/mute', 'application/octet-stream'],
      ['/notify', 'image/jpeg'],
      ['/schedule', 'application/octet-stream'],
      ['/setup/test/discord', 'application/octet-stream'],
    ] as const) {
      const res = await post(route, type, 'abc');
      expect([route, type, ...refusal(res)]).toEqual([route, type, 415, 'unsupported_media_type']);
    }
    expect(existsSync(path.join(t.home, 'voice-users', 'handoffs'))).toBe(false);
  });

  it('POST /frame still takes a raw image body (it reaches the route: no call → 409)', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    expect(refusal(await post('/frame', 'image/png', png))).toEqual([409, 'no_call']);
  });
});

describe('validation messages are bounded', () => {
  const manyKeys = JSON.stringify(Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, 1])));

  it('POST /join, /mute and /ptt with 5000 unknown keys → 400 invalid_request under 1 KiB, naming a few keys', async () => {
    for (const route of ['/join', '/mute', '/ptt']) {
      const res = await post(route, 'application/json', manyKeys);
      expect([route, ...refusal(res)]).toEqual([route, 400, 'invalid_request']);
      expect((res.json as { error: { message: string } }).error.message).toMatch(/"k0".*and \d+ more/);
    }
  });

  it('POST /setup/test/discord with 5000 unknown keys → 400 invalid_request with one bounded field', async () => {
    const res = await post('/setup/test/discord', 'application/json', manyKeys);
    expect(refusal(res)).toEqual([400, 'invalid_request']);
    const fields = (res.json as { error: { fields: Record<string, string> } }).error.fields;
    expect(Object.keys(fields)).toEqual(['body']);
  });
});

describe('malformed multipart on POST /frame', () => {
  it('a part that ends early → 400 invalid_multipart, not a 500', async () => {
    const body =
      '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\nabc';
    expect(refusal(await post('/frame', 'multipart/form-data; boundary=xyz', body))).toEqual([
      400,
      'invalid_multipart',
    ]);
  });

  it('multipart/form-data with no boundary → 400 invalid_multipart', async () => {
    expect(refusal(await post('/frame', 'multipart/form-data', 'abc'))).toEqual([400, 'invalid_multipart']);
  });

  it('a file part over 8 MiB → 413 payload_too_large (as the raw body)', async () => {
    const body = Buffer.concat([
      Buffer.from(
        '--xyz\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n',
      ),
      Buffer.alloc(9 * 1024 * 1024, 7),
      Buffer.from('\r\n--xyz--\r\n'),
    ]);
    expect(refusal(await post('/frame', 'multipart/form-data; boundary=xyz', body))).toEqual([
      413,
      'payload_too_large',
    ]);
  });
});

describe('errors raised before routing use the sidecar shape', () => {
  it('a path parameter over 200 characters → 414 path_param_too_long, the path not echoed', async () => {
    const long = 'a'.repeat(201);
    const del = await rawRequest({ port: t.port, method: 'DELETE', path: `/schedule/${long}`, headers: t.auth });
    expect(refusal(del)).toEqual([414, 'path_param_too_long']);
    expect(del.text).not.toContain(long);
    expect(del.headers['x-content-type-options']).toBe('nosniff');
    expect(refusal(await post(`/tools/${long}`, 'application/json', '{}'))).toEqual([414, 'path_param_too_long']);
  });

  it('a bad percent-encoding → 400 invalid_url', async () => {
    expect(refusal(await post('/tools/%E0%A4%A', 'application/json', '{}'))).toEqual([400, 'invalid_url']);
  });

  it("a method Node's parser refuses (FOO) → 400 unknown_method as JSON, then the connection closes", async () => {
    const answer = await rawExchange(`FOO /health HTTP/1.1\r\nHost: 127.0.0.1:${t.port}\r\n\r\n`);
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(body!)).toEqual({ error: { code: 'unknown_method', message: expect.any(String) } });
  });
});

describe('trailing slash', () => {
  it('GET /notes/ is a 404 not_found, never a 405 that names the method used', async () => {
    const res = await rawRequest({ port: t.port, path: '/notes/?limit=1', headers: t.auth });
    expect(refusal(res)).toEqual([404, 'not_found']);
    expect((await rawRequest({ port: t.port, path: '/notes?limit=1', headers: t.auth })).status).toBe(200);
    const wrong = await rawRequest({ port: t.port, method: 'DELETE', path: '/notes', headers: t.auth });
    expect([wrong.status, wrong.headers.allow]).toEqual([405, 'GET']);
  });
});
