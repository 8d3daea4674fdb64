import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { DeliveryOutcome, NotifyRequest } from '../../../main/core/api-types.ts';
import type { DiscordTextPort, SentMessage } from '../../../main/core/ports.ts';
import { createNotifier, type NotifierDeps } from '../../../main/core/notify/dispatcher.ts';
import { NotifyInputError } from '../../../main/core/notify/types.ts';
import type { WebhookDispatcher, WebhookEvent } from '../../../main/core/notify/webhook.ts';

const logger = pino({ level: 'silent' });
const OWNER = '100000000000000001';
const CHANNEL = '100000000000000002';

type Behaviour = 'ok' | 'fail' | 'absent';

function rig(
  b: { voice?: Behaviour; dm?: Behaviour; channel?: Behaviour; webhook?: Behaviour } = {},
  extra: Partial<NotifierDeps> = {},
) {
  const calls: string[] = [];
  const spoken: string[] = [];
  const posts: { kind: 'dm' | 'channel'; target: string; text: string }[] = [];
  const events: WebhookEvent[] = [];
  const sounds: string[] = [];
  let n = 0;
  const port: DiscordTextPort = {
    async sendDirectMessage(userId, text): Promise<SentMessage> {
      calls.push('dm');
      if (b.dm === 'fail') throw new Error('Cannot send messages to this user');
      posts.push({ kind: 'dm', target: userId, text });
      return { messageId: `m${++n}`, channelId: 'dmchan' };
    },
    async postToChannel(channelId, text): Promise<SentMessage> {
      calls.push('channel');
      if (b.channel === 'fail') throw new Error('Missing Access');
      posts.push({ kind: 'channel', target: channelId, text });
      return { messageId: `m${++n}`, channelId };
    },
  };
  const webhook: WebhookDispatcher = {
    configured: b.webhook !== 'absent',
    async emit(event): Promise<DeliveryOutcome> {
      calls.push('webhook');
      if (b.webhook === 'fail') return { status: 'error', detail: 'HTTP 500' };
      events.push(event);
      return { status: 'ok', detail: 'HTTP 204' };
    },
    stats: () => ({ sent: 0, failed: 0, throttled: 0, dropped: 0, urgent: 0, retries: 0, unknown: 0 }),
    close() {},
  };
  const notifier = createNotifier({
    voice: () =>
      b.voice === 'absent'
        ? null
        : {
            async speak(text, options) {
              calls.push('voice');
              if (b.voice === 'fail')
                return { delivered: false, reason: 'the call ended before the text could be spoken' };
              // Like the bridge: asked at the pause, right before the hand-over.
              if (options.beforeHandOver && !(await options.beforeHandOver()))
                return { delivered: false, reason: 'refused' };
              spoken.push(text);
              options.onHandedOver?.();
              return { delivered: true };
            },
          },
    discordText: b.dm === 'absent' && b.channel === 'absent' ? null : port,
    ownerId: b.dm === 'absent' ? undefined : OWNER,
    textChannelId: b.channel === 'absent' ? undefined : CHANNEL,
    webhook,
    playSound: (slot) => sounds.push(slot),
    sfxEnabled: true,
    logger,
    clock: { now: () => 1_700_000_000_250 },
    ...extra,
  });
  return { notifier, calls, spoken, posts, events, sounds };
}

const req = (over: Partial<NotifyRequest> = {}): NotifyRequest => ({
  text: 'Build finished',
  title: 'CI',
  source: 'test',
  ...over,
});

