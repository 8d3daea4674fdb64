// Notifications end to end on the project's fakes: the real Discord text client (discord.js REST)
// against the fake Discord, the real Gemini provider against the fake Gemini Live service, and a
// loopback webhook receiver. What a user would see: the DM and the channel post arrive, the model
// speaks the voice-mode text in its next turn, the webhook gets the documented embed.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REST } from 'discord.js';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createNotifier, type Notifier } from '../../../main/core/notify/dispatcher.ts';
import { scheduleFilePath } from '../../../main/core/notify/schedule-store.ts';
import { createScheduler } from '../../../main/core/notify/scheduler.ts';
import type { VoiceDelivery } from '../../../main/core/notify/types.ts';
import { registerNotifyRoutes } from '../../../main/core/sidecar/routes/notify.ts';
import { createSidecar } from '../../../main/core/sidecar/server.ts';
import { DiscordText } from '../../../main/core/voice/text.ts';
import { startFakeDiscord, type FakeDiscord } from '../../../main/fakes/discord/index.ts';
import { startHarness, waitUntil, type Harness } from '../gemini/helpers.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../unit/notify/webhook-receiver.ts';

const logger = pino({ level: 'silent' });
let discord: FakeDiscord;
let gemini: Harness;
let receiver: WebhookReceiver;
let notifier: Notifier;
let callLive = false;
const sounds: string[] = [];

beforeAll(async () => {
  discord = await startFakeDiscord();
  gemini = await startHarness({ autoReply: { toneMs: 100 } });
  receiver = await startWebhookReceiver();
  const rest = new REST({ api: discord.apiBaseUrl }).setToken(discord.botToken);
  // The bridge's voice hook: the live session speaks injected text in its next turn.
  const voice: VoiceDelivery = {
    speak(text, options) {
      if (gemini.session.state !== 'connected') return Promise.resolve({ delivered: false, reason: 'no live call' });
      return new Promise((resolve) =>
        gemini.session.sendText(text, {
          deadlineMs: options.withinMs,
          beforeHandOver: options.beforeHandOver,
          onSettled: (o) => {
            if (o.delivered) options.onHandedOver?.();
            resolve(o.delivered ? { delivered: true } : { delivered: false, reason: o.reason });
          },
        }),
      );
    },
  };
  notifier = createNotifier({
    voice: () => (callLive ? voice : null),
    discordText: new DiscordText(() => rest),
    ownerId: discord.owner.id,
    textChannelId: discord.textChannelId,
    webhookUrl: receiver.url,
    playSound: (slot) => sounds.push(slot),
    sfxEnabled: true,
    logger,
  });
});
afterAll(async () => {
  notifier?.webhook.close();
  await receiver?.close();
  await gemini?.close();
  await discord?.close();
});
beforeEach(() => {
  callLive = false;
  sounds.length = 0;
});

