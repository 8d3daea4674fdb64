// Exactly once where the receiver can tell (issue #55 item 6). A Discord post carries a nonce from
// the delivery's id with `enforce_nonce: true`, and the fake Discord, like Discord, answers a repeat
// within its window with the message it already created; a webhook receiver that honours the
// Idempotency-Key drops a repeat of it. So a send whose answer was lost — the connection dropped
// after the message was created, or the process killed (-9) while the request was in flight — is
// sent again and arrives ONCE: one message in the fake's channel, one action per key at the receiver.
import { spawn } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REST } from 'discord.js';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotifier } from '../../../main/core/notify/dispatcher.ts';
import { scheduleFilePath, type StoredNotification } from '../../../main/core/notify/schedule-store.ts';
import { createWebhookDispatcher } from '../../../main/core/notify/webhook.ts';
import { openDatabase } from '../../../main/core/store/database.ts';
import { DiscordText } from '../../../main/core/voice/text.ts';
import { startFakeDiscord, type FakeDiscord } from '../../../main/fakes/discord/index.ts';
import { readScheduleRows, writeScheduleRows } from '../../helpers/schedule-db.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../unit/notify/webhook-receiver.ts';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'scheduler-once-child.ts');
const logger = pino({ level: 'silent' });
let discord: FakeDiscord;

beforeAll(async () => {
  discord = await startFakeDiscord();
});
afterAll(async () => {
  await discord?.close();
});

const posted = (text: string) => discord.messages.filter((m) => m.content.includes(text));
const messagePosts = () =>
  discord.restRequests.filter((r) => r.method === 'POST' && r.path.endsWith('/messages')).length;

function notifier(webhookUrl?: string) {
  // discord.js's default: a reset connection or a 5xx is retried (3 times) with the same body.
  const rest = new REST({ api: discord.apiBaseUrl, version: '10' }).setToken(discord.botToken);
  return createNotifier({
    voice: () => null,
    discordText: new DiscordText(() => rest),
    ownerId: discord.owner.id,
    textChannelId: discord.textChannelId,
    webhookUrl,
    sfxEnabled: false,
    logger,
  });
}

describe('a Discord post whose answer is lost after the message was created', () => {
  for (const mode of ['channel', 'dm'] as const) {
    it(`${mode}: is sent again with the same nonce and Discord holds one message`, async () => {
      const text = `lost answer ${mode} ${Date.now()}`;
      const before = messagePosts();
      discord.restFaults.dropAnswerAfterCreate = 1;
      const result = await notifier().deliver({ text, mode });
      expect(result.results[mode]).toMatchObject({ status: 'ok' });
      expect(messagePosts() - before).toBe(2); // the client did send it twice
      expect(posted(text)).toHaveLength(1);
      expect(posted(text)[0]!.body).toMatchObject({ enforce_nonce: true, nonce: expect.any(String) });
    });
  }
});

describe('a Discord post that provably went nowhere', () => {
  it('a refused connection is an error, not "may have been posted": auto moves on to the channel', async () => {
    const dead = new REST({ api: 'http://127.0.0.1:1/api', version: '10', retries: 0 }).setToken(discord.botToken);
    const live = new REST({ api: discord.apiBaseUrl, version: '10' }).setToken(discord.botToken);
    const text = `refused ${Date.now()}`;
    const port = new DiscordText(() => dead);
    const channelPort = new DiscordText(() => live);
    const result = await createNotifier({
      voice: () => null,
      discordText: {
        sendDirectMessage: (u, t, o) => port.sendDirectMessage(u, t, o),
        postToChannel: (c, t, o) => channelPort.postToChannel(c, t, o),
      },
      ownerId: discord.owner.id,
      textChannelId: discord.textChannelId,
      sfxEnabled: false,
      logger,
    }).deliver({ text, mode: 'auto' });
    expect(result.results.dm).toMatchObject({ status: 'error' });
    expect(result.channel).toBe('channel');
    expect(posted(text)).toHaveLength(1);
  });
});