describe('deliver: auto order voice → dm → channel → webhook', () => {
  it('voice first when a live call takes the text', async () => {
    const r = rig();
    const result = await r.notifier.deliver(req());
    expect(result).toEqual({
      id: expect.stringMatching(/^n-/),
      status: 'ok',
      channel: 'voice',
      results: { voice: { status: 'ok', queued: true } },
      notified_at: 1_700_000_000.25,
    });
    expect(r.spoken).toEqual(['[CI] Build finished']);
    expect(r.calls).toEqual(['voice']);
    expect(r.sounds).toEqual(['notification']);
  });

  it('no live call → dm wins, voice skipped', async () => {
    const r = rig({ voice: 'absent' });
    const result = await r.notifier.deliver(req());
    expect(result.status).toBe('ok');
    expect(result.channel).toBe('dm');
    expect(result.results.voice).toEqual({ status: 'skipped', detail: 'no live call', queued: false });
    expect(result.results.dm).toEqual({ status: 'ok', message_id: 'm1' });
    expect(r.sounds).toEqual([]);
    expect(result.results.channel).toBeUndefined();
    expect(r.posts).toEqual([{ kind: 'dm', target: OWNER, text: '**CI**\nBuild finished\n-# from test' }]);
  });

  it('voice text dropped, dm fails → channel wins', async () => {
    const r = rig({ voice: 'fail', dm: 'fail' });
    const result = await r.notifier.deliver(req());
    expect(r.calls).toEqual(['voice', 'dm', 'channel']);
    expect(result.channel).toBe('channel');
    expect(result.results.voice).toEqual({
      status: 'unavailable',
      detail: 'the call ended before the text could be spoken',
      queued: false,
    });
    expect(result.results.dm).toEqual({ status: 'error', detail: 'Cannot send messages to this user' });
    expect(r.posts[0]).toMatchObject({ kind: 'channel', target: CHANNEL });
  });

  it('voice, dm, channel fail → webhook wins', async () => {
    const r = rig({ voice: 'fail', dm: 'fail', channel: 'fail' });
    const result = await r.notifier.deliver(req());
    expect(r.calls).toEqual(['voice', 'dm', 'channel', 'webhook']);
    expect(result).toMatchObject({ status: 'ok', channel: 'webhook' });
    expect(result.results.channel).toEqual({ status: 'error', detail: 'Missing Access' });
    expect(r.events[0]).toMatchObject({
      eventClass: 'agent.notify',
      title: 'CI',
      text: 'Build finished',
      source: 'test',
    });
  });

  it('everything fails → error, every failure recorded, no sound', async () => {
    const r = rig({ voice: 'fail', dm: 'fail', channel: 'fail', webhook: 'fail' });
    const result = await r.notifier.deliver(req());
    expect(result.status).toBe('error');
    expect(result.channel).toBeUndefined();
    expect(Object.keys(result.results)).toEqual(['voice', 'dm', 'channel', 'webhook']);
    expect(result.results.webhook).toEqual({ status: 'error', detail: 'HTTP 500' });
    expect(r.sounds).toEqual([]);
  });

  it('nothing configured and no call → error, every mode skipped with its reason', async () => {
    const r = rig({ voice: 'absent', dm: 'absent', channel: 'absent', webhook: 'absent' });
    const result = await r.notifier.deliver(req());
    expect(result.status).toBe('error');
    expect(result.results).toEqual({
      voice: { status: 'skipped', detail: 'no live call', queued: false },
      dm: { status: 'skipped', detail: 'no Discord bot configured' },
      channel: { status: 'skipped', detail: 'no Discord bot configured' },
      webhook: { status: 'skipped', detail: 'no webhook URL configured' },
    });
    expect(r.calls).toEqual([]);
  });

  it('a bot that is configured but not connected is unavailable, not skipped', async () => {
    const r = rig({ voice: 'absent' }, { discordText: () => null, discordConfigured: true });
    const result = await r.notifier.deliver(req());
    expect(result.results.dm).toEqual({ status: 'unavailable', detail: 'Discord bot is not connected' });
    expect(result.channel).toBe('webhook');
  });

  it('an unknown webhook outcome (sent, never answered) ends the fall-through and is reported as such', async () => {
    const unknown: WebhookDispatcher = {
      configured: true,
      emit: async () => ({ status: 'unknown', detail: 'no answer within 8000 ms after the request was sent' }),
      stats: () => ({ sent: 0, failed: 0, throttled: 0, dropped: 0, urgent: 0, retries: 0, unknown: 1 }),
      close() {},
    };
    const r = rig({ voice: 'absent', dm: 'fail', channel: 'fail' }, { webhook: unknown });
    const result = await r.notifier.deliver(req());
    // It may have been delivered: `unknown` overall, never `error` (which invites a re-send).
    expect(result.status).toBe('unknown');
    expect(result.results.webhook?.status).toBe('unknown');
  });
});

