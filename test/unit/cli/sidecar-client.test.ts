// The CLI's sidecar client: a request the sidecar never answers in time is "outcome unknown"
// (SidecarNoAnswerError, exit 6), not "cannot reach the sidecar" (exit 3, "not running"): the sidecar
// keeps delivering. Only a refused connection means nothing was sent. And the exit code a /notify
// answer gives: 0 only when delivered.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../../main/core/config/index.ts';
import {
  callSidecar,
  EXIT,
  notifyVerdict,
  SidecarNoAnswerError,
  SidecarUnavailableError,
} from '../../../main/cli/sidecar-client.ts';
import { freePort } from '../../helpers/net.ts';

const TOKEN = 'client-unit-test-' + 'q'.repeat(24);
const seen: { url: string; key: string | string[] | undefined }[] = [];
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  seen.push({ url: req.url!, key: req.headers['idempotency-key'] });
  req.resume();
  if (req.url === '/slow') return; // never answers
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"status":"ok"}');
});
let config: Config;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  config = loadConfig({
    env: {
      DISCORD_VOICE_LIVE_PORT: String((server.address() as AddressInfo).port),
      DISCORD_VOICE_LIVE_SIDECAR_TOKEN: TOKEN,
    },
  });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('callSidecar', () => {
  it('a timeout is an unknown outcome, not "cannot reach the sidecar"', async () => {
    const err = await callSidecar(config, 'POST', '/slow', { text: 'x' }, 150).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SidecarNoAnswerError);
    expect(err).not.toBeInstanceOf(SidecarUnavailableError);
    expect((err as Error).message).toMatch(
      /no answer from the sidecar at http:\/\/127\.0\.0\.1:\d+ within 150 ms: the request may still be carried out \(outcome unknown\)/,
    );
  });

  it('a refused connection means nothing was sent: the sidecar is not running', async () => {
    const closed = loadConfig({
      env: { DISCORD_VOICE_LIVE_PORT: String(await freePort()), DISCORD_VOICE_LIVE_SIDECAR_TOKEN: TOKEN },
    });
    const err = await callSidecar(closed, 'POST', '/notify', { text: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SidecarUnavailableError);
    expect((err as Error).message).toContain('the sidecar is not running');
  });

  it('sends extra headers (the Idempotency-Key)', async () => {
    await expect(
      callSidecar(config, 'POST', '/notify', { text: 'x' }, 5000, { 'idempotency-key': 'cli-abc' }),
    ).resolves.toEqual({ status: 200, body: { status: 'ok' } });
    expect(seen.at(-1)).toEqual({ url: '/notify', key: 'cli-abc' });
  });
});

describe('notifyVerdict', () => {
  it('exits 0 only for ok; error 1, partial 4, unknown 5', () => {
    expect(notifyVerdict({ status: 'ok' })).toEqual({ exitCode: 0, message: null });
    expect(notifyVerdict({ status: 'error' }).exitCode).toBe(EXIT.failed);
    expect(notifyVerdict({ status: 'partial' }).exitCode).toBe(EXIT.partial);
    expect(notifyVerdict({ status: 'unknown' })).toEqual({
      exitCode: EXIT.unknown,
      message: expect.stringContaining('may have been delivered'),
    });
    expect(notifyVerdict(null).exitCode).toBe(EXIT.failed);
    expect(new Set(Object.values(EXIT)).size).toBe(Object.keys(EXIT).length);
    expect([EXIT.failed, EXIT.partial, EXIT.unknown, EXIT.noAnswer]).toEqual([1, 4, 5, 6]);
  });
});
