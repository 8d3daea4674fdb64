// "Restart now" (POST /restart) with a saved sidecar port that cannot be had, on real cores: the user
// keeps a sidecar at the address they use, and a core whose start fails part-way closes what it opened
// (its Discord login does not go on retrying in the background).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../../main/core/config/index.ts';
import { startCore, type CoreHandle } from '../../../main/core/core.ts';
import { silentLogger } from '../../../main/core/log/logger.ts';
import {
  RestartFailedError,
  startRestartableCore,
  type RestartableCore,
} from '../../../main/core/setup/restartable-core.ts';
import { DashboardSessions } from '../../../main/core/sidecar/sessions.ts';
import { rawRequest } from '../../helpers/http.ts';
import { freePort } from '../../helpers/net.ts';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function home(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'lvb-restart-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A plain TCP listener: another program holding `port`. */
async function holdPort(port: number): Promise<net.Server> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return server;
}

interface Running {
  running: RestartableCore<CoreHandle>;
  failed: unknown[];
  lost: unknown[];
  /** The port the next load() puts in the configuration (the "saved" sidecarPort). */
  savePort(port: number): void;
}

async function startRunning(
  env: Record<string, string>,
  port: number,
  beforeStart?: (config: Config) => Promise<void>,
): Promise<Running> {
  let saved = port;
  const load = async (): Promise<Config> => {
    const config = loadConfig({ env });
    config.sidecar.port = saved;
    return config;
  };
  const failed: unknown[] = [];
  const lost: unknown[] = [];
  const sessions = new DashboardSessions();
  const running = await startRestartableCore({
    load,
    start: async (config, restart) => {
      await beforeStart?.(config);
      return startCore({ config, logger: silentLogger(), restart, sessions });
    },
    onFailed: (err) => failed.push(err),
    onLost: (err) => lost.push(err),
  });
  cleanups.push(async () => {
    await running.settled();
    await running.core.stop();
  });
  return { running, failed, lost, savePort: (p) => (saved = p) };
}

async function health(port: number, token: string): Promise<number> {
  return (await rawRequest({ port, path: '/health', headers: { authorization: `Bearer ${token}` } })).status;
}

describe('Restart now with a sidecar port that cannot be had', () => {
  it('saved port held by another program: 200 restarting, and the running core goes on untouched on its port', async () => {
    const r = await startRunning({ HERMES_HOME: home() }, await freePort());
    const before = r.running.core;
    const port = Number(new URL(before.sidecarUrl).port);
    const taken = await freePort();
    await holdPort(taken);
    r.savePort(taken);

    const answer = await rawRequest({
      port,
      method: 'POST',
      path: '/restart',
      headers: { authorization: `Bearer ${before.token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect([answer.status, answer.json]).toEqual([200, { restarting: true }]);
    await expect.poll(() => r.failed.length).toBe(1);
    await r.running.settled();

    expect(await health(port, before.token)).toBe(200);
    expect(r.running.core).toBe(before); // never stopped: a call in progress would have gone on
    expect(r.running.config.sidecar.port).toBe(port);
    expect(r.failed[0]).toBeInstanceOf(RestartFailedError);
    expect((r.failed[0] as Error).message).toContain(
      `the saved sidecar port ${taken} (on 127.0.0.1) is not free: another program is using it`,
    );
    expect(r.lost).toEqual([]);
  });

  it('the new port taken between the check and the start: the previous settings come back on the same address', async () => {
    const taken = await freePort();
    let grab = false;
    // Another program binds the port just after the check said it was free.
    const r = await startRunning({ HERMES_HOME: home() }, await freePort(), async (config) => {
      if (grab && config.sidecar.port === taken) {
        grab = false;
        await holdPort(taken);
      }
    });
    const first = r.running.core;
    const port = Number(new URL(first.sidecarUrl).port);
    r.savePort(taken);
    grab = true;

    r.running.restart();
    await r.running.settled();

    // Outcome first, so a failure prints what the restart said.
    expect(r.lost).toEqual([]);
    expect(r.failed.map((e) => (e as Error).message)).toHaveLength(1);
    expect(r.running.core).not.toBe(first);
    expect(r.running.core.sidecarUrl).toBe(first.sidecarUrl);
    expect(r.running.config.sidecar.port).toBe(port);
    expect(await health(port, r.running.core.token)).toBe(200);
    expect(r.failed).toHaveLength(1);
    const err = r.failed[0] as RestartFailedError;
    expect(err.restored).toBe(true);
    expect(err.message).toMatch(
      new RegExp(
        `^the saved settings did not start \\(listen EADDRINUSE: address already in use 127\\.0\\.0\\.1:${taken}\\); the core runs again with the previous settings on http://127\\.0\\.0\\.1:${port}$`,
      ),
    );
    expect(r.lost).toEqual([]);
  });
});

describe('a start that fails part-way', () => {
  let proxy: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
    proxy = undefined;
  });

  it('closes what it opened: the Discord login it began does not go on retrying', async () => {
    // Discord "unreachable": every connection is reset, and counted (each login attempt makes one or more).
    let attempts = 0;
    proxy = createServer();
    proxy.on('connection', (socket) => {
      attempts++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => proxy!.listen(0, '127.0.0.1', resolve));
    const discordPort = (proxy.address() as net.AddressInfo).port;
    const taken = await freePort();
    await holdPort(taken);
    const config = loadConfig({
      env: {
        HERMES_HOME: home(),
        DISCORD_BOT_TOKEN: 'fake-bot-token-for-a-start-that-fails',
        DISCORD_VOICE_LIVE_USER_ID: '100000000000000001',
        DISCORD_API_BASE_URL: `http://127.0.0.1:${discordPort}/api`,
        GEMINI_API_KEY: `fake-gemini-key-${process.pid}`,
      },
    });
    config.sidecar.port = taken;

    await expect(startCore({ config, logger: silentLogger() })).rejects.toThrow(/EADDRINUSE/);
    // A half-started core would retry the login with back-off (1 s, 2 s, ...): none may come now.
    await sleep(500);
    const after = attempts;
    await sleep(3500);
    expect(attempts).toBe(after);
  });
});
