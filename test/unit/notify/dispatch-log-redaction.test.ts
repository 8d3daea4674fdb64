// The "notification dispatched" line must show the webhook mode's outcome (the audit saw
// `"webhook":"[REDACTED]"`), while the webhook URL itself never reaches the log.
import { describe, expect, it, afterEach, beforeEach } from 'vitest';
import { createLogger } from '../../../main/core/log/logger.ts';
import { createNotifier } from '../../../main/core/notify/dispatcher.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.ts';

let receiver: WebhookReceiver;
beforeEach(async () => {
  receiver = await startWebhookReceiver();
});
afterEach(async () => {
  await receiver.close();
});

function capture() {
  const lines: string[] = [];
  return { lines, destination: { write: (l: string) => void lines.push(l) } };
}

describe('log redaction and the webhook outcome', () => {
  it('the dispatched line shows outcomes.webhook; the URL (a configured secret) is nowhere in the log', async () => {
    const url = `${receiver.url}/api/webhooks/123456789012345678/abcdefghijklmnopqrstuvwxyz0123456789`;
    const { lines, destination } = capture();
    const logger = createLogger({ level: 'info', secrets: [url], destination });
    const notifier = createNotifier({
      voice: () => null,
      discordText: null,
      webhookUrl: url,
      sfxEnabled: false,
      logger,
    });
    const result = await notifier.deliver({ text: 'build finished', mode: 'webhook' });
    expect(result.status).toBe('ok');
    const dispatched = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'notification dispatched')!;
    expect(dispatched).toMatchObject({
      mode: 'webhook',
      status: 'ok',
      delivered: 'webhook',
      outcomes: { webhook: 'ok' },
    });
    expect(lines.join('')).not.toContain('/api/webhooks/123456789012345678');
    notifier.webhook.close();
  });

  it('webhook URL and secret keys are still redacted by key, a bare webhook outcome is not', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ level: 'info', destination });
    logger.info(
      {
        webhook_url: 'https://example.test/hook?t=1',
        webhookUrl: 'https://example.test/x',
        webhook_secret: 's3cr3t-value',
        outcomes: { webhook: 'error' },
      },
      'x',
    );
    expect(JSON.parse(lines[0]!)).toMatchObject({
      webhook_url: '[REDACTED]',
      webhookUrl: '[REDACTED]',
      webhook_secret: '[REDACTED]',
      outcomes: { webhook: 'error' },
    });
  });
});
