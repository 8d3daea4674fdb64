import { statSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, rawRequest } from '../helpers/http.ts';
import { startTestCore, type TestCore } from '../helpers/core.ts';

let t: TestCore;
beforeAll(async () => {
  t = await startTestCore();
});
afterAll(async () => {
  await t.close();
});

describe('sidecar security layer (real socket)', () => {
  it('refuses a rebinding Host header with 403 JSON', async () => {
    const res = await rawRequest({ port: t.port, path: '/health', headers: { host: 'evil.example' } });
    expect(res.status).toBe(403);
    expect(errorCode(res)).toBe('forbidden_host');
  });

  it('refuses an empty Host and a loopback host on another port', async () => {
    expect((await rawRequest({ port: t.port, path: '/health', headers: { host: '' } })).status).toBe(403);
    expect(
      (await rawRequest({ port: t.port, path: '/health', headers: { host: `127.0.0.1:${t.port + 1}` } })).status,
    ).toBe(403);
  });

  it('accepts localhost and [::1] spellings of its own address', async () => {
    expect((await rawRequest({ port: t.port, path: '/health', headers: { host: `localhost:${t.port}` } })).status).toBe(
      200,
    );
    expect((await rawRequest({ port: t.port, path: '/health', headers: { host: `[::1]:${t.port}` } })).status).toBe(
      200,
    );
  });

  it('refuses a foreign Origin with 403 even with a valid token', async () => {
    const res = await rawRequest({
      port: t.port,
      method: 'POST',
      path: '/login/url',
      headers: { origin: 'https://evil.example', ...t.auth },
    });
    expect(res.status).toBe(403);
    expect(errorCode(res)).toBe('cross_origin');
  });

  it('refuses Sec-Fetch-Site: cross-site and same-site', async () => {
    for (const site of ['cross-site', 'same-site']) {
      const res = await rawRequest({ port: t.port, path: '/health', headers: { 'sec-fetch-site': site } });
      expect(res.status).toBe(403);
      expect(errorCode(res)).toBe('cross_site');
    }
  });

  it('allows its own origin (the dashboard page)', async () => {
    const res = await rawRequest({
      port: t.port,
      path: '/health',
      headers: { origin: `http://127.0.0.1:${t.port}`, 'sec-fetch-site': 'same-origin' },
    });
    expect(res.status).toBe(200);
  });

  it('requires the bearer token: none → 401, wrong → 401, right → 200', async () => {
    const none = await rawRequest({ port: t.port, method: 'POST', path: '/login/url' });
    expect(none.status).toBe(401);
    expect(errorCode(none)).toBe('unauthorized');
    expect(none.headers['www-authenticate']).toBe('Bearer');
    const wrong = await rawRequest({
      port: t.port,
      method: 'POST',
      path: '/login/url',
      headers: { authorization: 'Bearer not-the-token' },
    });
    expect(wrong.status).toBe(401);
    const right = await rawRequest({ port: t.port, method: 'POST', path: '/login/url', headers: t.auth });
    expect(right.status).toBe(200);
    expect((right.json as { url: string }).url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/login\?nonce=[\w-]+$/);
  });

  it('writes a 32-byte token into an owner-only file', () => {
    const file = t.core.tokenFile;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const token = readFileSync(file, 'utf8').trim();
    expect(token).toBe(t.core.token);
    expect(Buffer.from(token, 'base64url').length).toBe(32);
  });

  it('GET /health is public and never contains the token', async () => {
    const res = await rawRequest({ port: t.port, path: '/health' });
    expect(res.status).toBe(200);
    const body = res.json as { status: string; reasons: string[]; version: string; bridge: { state: string } };
    expect(body.status).toBe('degraded');
    expect(body.reasons[0]).toMatch(/^not configured: voice calls need DISCORD_BOT_TOKEN/);
    expect(body.version).toBe('0.3.5');
    expect(body.bridge.state).toBe('idle');
    expect(res.text).not.toContain(t.core.token);
  });

  it('answers unknown routes with 404 JSON and wrong methods with 405 + Allow', async () => {
    const missing = await rawRequest({ port: t.port, path: '/nope', headers: t.auth });
    expect(missing.status).toBe(404);
    expect(errorCode(missing)).toBe('not_found');
    const wrongMethod = await rawRequest({ port: t.port, method: 'DELETE', path: '/health', headers: t.auth });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toBe('GET');
    expect(errorCode(wrongMethod)).toBe('method_not_allowed');
  });

  it('sends no CORS headers, even to a preflight', async () => {
    const res = await rawRequest({
      port: t.port,
      method: 'OPTIONS',
      path: '/health',
      headers: { 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('answers malformed JSON with 400 and a text/plain POST with 415, never 500', async () => {
    const badJson = await rawRequest({
      port: t.port,
      method: 'POST',
      path: '/login/url',
      headers: { ...t.auth, 'content-type': 'application/json' },
      body: '{"x":',
    });
    expect(badJson.status).toBe(400);
    expect(errorCode(badJson)).toBe('invalid_json');
    const plain = await rawRequest({
      port: t.port,
      method: 'POST',
      path: '/login/url',
      headers: { ...t.auth, 'content-type': 'text/plain' },
      body: 'hi',
    });
    expect(plain.status).toBe(415);
    expect(errorCode(plain)).toBe('unsupported_media_type');
  });

  it('logs a dashboard in through a one-time URL that sets an HttpOnly SameSite=Strict cookie', async () => {
    const nonce = new URL(t.core.loginUrl()).searchParams.get('nonce')!;
    const login = await rawRequest({ port: t.port, path: `/login?nonce=${nonce}` });
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe('/');
    const cookie = String(login.headers['set-cookie']);
    expect(cookie).toMatch(/^lvb_session=[\w-]+; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200$/);
    const session = cookie.split(';')[0]!;
    const withCookie = await rawRequest({
      port: t.port,
      method: 'POST',
      path: '/login/url',
      headers: { cookie: session },
    });
    expect(withCookie.status).toBe(200);
    const reused = await rawRequest({ port: t.port, path: `/login?nonce=${nonce}` });
    expect(reused.status).toBe(401);
    expect(errorCode(reused)).toBe('login_expired');
    const forged = await rawRequest({
      port: t.port,
      method: 'POST',
      path: '/login/url',
      headers: { cookie: 'lvb_session=forged' },
    });
    expect(forged.status).toBe(401);
  });

  it('streams hub events over SSE to an authenticated client', async () => {
    const received = await new Promise<string>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: t.port, path: '/events', headers: t.auth }, (res) => {
        expect(res.headers['content-type']).toContain('text/event-stream');
        let buffer = '';
        res.on('data', (chunk: Buffer) => {
          buffer += chunk.toString('utf8');
          if (buffer.includes(': connected'))
            t.core.hub.publish({ type: 'note', data: { id: 'n1', ts: 1, kind: 'note', text: 'hello' } });
          if (buffer.includes('event: note')) {
            req.destroy();
            resolve(buffer);
          }
        });
      });
      req.on('error', reject);
    });
    expect(received).toContain('event: note\ndata: {"id":"n1","ts":1,"kind":"note","text":"hello"}\n\n');
  });
});
