// Discord unreachable when the core starts (a laptop that wakes offline): the login is retried in
// the background with back-off, a /join meanwhile fails with a clear 502, and once Discord is
// reachable /join works without restarting anything.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../../../main/fakes/discord/index.ts';
import { startFakeGemini, type FakeGemini } from '../../../main/fakes/gemini/index.ts';
import { startTestCore, type TestCore } from '../../helpers/core.ts';
import { errorCode, rawRequest } from '../../helpers/http.ts';
import { waitFor } from './signals.ts';

let discord: FakeDiscord;
let gemini: FakeGemini;
let t: TestCore;
let proxy: Server;
/** While down, every connection to Discord's REST API is reset (as if unreachable). */
let discordUp = false;
let refusedConnections = 0;
const sockets = new Set<Socket>();

beforeAll(async () => {
  discord = await startFakeDiscord();
  gemini = await startFakeGemini();
  const upstream = new URL(discord.apiBaseUrl);
  proxy = createServer((req, res) => {
    const forward = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  proxy.on('connection', (socket) => {
    if (!discordUp) {
      refusedConnections++;
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const port = (proxy.address() as AddressInfo).port;
  t = await startTestCore({
    DISCORD_BOT_TOKEN: discord.botToken,
    DISCORD_VOICE_LIVE_USER_ID: discord.owner.id,
    DISCORD_API_BASE_URL: `http://127.0.0.1:${port}${upstream.pathname}`,
    GEMINI_API_KEY: `fake-gemini-key-${process.pid}`,
    GEMINI_LIVE_BASE_URL: gemini.url,
  });
}, 60_000);

afterAll(async () => {
  await t?.close();
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await gemini?.close();
  await discord?.close();
});

describe('Discord unreachable at start-up', () => {
  it('retries the login in the background; /join fails with 502 while down and works once Discord is back', async () => {
    await waitFor(() => refusedConnections >= 2, 'two login attempts refused (a retry, not a cached failure)');
    const whileDown = await rawRequest({ port: t.port, method: 'POST', path: '/join', headers: t.auth });
    expect([whileDown.status, errorCode(whileDown)]).toEqual([502, 'join_failed']);
    const refusedSoFar = refusedConnections;
    expect(refusedSoFar).toBeGreaterThanOrEqual(3); // the /join made its own attempt

    discordUp = true;
    // Back-off is at most 60 s; the next /join also makes its own attempt, so no long wait is needed.
    let joined = await rawRequest({ port: t.port, method: 'POST', path: '/join', headers: t.auth });
    await waitFor(
      async () => {
        if (joined.status === 200) return true;
        joined = await rawRequest({ port: t.port, method: 'POST', path: '/join', headers: t.auth });
        return joined.status === 200;
      },
      '/join to work once Discord is reachable',
      30_000,
    );
    expect(joined.json).toMatchObject({
      state: 'connected',
      connections: { discord: 'connected', model: 'connected' },
    });
  });
});
