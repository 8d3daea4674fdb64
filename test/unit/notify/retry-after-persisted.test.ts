// A receiver's Retry-After longer than the webhook's in-process bound (60 s) is not a failure for a
// scheduled reminder: the entry is written back `scheduled` for that time (on disk, so it holds
// across restarts), with one POST made and nothing written off.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { expect, it } from 'vitest';
import { createNotifier } from '../../../main/core/notify/dispatcher.ts';
import { scheduleFilePath } from '../../../main/core/notify/schedule-store.ts';
import { createScheduler } from '../../../main/core/notify/scheduler.ts';
import { startWebhookReceiver } from './webhook-receiver.ts';

it('a 429 asking for 2 minutes leaves the reminder scheduled for then, not failed', async () => {
  const home = await mkdtemp(path.join(tmpdir(), 'lvb-retry-after-'));
  const receiver = await startWebhookReceiver();
  receiver.script.push({ status: 429, headers: { 'retry-after': '120' } });
  const logger = pino({ level: 'silent' });
  const notifier = createNotifier({
    voice: () => null,
    discordText: null,
    webhookUrl: receiver.url,
    throttleSeconds: 0,
    sfxEnabled: false,
    logger,
  });
  const scheduler = createScheduler({ file: scheduleFilePath(home), notifier, logger });
  try {
    const entry = await scheduler.schedule({ text: 'Call the dentist', delay_seconds: 0, mode: 'webhook' });
    const before = Date.now() / 1000;
    await scheduler.tick();
    expect(receiver.received).toHaveLength(1);
    const view = (await scheduler.list()).entries.find((e) => e.id === entry.id)!;
    expect(view.state).toBe('scheduled');
    expect(view.next_attempt_at!).toBeGreaterThanOrEqual(before + 119);
    expect(view.last_error).toMatch(/HTTP 429/);
    // Nothing more is sent before that time.
    expect(await scheduler.tick()).toBe(0);
    expect(receiver.received).toHaveLength(1);
  } finally {
    await scheduler.stop();
    notifier.webhook.close();
    await receiver.close();
    await rm(home, { recursive: true, force: true });
  }
});