describe('deliver: all (concurrent) reports the truth', () => {
  it('all four ok → ok', async () => {
    const r = rig();
    const result = await r.notifier.deliver(req({ mode: 'all' }));
    expect(result.status).toBe('ok');
    expect(result.channel).toBeUndefined();
    expect(result.channels).toEqual(['voice', 'dm', 'channel', 'webhook']);
    expect(Object.values(result.results).map((o) => o.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(r.posts.map((p) => p.kind).sort()).toEqual(['channel', 'dm']);
    expect(r.events).toHaveLength(1);
  });

  for (const failing of ['voice', 'dm', 'channel', 'webhook'] as const) {
    it(`${failing} fails → partial, the others delivered`, async () => {
      const r = rig({ [failing]: 'fail' });
      const result = await r.notifier.deliver(req({ mode: 'all' }));
      expect(result.status).toBe('partial');
      expect(result.channels).not.toContain(failing);
      expect(result.channels).toHaveLength(3);
      expect(result.results[failing]?.status).not.toBe('ok');
      for (const other of ['voice', 'dm', 'channel', 'webhook'] as const) {
        if (other !== failing) expect(result.results[other]?.status).toBe('ok');
      }
      // The chime goes with the spoken text only.
      expect(r.sounds).toEqual(failing === 'voice' ? [] : ['notification']);
    });
  }

  it('nothing delivered → error (never "partial")', async () => {
    const r = rig({ voice: 'fail', dm: 'fail', channel: 'fail', webhook: 'fail' });
    const result = await r.notifier.deliver(req({ mode: 'all' }));
    expect(result.status).toBe('error');
    expect(result.channels).toEqual([]);
    expect(r.sounds).toEqual([]);
  });

  it('modes that are not configured (skipped) do not count against ok', async () => {
    const r = rig({ channel: 'absent' }, { textChannelId: undefined });
    const result = await r.notifier.deliver(req({ mode: 'all' }));
    expect(result.results.channel).toEqual({ status: 'skipped', detail: 'no text channel configured' });
    expect(result.status).toBe('ok');
  });

  it('all is ok without a Discord bot or a call when the webhook (the only destination) delivered', async () => {
    const r = rig({ voice: 'absent', dm: 'absent', channel: 'absent' });
    const result = await r.notifier.deliver(req({ mode: 'all' }));
    expect(result).toMatchObject({ status: 'ok', channels: ['webhook'] });
    expect(result.results.dm?.status).toBe('skipped');
    expect(result.results.voice?.status).toBe('skipped');
  });

  it('runs the four attempts concurrently', async () => {
    let inFlight = 0;
    let peak = 0;
    const slow = async (): Promise<SentMessage> => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 20));
      inFlight--;
      return { messageId: 'x', channelId: 'y' };
    };
    const r = rig({}, { discordText: { sendDirectMessage: slow, postToChannel: slow } });
    await r.notifier.deliver(req({ mode: 'all' }));
    expect(peak).toBe(2);
  });
});

