// The logger scrubs run-time secrets with the same redactor as sora_redact: messages, merged
// fields and error messages, while ordinary fields pass unchanged.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../main/core/log/logger.ts';
import { redactText } from '../../../main/core/tools/helpers/index.ts';
import { FakeSecrets } from './fake-secrets.ts';

describe('logger + redactText', () => {
  it('redacts secrets found at run time in log lines', () => {
    const fakes = new FakeSecrets(11);
    const hook = fakes.discordWebhook();
    const key = fakes.googleApiKey();
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const logger = createLogger({ destination, redactText, level: 'info' });
    logger.info(
      { url: `wss://live.example.test/ws?key=${key}`, version: '1.2.3', host: 'api.example.com' },
      `posting to ${hook}`,
    );
    logger.error({ err: new Error(`request to ${hook} failed`) }, 'webhook failed');
    const out = lines.join('');
    expect(out).not.toContain(hook);
    expect(out).not.toContain(key);
    const first = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(first).toMatchObject({
      msg: 'posting to [REDACTED:discord_webhook]',
      url: 'wss://live.example.test/ws?key=[REDACTED:google_api_key]',
      version: '1.2.3',
      host: 'api.example.com',
    });
    expect((JSON.parse(lines[1]!) as { err: { message: string } }).err.message).toBe(
      'request to [REDACTED:discord_webhook] failed',
    );
  });
});
