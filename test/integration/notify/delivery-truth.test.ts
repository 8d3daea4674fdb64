// What a user sees at the receivers (the fake Discord's DMs and channel posts, the loopback webhook
// receiver) and in the schedule entry, for the delivery defects found by the notify audit:
//  - a scheduled `all` reminder reaches EVERY destination (one claim shared by its modes), not one;
//  - a Discord send that times out but may still land is `unknown`, and `auto` stops there instead
//    of delivering the same notification again through the channel and the webhook.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REST } from 'discord.js';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createNotifier, type Notifier } from '../../../main/core/notify/dispatcher.ts';
import { scheduleFilePath } from '../../../main/core/notify/schedule-store.ts';
import { createScheduler } from '../../../main/core/notify/scheduler.ts';
import { DiscordText } from '../../../main/core/voice/text.ts';
import { startFakeDiscord, type FakeDiscord } from '../../../main/fakes/discord/index.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../unit/notify/webhook-receiver.ts';

const logger = pino({ level: 'silent' });
let discord: FakeDiscord;
let receiver: WebhookReceiver;
let proxy: Server;
/** Message POSTs through the proxy wait this long before reaching the fake Discord (which then records them). */
let discordDelayMs = 0;
let proxyBase = '';
const notifiers: Notifier[] = [];

beforeAll(async () => {
  discord = await startFakeDiscord();
  receiver = await startWebhookReceiver();
  const upstream = new URL(discord.apiBaseUrl);
  // A slow Discord: the request is held, then forwarded even if the client gave up on it (as a
  // request that already reached Discord is processed whatever the client does afterwards).
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const isMessage = req.method === 'POST' && /\/channels\/\d+\/messages$/.test(req.url ?? '');
      setTimeout(
        () => {
          const up = request(
            { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
            (ur) => {
              if (res.destroyed) return void ur.resume();
              res.writeHead(ur.statusCode ?? 502, ur.headers);
              ur.pipe(res);
            },
          );
          up.on('error', () => res.destroy());
          up.end(Buffer.concat(chunks));
        },
        isMessage ? discordDelayMs : 0,
      );
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyBase = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${upstream.pathname}`;
});
afterAll(async () => {
  for (const n of notifiers) n.webhook.close();
  proxy?.closeAllConnections();
  await new Promise((r) => proxy?.close(r));
  await receiver?.close();
  await discord?.close();
});
beforeEach(() => {
  discordDelayMs = 0;
});

function makeNotifier(discordTimeoutMs?: number): Notifier {
  const rest = new REST({ api: proxyBase, retries: 0 }).setToken(discord.botToken);
  const notifier = createNotifier({
    voice: () => null,
    discordText: new DiscordText(() => rest),
    ownerId: discord.owner.id,
    textChannelId: discord.textChannelId,
    webhookUrl: receiver.url,
    sfxEnabled: false,
    logger,
    discordTimeoutMs,
  });
  notifiers.push(notifier);
  return notifier;
}

/** Deliveries of `text` at each receiver. */
function landed(text: string): { dm: number; channel: number; webhook: number } {
  const mine = discord.messages.filter((m) => m.content.includes(text));
  return {
    dm: mine.filter((m) => m.dmRecipientId !== null).length,
    channel: mine.filter((m) => m.dmRecipientId === null && m.channelId === discord.textChannelId).length,
    webhook: receiver.received.filter((r) => JSON.stringify(r.json).includes(text)).length,
  };
}

describe('a scheduled `all` reminder', () => {
  it('reaches every configured destination and is recorded delivered with no error', async () => {
    const home = await mkdtemp(path.join(tmpdir(), 'lvb-notify-all-'));
    const scheduler = createScheduler({ file: scheduleFilePath(home), notifier: makeNotifier(), logger });
    try {
      const entry = await scheduler.schedule({
        text: 'Scheduled all reaches everyone',
        delay_seconds: 0,
        mode: 'all',
        title: 'Reminder',
      });
      expect(await scheduler.tick()).toBe(1);
      expect(landed('Scheduled all reaches everyone')).toEqual({ dm: 1, channel: 1, webhook: 1 });
      const view = (await scheduler.list()).entries.find((e) => e.id === entry.id)!;
      expect(view).toMatchObject({ state: 'delivered', attempts: 1 });
      expect(view.last_error).toBeUndefined();
    } finally {
      await scheduler.stop();
      await rm(home, { recursive: true, force: true });
    }
  });

  it('records `partial` with the reason when one destination fails, never plain delivered', async () => {
    const home = await mkdtemp(path.join(tmpdir(), 'lvb-notify-all-'));
    const scheduler = createScheduler({ file: scheduleFilePath(home), notifier: makeNotifier(), logger });
    receiver.script.push({ status: 400, body: 'bad request' });
    try {
      const entry = await scheduler.schedule({
        text: 'Scheduled all with a broken webhook',
        delay_seconds: 0,
        mode: 'all',
      });
      await scheduler.tick();
      expect(landed('Scheduled all with a broken webhook')).toEqual({ dm: 1, channel: 1, webhook: 1 });
      const view = (await scheduler.list()).entries.find((e) => e.id === entry.id)!;
      expect(view.state).toBe('delivered');
      expect(view.last_error).toMatch(/^partial: .*webhook: error \(HTTP 400\)/);
      expect(view.last_error).not.toMatch(/dm:|channel:/);
    } finally {
      await scheduler.stop();
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe('a Discord send that outlives its timeout', () => {
  it('is `unknown` and `auto` stops there: it lands once, nothing is sent to the channel or the webhook', async () => {
    discordDelayMs = 700;
    const notifier = makeNotifier(250);
    const result = await notifier.deliver({ text: 'Slow Discord lands once', title: 'Slow' });
    expect(result.status).toBe('unknown');
    expect(result.channel).toBeUndefined();
    expect(result.results.dm).toMatchObject({
      status: 'unknown',
      detail: expect.stringContaining('it may have reached Discord'),
    });
    expect(result.results.channel).toBeUndefined();
    expect(result.results.webhook).toBeUndefined();
    // The held request reaches Discord after the client gave up on it: exactly one delivery overall.
    await new Promise((r) => setTimeout(r, 900));
    expect(landed('Slow Discord lands once')).toEqual({ dm: 1, channel: 0, webhook: 0 });
  });

  it('a scheduled `auto` reminder whose DM timed out is failed ("sending was attempted"), not re-sent elsewhere', async () => {
    discordDelayMs = 700;
    const home = await mkdtemp(path.join(tmpdir(), 'lvb-notify-slow-'));
    const scheduler = createScheduler({ file: scheduleFilePath(home), notifier: makeNotifier(250), logger });
    try {
      const entry = await scheduler.schedule({ text: 'Slow scheduled DM', delay_seconds: 0 });
      await scheduler.tick();
      await new Promise((r) => setTimeout(r, 900));
      expect(landed('Slow scheduled DM')).toEqual({ dm: 1, channel: 0, webhook: 0 });
      const view = (await scheduler.list()).entries.find((e) => e.id === entry.id)!;
      expect(view.state).toBe('failed');
      expect(view.last_error).toMatch(/dm: unknown .*sending was attempted/);
    } finally {
      await scheduler.stop();
      await rm(home, { recursive: true, force: true });
    }
  });
});
