// A used login link opened again in a browser gets a small page saying how to get a fresh one; a
// program (curl, the CLI) still gets the JSON error.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestCore, type TestCore } from '../helpers/core.ts';

let t: TestCore;
beforeAll(async () => (t = await startTestCore()));
afterAll(async () => t.close());

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

it('a browser reopening a used link gets an HTML page naming the command for a fresh link', async () => {
  const url = t.core.loginUrl();
  const first = await fetch(url, { redirect: 'manual', headers: { accept: BROWSER_ACCEPT } });
  expect(first.status).toBe(303);
  const again = await fetch(url, { redirect: 'manual', headers: { accept: BROWSER_ACCEPT } });
  expect(again.status).toBe(401);
  expect(again.headers.get('content-type')).toBe('text/html; charset=utf-8');
  const page = await again.text();
  expect(page).toContain('<h1>This login link was already used</h1>');
  expect(page).toContain('<code>npx live-voice-bridge dashboard</code>');
  expect(page).not.toContain('set-cookie');
  expect(again.headers.get('set-cookie')).toBeNull();
});

it('a program gets the JSON error with the same command', async () => {
  const url = t.core.loginUrl();
  await fetch(url, { redirect: 'manual' });
  const again = await fetch(url, { redirect: 'manual', headers: { accept: 'application/json' } });
  expect(again.status).toBe(401);
  const body = (await again.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe('login_expired');
  expect(body.error.message).toContain('npx live-voice-bridge dashboard');
});