describe('notifications on the fakes', () => {
  it('auto with no call: the DM reaches the owner on the fake Discord, mentions off', async () => {
    const before = discord.messages.length;
    const result = await notifier.deliver({ text: 'Your build is green @everyone', title: 'CI', source: 'ci-bot' });
    expect(result).toMatchObject({
      status: 'ok',
      channel: 'dm',
      results: { voice: { status: 'skipped' }, dm: { status: 'ok' } },
    });
    const dm = discord.messages.slice(before).find((m) => m.id === result.results.dm!.message_id)!;
    expect(dm.dmRecipientId).toBe(discord.owner.id);
    expect(dm.content).toBe('**CI**\nYour build is green @\u200beveryone\n-# from ci-bot');
    expect(dm.body.allowed_mentions).toEqual({ parse: [] });
    // No call, nothing spoken: no chime.
    expect(sounds).toEqual([]);
  });

  it('channel mode posts to the configured text channel', async () => {
    const result = await notifier.deliver({ text: 'Deploy finished', mode: 'channel', title: 'Deploy' });
    expect(result.channel).toBe('channel');
    const post = discord.messages.find((m) => m.id === result.results.channel!.message_id)!;
    expect(post.channelId).toBe(discord.textChannelId);
    expect(post.dmRecipientId).toBeNull();
    expect(post.content).toBe('**Deploy**\nDeploy finished');
  });

  it('voice mode during a live call: the fake model speaks the text in its next turn', async () => {
    callLive = true;
    const turnsBefore = gemini.rec.turnCompletes;
    const result = await notifier.deliver({
      text: 'Stand-up starts in five minutes.',
      mode: 'voice',
      title: 'Reminder',
    });
    expect(result).toMatchObject({ status: 'ok', channel: 'voice', results: { voice: { status: 'ok' } } });
    await waitUntil(() => gemini.rec.turnCompletes > turnsBefore, 'the model turn with the notification');
    expect(gemini.rec.outputText).toContain('[Reminder] Stand-up starts in five minutes.');
    expect(sounds).toEqual(['notification']);
  });

  it('all: voice, DM, channel and webhook each deliver; the webhook gets the documented embed', async () => {
    callLive = true;
    const before = discord.messages.length;
    const receivedBefore = receiver.received.length;
    const result = await notifier.deliver({
      text: 'Server disk at 95%',
      mode: 'all',
      title: 'Disk',
      source: 'monitor',
      urgent: true,
    });
    expect(result.status).toBe('ok');
    expect(Object.fromEntries(Object.entries(result.results).map(([m, o]) => [m, o.status]))).toEqual({
      voice: 'ok',
      dm: 'ok',
      channel: 'ok',
      webhook: 'ok',
    });
    const fresh = discord.messages.slice(before);
    expect(fresh.map((m) => (m.dmRecipientId ? 'dm' : m.channelId)).sort()).toEqual(
      [discord.textChannelId, 'dm'].sort(),
    );
    await waitUntil(() => gemini.rec.outputText.includes('[Disk] Server disk at 95%'), 'spoken');
    const hook = receiver.received.slice(receivedBefore);
    expect(hook).toHaveLength(1);
    expect(hook[0]!.json).toMatchObject({
      allowed_mentions: { parse: [] },
      embeds: [
        {
          title: 'Disk',
          description: 'Server disk at 95%',
          fields: [
            { name: 'Event', value: 'agent.notify' },
            { name: 'Source', value: 'monitor' },
            { name: 'Urgent', value: 'yes' },
          ],
        },
      ],
    });
  });

  it('a reminder scheduled over the sidecar fires and its DM arrives on the fake Discord', async () => {
    const home = await mkdtemp(path.join(tmpdir(), 'lvb-notify-fakes-'));
    const scheduler = createScheduler({ file: scheduleFilePath(home), notifier, logger, pollMs: 50 });
    const token = 'fakes-token-'.padEnd(40, 'q');
    const sidecar = createSidecar({
      host: '127.0.0.1',
      port: 0,
      token,
      logger,
      routes: [(app) => registerNotifyRoutes(app, { notifier, scheduler })],
    });
    await sidecar.listen();
    try {
      await scheduler.start();
      const res = await fetch(`${sidecar.url}/schedule`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'Time to stretch', delay_seconds: 0.2, mode: 'dm', title: 'Reminder' }),
      });
      expect(res.status).toBe(201);
      const { scheduled } = (await res.json()) as { scheduled: string };
      const expected = '**Reminder**\nTime to stretch\n-# from scheduler';
      await waitUntil(() => discord.messages.some((m) => m.content === expected), 'scheduled DM');
      let state = '';
      for (let i = 0; i < 100 && state !== 'delivered'; i++) {
        const list = (await (
          await fetch(`${sidecar.url}/schedule`, { headers: { authorization: `Bearer ${token}` } })
        ).json()) as { entries: { id: string; state: string }[] };
        state = list.entries.find((e) => e.id === scheduled)?.state ?? '';
        if (state !== 'delivered') await new Promise((r) => setTimeout(r, 20));
      }
      expect(state).toBe('delivered');
    } finally {
      await scheduler.stop();
      await sidecar.close();
      await rm(home, { recursive: true, force: true });
    }
    const dm = discord.messages.filter((m) => m.content === '**Reminder**\nTime to stretch\n-# from scheduler');
    expect(dm).toHaveLength(1);
    expect(dm[0]!.dmRecipientId).toBe(discord.owner.id);
  });
});
