// The overall status of a notification: a delivery whose outcome is unknown (a send went out and got
// no answer: it may have been delivered) is `unknown`, never `error`, which reads as "not delivered,
// send it again" and delivered it twice. `all` with some `ok` stays `partial`.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { DeliveryOutcome, DeliveryStatus, NotifyMode } from '../../../main/core/api-types.ts';
import type { DiscordTextPort, SentMessage } from '../../../main/core/ports.ts';
import { createNotifier, overallStatus } from '../../../main/core/notify/dispatcher.ts';
import type { WebhookDispatcher } from '../../../main/core/notify/webhook.ts';

const logger = pino({ level: 'silent' });
const o = (status: DeliveryStatus): DeliveryOutcome => ({ status });

describe('overallStatus', () => {
  const cases: [DeliveryStatus[], boolean, string][] = [
    [['ok'], false, 'ok'],
    [['unavailable', 'ok'], false, 'ok'],
    [['error'], false, 'error'],
    [['skipped', 'unavailable', 'error'], false, 'error'],
    [['unknown'], false, 'unknown'],
    [['unavailable', 'unknown'], false, 'unknown'],
    [['skipped', 'error', 'unknown'], false, 'unknown'],
    // all: every configured (non-skipped) destination
    [['ok', 'ok', 'skipped', 'ok'], true, 'ok'],
    [['ok', 'error', 'ok', 'ok'], true, 'partial'],
    [['ok', 'unknown', 'error', 'skipped'], true, 'partial'],
    [['ok', 'unknown', 'unknown', 'unknown'], true, 'partial'],
    [['error', 'unknown', 'unavailable', 'skipped'], true, 'unknown'],
    [['unknown', 'unknown', 'unknown', 'unknown'], true, 'unknown'],
    [['error', 'unavailable', 'throttled', 'skipped'], true, 'error'],
    [['skipped', 'skipped', 'skipped', 'skipped'], true, 'error'],
  ];
  for (const [statuses, every, expected] of cases) {
    it(`${every ? 'all' : 'one'} of [${statuses.join(', ')}] → ${expected}`, () => {
      expect(overallStatus(statuses.map(o), every)).toBe(expected);
    });
  }
});

/** A notifier whose DM and channel sends hang (aborted at their timeout: `unknown`) or fail, and whose webhook gives `webhook`. */
function rig(
  discord: { dm: 'ok' | 'hang' | 'fail'; channel: 'ok' | 'hang' | 'fail' },
  webhookOutcome: DeliveryOutcome,
) {
  const send = (how: 'ok' | 'hang' | 'fail') => (): Promise<SentMessage> =>
    how === 'ok'
      ? Promise.resolve({ messageId: 'm1', channelId: 'c1' })
      : how === 'hang'
        ? new Promise<SentMessage>(() => {})
        : Promise.reject(new Error('Missing Access'));
  const port: DiscordTextPort = { sendDirectMessage: send(discord.dm), postToChannel: send(discord.channel) };
  const webhook: WebhookDispatcher = {
    configured: true,
    emit: async () => webhookOutcome,
    stats: () => ({ sent: 0, failed: 0, throttled: 0, dropped: 0, urgent: 0, retries: 0, unknown: 0 }),
    close() {},
  };
  return createNotifier({
    voice: () => null,
    discordText: port,
    ownerId: '1',
    textChannelId: '2',
    webhook,
    sfxEnabled: false,
    logger,
    discordTimeoutMs: 20,
  });
}

const deliver = (mode: NotifyMode, notifier: ReturnType<typeof rig>) =>
  notifier.deliver({ text: 'Build finished', mode });

describe('deliver: an outcome that may have been delivered', () => {
  it('auto: a DM aborted at its timeout is `unknown` overall, and nothing else is tried', async () => {
    const result = await deliver('auto', rig({ dm: 'hang', channel: 'ok' }, { status: 'ok' }));
    expect(result.status).toBe('unknown');
    expect(result.channel).toBeUndefined();
    expect(Object.keys(result.results)).toEqual(['voice', 'dm']);
  });

  it('auto: failures before a webhook with no answer → `unknown`', async () => {
    const result = await deliver(
      'auto',
      rig({ dm: 'fail', channel: 'fail' }, { status: 'unknown', detail: 'no answer' }),
    );
    expect(result.status).toBe('unknown');
    expect(result.results.dm?.status).toBe('error');
  });

  it('a single mode with no answer → `unknown`; a single mode that failed → `error`', async () => {
    expect(
      (await deliver('webhook', rig({ dm: 'ok', channel: 'ok' }, { status: 'unknown', detail: 'no answer' }))).status,
    ).toBe('unknown');
    expect((await deliver('channel', rig({ dm: 'ok', channel: 'hang' }, { status: 'ok' }))).status).toBe('unknown');
    expect((await deliver('dm', rig({ dm: 'fail', channel: 'ok' }, { status: 'ok' }))).status).toBe('error');
  });

  it('all: nothing `ok` but one `unknown` → `unknown`', async () => {
    const result = await deliver('all', rig({ dm: 'hang', channel: 'fail' }, { status: 'error', detail: 'HTTP 404' }));
    expect(result.status).toBe('unknown');
    expect(result.channels).toEqual([]);
  });

  it('all: some `ok` and some `unknown` stays `partial`', async () => {
    const result = await deliver('all', rig({ dm: 'ok', channel: 'hang' }, { status: 'unknown', detail: 'no answer' }));
    expect(result.status).toBe('partial');
    expect(result.channels).toEqual(['dm']);
    expect(result.results.channel?.status).toBe('unknown');
  });

  it('all: nothing `ok` and nothing `unknown` is still `error`', async () => {
    const result = await deliver('all', rig({ dm: 'fail', channel: 'fail' }, { status: 'error', detail: 'HTTP 404' }));
    expect(result.status).toBe('error');
  });
});
