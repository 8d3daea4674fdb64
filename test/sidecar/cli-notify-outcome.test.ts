// `live-voice-bridge notify` / `schedule` as a script sees them, against a stand-in sidecar: the exit
// code follows the notification's status (0 only when delivered; `unknown` has its own code, so a
// script does not send twice what may have been delivered), every POST carries an Idempotency-Key,
// and a connection lost after the request went out is "outcome unknown" (exit 6, the key printed so
// the same command can be repeated without delivering twice), not "the sidecar is not running".
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';

const TOKEN = 'cli-outcome-test-' + 'k'.repeat(24);
const home = mkdtempSync(path.join(tmpdir(), 'lvb-cli-outcome-'));
let port = 0;
/** What the stand-in answers /notify with: a status, or `drop` to close the connection unanswered. */
let notifyAnswer: string = 'ok';
const seen: { method: string; url: string; key: string | undefined; body: unknown }[] = [];

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    const key = req.headers['idempotency-key'];
    seen.push({
      method: req.method!,
      url: req.url!,
      key: Array.isArray(key) ? key.join(',') : key,
      body: raw ? JSON.parse(raw) : undefined,
    });
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ error: { code: 'unauthorized', message: 'bad token' } }));
    }
    if (req.url === '/notify' && notifyAnswer === 'drop') return req.socket.destroy();
    res.writeHead(req.url === '/schedule' ? 201 : 200, { 'content-type': 'application/json' });
    if (req.url === '/schedule')
      return res.end(JSON.stringify({ scheduled: 'n-1', fire_at_epoch: 1, entry: { id: 'n-1' } }));
    const results = { dm: { status: notifyAnswer === 'ok' || notifyAnswer === 'partial' ? 'ok' : notifyAnswer } };
    res.end(JSON.stringify({ id: 'n-x', status: notifyAnswer, results, notified_at: 1 }));
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(home, { recursive: true, force: true });
});
beforeEach(() => {
  seen.length = 0;
  notifyAnswer = 'ok';
});

/** The CLI as a child process (async: the stand-in sidecar answers from this process). */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE: _f, ...base } = process.env;
  const child = spawn(process.execPath, ['main/cli.ts', ...args], {
    env: { ...base, HERMES_HOME: home, DISCORD_VOICE_LIVE_PORT: String(port), DISCORD_VOICE_LIVE_SIDECAR_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

it('exits 0 only when delivered; partial 4, unknown 5, error 1 — the answer is printed either way', async () => {
  const expected: [string, number, RegExp | null][] = [
    ['ok', 0, null],
    ['error', 1, /Not delivered \(status error\)/],
    ['partial', 4, /Partly delivered \(status partial\)/],
    ['unknown', 5, /may have been delivered .*was not re-sent\. Do not send it again/],
  ];
  for (const [status, code, message] of expected) {
    notifyAnswer = status;
    const run = await cli(['notify', '--mode', 'dm', 'Build finished']);
    expect({ status, code: run.code }).toEqual({ status, code });
    expect(JSON.parse(run.stdout)).toMatchObject({ status });
    if (message) expect(run.stderr).toMatch(message);
    else expect(run.stderr).toBe('');
  }
}, 60_000);

it('sends a generated Idempotency-Key on POST /notify and POST /schedule, or the one given', async () => {
  await cli(['notify', 'one']);
  await cli(['notify', 'two']);
  await cli(['notify', '--idempotency-key', 'my-key-1', 'three']);
  await cli(['schedule', '--in', '60', 'four']);
  await cli(['schedule', '--in', '60', '--idempotency-key', 'my-key-2', 'five']);
  expect(seen.map((s) => [s.method, s.url])).toEqual([
    ['POST', '/notify'],
    ['POST', '/notify'],
    ['POST', '/notify'],
    ['POST', '/schedule'],
    ['POST', '/schedule'],
  ]);
  const keys = seen.map((s) => s.key);
  expect(keys[0]).toMatch(/^cli-[0-9a-f-]{36}$/);
  expect(keys[1]).toMatch(/^cli-[0-9a-f-]{36}$/);
  expect(keys[0]).not.toBe(keys[1]);
  expect(keys[2]).toBe('my-key-1');
  expect(keys[3]).toMatch(/^cli-[0-9a-f-]{36}$/);
  expect(keys[4]).toBe('my-key-2');
  // The body is what it was (a repeat with the key must hash the same).
  expect(seen[2]!.body).toEqual({ text: 'three', mode: 'auto', source: 'cli' });
}, 60_000);

it('refuses a key the sidecar would refuse, before sending anything', async () => {
  const run = await cli(['notify', '--idempotency-key', 'has space', 'x']);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('--idempotency-key');
  expect(seen).toEqual([]);
}, 30_000);

it('a connection lost after the request went out is "outcome unknown" (6) with the key to repeat it, not "not running" (3)', async () => {
  notifyAnswer = 'drop';
  const run = await cli(['notify', 'Deploy done']);
  expect(run.code).toBe(6);
  const key = seen[0]!.key!;
  expect(key).toMatch(/^cli-/);
  expect(run.stderr).toContain('outcome unknown');
  expect(run.stderr).toContain(`--idempotency-key ${key}`);
  expect(run.stderr).not.toContain('not running');
  // Repeating with that key sends the same key (the sidecar answers it with the first answer).
  notifyAnswer = 'ok';
  const again = await cli(['notify', '--idempotency-key', key, 'Deploy done']);
  expect(again.code).toBe(0);
  expect(seen[1]!.key).toBe(key);
  expect(seen[1]!.body).toEqual(seen[0]!.body);
}, 60_000);

it('the help states the exit codes', async () => {
  const run = await cli(['help']);
  expect(run.code).toBe(0);
  for (const line of [
    /^ {2}4 {2}notify: partly delivered/m,
    /^ {2}5 {2}notify: may have been delivered/m,
    /^ {2}6 {2}no answer in time/m,
  ])
    expect(run.stdout).toMatch(line);
}, 30_000);