describe('deliver: single modes and input errors', () => {
  it('voice with no live call falls through to the other modes', async () => {
    const r = rig({ voice: 'absent' });
    const result = await r.notifier.deliver(req({ mode: 'voice' }));
    expect(result).toMatchObject({ status: 'ok', channel: 'dm' });
    expect(result.results.voice?.status).toBe('skipped');
  });

  it('dm only: a failure is an error, no fall-through', async () => {
    const r = rig({ dm: 'fail' });
    const result = await r.notifier.deliver(req({ mode: 'dm' }));
    expect(result).toMatchObject({ status: 'error' });
    expect(result.channel).toBeUndefined();
    expect(Object.keys(result.results)).toEqual(['dm']);
    expect(r.calls).toEqual(['dm']);
  });

  it('webhook only passes urgent through', async () => {
    const r = rig();
    const result = await r.notifier.deliver(req({ mode: 'webhook', urgent: true }));
    expect(result.channel).toBe('webhook');
    expect(r.events[0]?.urgent).toBe(true);
  });

  it('a hung Discord send is aborted when its time is up and is `unknown` (it may have reached Discord): auto stops there', async () => {
    const signals: AbortSignal[] = [];
    const never = (_target: string, _text: string, options?: { signal?: AbortSignal }): Promise<SentMessage> => {
      signals.push(options!.signal!);
      return new Promise(() => {});
    };
    const r = rig(
      { voice: 'absent' },
      { discordText: { sendDirectMessage: never, postToChannel: never }, discordTimeoutMs: 30 },
    );
    const result = await r.notifier.deliver(req());
    expect(result.results.dm).toEqual({
      status: 'unknown',
      detail:
        'timeout after 30 ms, twice (sent again with the same nonce); it may have reached Discord (not sent elsewhere)',
    });
    // Not re-sent through the channel or the webhook: that could deliver the notification twice.
    expect(result.status).toBe('unknown');
    expect(result.channel).toBeUndefined();
    expect(Object.keys(result.results)).toEqual(['voice', 'dm']);
    expect(r.events).toEqual([]);
    // Sent once more under the same nonce, and both were told to stop: a REST client honouring the
    // signal drops a send still queued.
    expect(signals).toHaveLength(2);
    expect(signals.every((s) => s.aborted)).toBe(true);
  });

  it('empty text and unknown mode are rejected with codes', async () => {
    const r = rig();
    await expect(r.notifier.deliver({ text: '   ' })).rejects.toMatchObject({
      name: 'NotifyInputError',
      code: 'empty_text',
    });
    await expect(r.notifier.deliver({ text: 'x', mode: 'pigeon' as never })).rejects.toBeInstanceOf(NotifyInputError);
    await expect(r.notifier.deliver({ text: 'x', mode: 'pigeon' as never })).rejects.toMatchObject({
      code: 'unknown_mode',
    });
    expect(r.calls).toEqual([]);
  });

  it('records each dispatch in the notes log when one is given', async () => {
    const notes: { kind: string; text: string; speaker?: string }[] = [];
    const r = rig({ voice: 'absent' }, { notes: { append: (e) => (notes.push(e), { id: '1', ts: 0, ...e }) } });
    await r.notifier.deliver(req());
    expect(notes).toEqual([{ kind: 'notification', speaker: 'test', text: '[auto → dm: ok] CI: Build finished' }]);
  });

  it('the notes record why earlier modes did not deliver', async () => {
    const notes: { kind: string; text: string; speaker?: string }[] = [];
    const r = rig({ voice: 'fail' }, { notes: { append: (e) => (notes.push(e), { id: '1', ts: 0, ...e }) } });
    await r.notifier.deliver(req());
    expect(notes[0]!.text).toBe(
      '[auto → dm: ok; voice: unavailable (the call ended before the text could be spoken)] CI: Build finished',
    );
  });

  it('sfx disabled → no sound', async () => {
    const r = rig({}, { sfxEnabled: false });
    await r.notifier.deliver(req());
    expect(r.sounds).toEqual([]);
  });

  it('sfx as a live setting: asked at each chime, so a saved change applies without a restart', async () => {
    let enabled = true;
    const r = rig({}, { sfxEnabled: () => enabled });
    await r.notifier.deliver(req());
    enabled = false;
    await r.notifier.deliver(req());
    expect(r.sounds).toEqual(['notification']);
  });

  it('Discord text never pings and fits 2000 chars', async () => {
    const r = rig({ voice: 'absent' });
    await r.notifier.deliver(
      req({ text: `@everyone <@${OWNER}> <@&${CHANNEL}> ${'x'.repeat(3000)}`, title: '@here alert' }),
    );
    const text = r.posts[0]!.text;
    expect(Array.from(text).length).toBeLessThanOrEqual(2000);
    expect(text).not.toMatch(/@everyone|@here|<@\d|<@&\d/);
    expect(text.endsWith('…\n-# from test')).toBe(true);
  });
});
