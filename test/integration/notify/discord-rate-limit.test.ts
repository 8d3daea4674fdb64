// A reminder DM that Discord rate-limits (429 with `retry_after`) is not written off and its claim
// is not held through the wait: the REST client (configured as the product configures it) refuses
// at once, the scheduler writes the entry back `scheduled` with Discord's retry time, and the next
// attempt — not before that time — delivers the DM exactly once (counted at the fake Discord).
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REST } from 'discord.js';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createNotifier } from '../../../main/core/notify/dispatcher.ts';
import { scheduleFilePath } from '../../../main/core/notify/schedule-store.ts';
import { createScheduler } from '../../../main/core/notify/scheduler.ts';
import { DiscordText, rejectMessageRateLimits } from '../../../main/core/voice/text.ts';
import { startFakeDiscord, type FakeDiscord } from '../../../main/fakes/discord/index.ts';

const logger = pino({ level: 'silent' });
const RETRY_AFTER_S = 30;
let discord: FakeDiscord;
let proxy: Server;
let proxyBase = '';
/** Message POSTs still to be answered 429 by the proxy (as Discord does when a bucket is empty). */
let rateLimited = 0;

beforeAll(async () => {
  discord = await startFakeDiscord();
  const upstream = new URL(discord.apiBaseUrl);
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && /\/channels\/\d+\/messages$/.test(req.url ?? '') && rateLimited > 0) {
        rateLimited--;
        // Discord's 429 (https://discord.com/developers/docs/topics/rate-limits): header and JSON body.
        res.writeHead(429, {
          'content-type': 'application/json',
          'retry-after': String(RETRY_AFTER_S),
          'x-ratelimit-scope': 'user',
        });
        return void res.end(
          JSON.stringify({ message: 'You are being rate limited.', retry_after: RETRY_AFTER_S, global: false }),
        );
      }
      const up = request(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
        (ur) => {
          res.writeHead(ur.statusCode ?? 502, ur.headers);
          ur.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyBase = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${upstream.pathname}`;
});
afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise((r) => proxy?.close(r));
  await discord?.close();
});

it("a rate-limited reminder DM is written back `scheduled` at Discord's retry time, then delivered once", async () => {
  const home = await mkdtemp(path.join(tmpdir(), 'lvb-dm-429-'));
  let nowMs = Date.now();
  const clock = { now: () => nowMs };
  const rest = new REST({ api: proxyBase, retries: 0, rejectOnRateLimit: rejectMessageRateLimits }).setToken(
    discord.botToken,
  );
  const notifier = createNotifier({
    voice: () => null,
    discordText: new DiscordText(() => rest),
    ownerId: discord.owner.id,
    sfxEnabled: false,
    logger,
    clock,
  });
  const scheduler = createScheduler({ file: scheduleFilePath(home), notifier, logger, clock });
  const dms = (): number =>
    discord.messages.filter((m) => m.content.includes('Stand-up in 5') && m.dmRecipientId !== null).length;
  try {
    rateLimited = 1;
    const entry = await scheduler.schedule({ text: 'Stand-up in 5', delay_seconds: 0, mode: 'dm' });
    await scheduler.tick();
    // Refused with 429: nothing delivered, nothing written off, no claim held through the wait.
    expect(dms()).toBe(0);
    let view = (await scheduler.list()).entries.find((e) => e.id === entry.id)!;
    expect(view.state).toBe('scheduled');
    expect(view.last_error).toMatch(/rate limited by Discord/);
    expect(view.next_attempt_at!).toBeGreaterThanOrEqual(Date.now() / 1000 + RETRY_AFTER_S - 2);

    // Not before Discord's time…
    nowMs += (RETRY_AFTER_S - 5) * 1000;
    expect(await scheduler.tick()).toBe(0);
    expect(dms()).toBe(0);
    // …then once.
    nowMs = view.next_attempt_at! * 1000 + 1000;
    expect(await scheduler.tick()).toBe(1);
    expect(dms()).toBe(1);
    view = (await scheduler.list()).entries.find((e) => e.id === entry.id)!;
    expect(view).toMatchObject({ state: 'delivered', attempts: 2 }); // the refused attempt and the one that delivered
  } finally {
    await scheduler.stop();
    notifier.webhook.close();
    await rm(home, { recursive: true, force: true });
  }
}, 60_000);