describe('the fake Discord enforces the nonce as Discord does', () => {
  const post = (channelId: string, body: object) =>
    fetch(`${discord.apiBaseUrl}/v10/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bot ${discord.botToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('a repeat of an enforced nonce returns the first message (same shape, with its nonce); nothing new is created', async () => {
    const text = `nonce repeat ${Date.now()}`;
    const first = (await (
      await post(discord.textChannelId, { content: text, nonce: 'n-repeat-1', enforce_nonce: true })
    ).json()) as Record<string, unknown>;
    const again = await post(discord.textChannelId, { content: text, nonce: 'n-repeat-1', enforce_nonce: true });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(first);
    expect(first).toMatchObject({ nonce: 'n-repeat-1', channel_id: discord.textChannelId, content: text });
    expect(posted(text)).toHaveLength(1);
  });

  it('without enforce_nonce the same nonce makes a second message; a nonce over 25 characters is refused', async () => {
    const text = `nonce not enforced ${Date.now()}`;
    await post(discord.textChannelId, { content: text, nonce: 'n-free' });
    await post(discord.textChannelId, { content: text, nonce: 'n-free' });
    expect(posted(text)).toHaveLength(2);
    const long = await post(discord.textChannelId, { content: text, nonce: 'x'.repeat(26), enforce_nonce: true });
    expect(long.status).toBe(400);
    expect(await long.json()).toMatchObject({ code: 50035, errors: { nonce: {} } });
  });
});

describe('a webhook POST whose answer is lost after the receiver acted on it', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver(0, { honourKeys: true });
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('is sent again with the same Idempotency-Key when the receiver honours it: acted on once', async () => {
    const hook = createWebhookDispatcher({
      url: receiver.url,
      logger,
      keyWindowSeconds: 60,
      backoffMs: 10,
      throttleSeconds: 0,
    });
    receiver.script.push({ dropAnswer: true });
    const outcome = await hook.emit({
      eventClass: 'agent.notify',
      title: 't',
      text: 'lost webhook answer',
      id: 'n-lost-webhook',
    });
    expect(outcome.status).toBe('ok');
    expect(receiver.received.filter((r) => r.headers['idempotency-key'] === 'n-lost-webhook')).toHaveLength(2);
    expect(receiver.actedOn.filter((k) => k === 'n-lost-webhook')).toHaveLength(1);
    hook.close();
  });

  it('is not sent again when the receiver is not said to honour it (at most once): unknown', async () => {
    const hook = createWebhookDispatcher({ url: receiver.url, logger, backoffMs: 10, throttleSeconds: 0 });
    receiver.script.push({ dropAnswer: true });
    const outcome = await hook.emit({
      eventClass: 'agent.notify',
      title: 't',
      text: 'lost webhook answer',
      id: 'n-lost-once',
    });
    expect(outcome.status).toBe('unknown');
    expect(receiver.received.filter((r) => r.headers['idempotency-key'] === 'n-lost-once')).toHaveLength(1);
    hook.close();
  });
});

describe('kill -9 while a reminder is in flight', () => {
  let home: string;
  let receiver: WebhookReceiver;
  let proxy: Server;
  let proxyApi = '';
  /** While on, a message POST reaches the fake Discord (it is created) but its answer never comes back. */
  let holdAnswers = true;

  beforeAll(async () => {
    home = await mkdtemp(path.join(tmpdir(), 'lvb-resend-once-'));
    receiver = await startWebhookReceiver(0, { honourKeys: true });
    const upstream = new URL(discord.apiBaseUrl);
    proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const held = holdAnswers && req.method === 'POST' && /\/messages$/.test(req.url ?? '');
        const up = request(
          { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
          (ur) => {
            if (held || res.destroyed) return void ur.resume();
            res.writeHead(ur.statusCode ?? 502, ur.headers);
            ur.pipe(res);
          },
        );
        up.on('error', () => res.destroy());
        up.end(Buffer.concat(chunks));
      });
      res.on('error', () => undefined);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    proxyApi = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${upstream.pathname}`;
  });
  afterAll(async () => {
    proxy?.closeAllConnections();
    await new Promise((r) => proxy?.close(r));
    await receiver?.close();
    await rm(home, { recursive: true, force: true });
  });

  /** Run the child until `until()` holds, then SIGKILL it. */
  function runChild(file: string, until: () => boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [CHILD, file, proxyApi, discord.botToken, discord.owner.id, discord.textChannelId, receiver.url],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      const poll = setInterval(() => until() && child.kill('SIGKILL'), 50);
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('exit', (code, signal) => {
        clearInterval(poll);
        if (signal !== 'SIGKILL') reject(new Error(`child exited ${code} ${signal}: ${stderr}`));
        else resolve();
      });
    });
  }

  it(
    'dm, channel and webhook reminders killed mid-request are resent after the restart and arrive once each',
    { timeout: 60_000 },
    async () => {
      const file = scheduleFilePath(home);
      await mkdir(path.dirname(file), { recursive: true });
      openDatabase({ dir: path.dirname(file), logger }).close(); // the schema
      const now = Date.now() / 1000;
      const tag = `k9-${Date.now()}`;
      const entry = (k: number, mode: StoredNotification['mode']): StoredNotification => ({
        id: `n-${tag}-${k}`,
        text: `${tag} ${mode}`,
        mode,
        delay_seconds: 0,
        fire_at_epoch: now,
        created_at: now,
        state: 'scheduled',
        attempts: 0,
        updated_at: now,
      });
      writeScheduleRows(file, [entry(1, 'dm'), entry(2, 'channel'), entry(3, 'webhook')]);
      // The receiver acts on the webhook's first POST and never answers it.
      receiver.script.push({ hang: true });

      // Killed once every request has reached its receiver and none has been answered.
      await runChild(
        file,
        () =>
          posted(`${tag} dm`).length === 1 &&
          posted(`${tag} channel`).length === 1 &&
          receiver.actedOn.includes(`n-${tag}-3`),
      );
      const interrupted = readScheduleRows(file);
      expect(interrupted.map((e) => e.state)).toEqual(['delivering', 'delivering', 'delivering']);

      holdAnswers = false;
      const done = () => readScheduleRows(file).every((e) => e.state !== 'scheduled' && e.state !== 'delivering');
      await runChild(file, done);

      const rows = readScheduleRows(file);
      for (const e of rows)
        expect({ id: e.id, state: e.state, last_error: e.last_error }).toEqual({
          id: e.id,
          state: 'delivered',
          last_error: undefined,
        });
      expect(posted(`${tag} dm`)).toHaveLength(1);
      expect(posted(`${tag} channel`)).toHaveLength(1);
      expect(
        receiver.received.filter((r) => r.headers['idempotency-key'] === `n-${tag}-3`).length,
      ).toBeGreaterThanOrEqual(2);
      expect(receiver.actedOn.filter((k) => k === `n-${tag}-3`)).toHaveLength(1);
    },
  );
});
