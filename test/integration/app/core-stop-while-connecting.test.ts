// Quit while the Discord bot is still logging in (a slow network, a busy gateway): the core's stop()
// must close the gateway socket whatever step of the handshake it is at, with no uncaught error
// (a desktop app must never crash on Quit), no reconnect afterwards (the bot would log in again
// after the app stopped), within the shutdown budget, and free the sidecar's port. The fake
// Discord holds one handshake step (GatewayHold) so the stop lands exactly there; closing the fake
// afterwards resets whatever socket is left, as the network would.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../main/core/config/index.ts';
import { startCore } from '../../../main/core/core.ts';
import { startFakeDiscord, type FakeDiscord } from '../../../main/fakes/discord/index.ts';
import { freePort, portIsFree } from '../../helpers/net.ts';

const homes: string[] = [];
const uncaught: unknown[] = [];
const record = (error: unknown): void => void uncaught.push(error);
let discord: FakeDiscord;

beforeEach(async () => {
  uncaught.length = 0;
  process.on('uncaughtException', record);
  process.on('unhandledRejection', record);
  discord = await startFakeDiscord();
});
afterEach(async () => {
  await discord.close();
  process.off('uncaughtException', record);
  process.off('unhandledRejection', record);
});
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

/** A core on the fake Discord whose warnings are kept (a stop that overran its budget logs one). */
async function startBotCore(warnings: string[]) {
  const home = mkdtempSync(path.join(tmpdir(), 'lvb-stop-'));
  homes.push(home);
  const config = loadConfig({
    env: {
      HERMES_HOME: home,
      DISCORD_BOT_TOKEN: discord.botToken,
      DISCORD_VOICE_LIVE_USER_ID: discord.owner.id,
      DISCORD_API_BASE_URL: discord.apiBaseUrl,
    },
  });
  config.sidecar.port = await freePort();
  const lines = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        warnings.push(String((JSON.parse(line) as { msg?: unknown }).msg));
      done();
    },
  });
  const core = await startCore({ config, logger: pino({ level: 'warn' }, lines) });
  return { core, port: config.sidecar.port };
}

/** Where the bot's login is when the core stops: a step the fake holds, and how to see it got there. */
const STEPS = [
  { hold: 'upgrade', reached: () => discord.gateway.upgradeRequests > 0 },
  { hold: 'hello', reached: () => discord.gateway.openSockets > 0 },
  { hold: 'ready', reached: () => discord.gateway.identifies.length > 0 },
] as const;

describe('stopping the core while the Discord gateway is still connecting', () => {
  it.each(STEPS)(
    'stop() while the gateway holds $hold: no uncaught error, no reconnect, the socket and the port are closed',
    async ({ hold, reached }) => {
      discord.gateway.hold(hold);
      const warnings: string[] = [];
      const { core, port } = await startBotCore(warnings);
      await expect.poll(reached, { timeout: 15_000 }).toBe(true);
      const upgradesAtStop = discord.gateway.upgradeRequests;
      await core.stop();
      expect(warnings.filter((w) => w.includes('did not stop'))).toEqual([]);
      expect(await portIsFree(port)).toBe(true);
      // No zombie: the library's own reconnect (500 ms after an aborted handshake) would show here.
      await sleep(1500);
      expect(discord.gateway.openSockets).toBe(0);
      expect(discord.gateway.upgradeRequests).toBe(upgradesAtStop);
      // The network drops whatever is left (a held upgrade is reset): nothing may surface uncaught.
      await discord.close();
      discord = await startFakeDiscord();
      await sleep(500);
      expect(uncaught).toEqual([]);
    },
  );

  it('stop() at once after start, before the first gateway request: no uncaught error, no login afterwards', async () => {
    const warnings: string[] = [];
    const { core, port } = await startBotCore(warnings);
    await core.stop();
    expect(warnings.filter((w) => w.includes('did not stop'))).toEqual([]);
    expect(await portIsFree(port)).toBe(true);
    await sleep(1500);
    expect(discord.gateway.identifies).toEqual([]);
    expect(discord.gateway.openSockets).toBe(0);
    expect(uncaught).toEqual([]);
  });
});
