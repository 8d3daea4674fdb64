import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createWebhookDispatcher,
  type WebhookDispatcherOptions,
  type WebhookEvent,
} from '../../../main/core/notify/webhook.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.ts';

let receiver: WebhookReceiver;
let logLines: string[];
let sleeps: number[];

beforeEach(async () => {
  receiver = await startWebhookReceiver();
  logLines = [];
  sleeps = [];
});
afterEach(async () => {
  await receiver.close();
});

const T0 = Date.UTC(2026, 0, 2, 3, 4, 5);

function dispatcher(over: Partial<WebhookDispatcherOptions> = {}) {
  const logger = pino({ level: 'debug' }, { write: (line: string) => logLines.push(line) });
  return createWebhookDispatcher({
    url: receiver.url,
    logger,
    clock: { now: () => T0 },
    monotonic: { now: () => 0 }, // throttle slots run on monotonic time; frozen here like the wall clock
    // Record the waits instead of waiting: no wall-clock in tests.
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...over,
  });
}

const event = (over: Partial<WebhookEvent> = {}): WebhookEvent => ({
  eventClass: 'agent.notify',
  subEvent: 'agent_notification',
  title: 'Reminder',
  text: 'Stand-up in 5 minutes',
  source: 'scheduler',
  ...over,
});

describe('agent.notify payload', () => {
  it('posts the documented Discord-compatible embed', async () => {
    const outcome = await dispatcher().emit(event({ id: 'n-1234' }));
    expect(outcome).toEqual({ status: 'ok', detail: 'HTTP 204' });
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.headers['content-type']).toBe('application/json');
    expect(receiver.received[0]!.headers['idempotency-key']).toBe('n-1234');
    expect(receiver.received[0]!.json).toEqual({
      notification_id: 'n-1234',
      username: 'Live Voice Bridge',
      allowed_mentions: { parse: [] },
      embeds: [
        {
          title: 'Reminder',
          description: 'Stand-up in 5 minutes',
          color: 0xe67e22,
          fields: [
            { name: 'Event', value: 'agent.notify', inline: true },
            { name: 'Source', value: 'scheduler', inline: true },
          ],
          footer: { text: 'agent.notify · agent_notification' },
          timestamp: '2026-01-02T03:04:05.000Z',
        },
      ],
    });
  });

  it('urgent events are red and carry an Urgent field; mentions are defused', async () => {
    await dispatcher().emit(event({ urgent: true, text: '@everyone disk full' }));
    const embed = (receiver.received[0]!.json as { embeds: Record<string, unknown>[] }).embeds[0]!;
    expect(embed.color).toBe(0xed4245);
    expect(embed.fields).toContainEqual({ name: 'Urgent', value: 'yes', inline: true });
    expect(embed.description).toBe('@\u200beveryone disk full');
  });

  it('no URL configured → unavailable, nothing posted', async () => {
    const d = dispatcher({ url: undefined });
    expect(d.configured).toBe(false);
    expect(await d.emit(event())).toEqual({ status: 'unavailable', detail: 'no webhook URL configured' });
    expect(receiver.received).toHaveLength(0);
  });
});

describe('throttling per event class', () => {
  it('delays (not drops) events inside the window, counts them, and urgent bypasses', async () => {
    const d = dispatcher({ throttleSeconds: 2 });
    const outcomes = await Promise.all([
      d.emit(event({ text: 'one' })),
      d.emit(event({ text: 'two' })),
      d.emit(event({ text: 'three' })),
      d.emit(event({ eventClass: 'bridge.status', text: 'other class' })),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(outcomes[1]!.detail).toContain('delayed 2.0 s by throttling');
    expect(sleeps).toEqual([2000, 4000]); // one window apart; the other class is not held back
    const urgent = await d.emit(event({ text: 'urgent', urgent: true }));
    expect(urgent.status).toBe('ok');
    expect(sleeps).toEqual([2000, 4000]); // urgent did not wait for the reserved slots
    const texts = receiver.received.map(
      (r) => (r.json as { embeds: { description: string }[] }).embeds[0]!.description,
    );
    expect(texts.sort()).toEqual(['one', 'other class', 'three', 'two', 'urgent']);
    expect(d.stats()).toMatchObject({ sent: 5, throttled: 2, urgent: 1, dropped: 0 });
  });

  it('refuses an event whose slot is further away than the wait bound, and counts it', async () => {
    const d = dispatcher({ throttleSeconds: 10, maxThrottleWaitMs: 15_000 });
    const [a, b, c] = await Promise.all([
      d.emit(event({ text: 'a' })),
      d.emit(event({ text: 'b' })),
      d.emit(event({ text: 'c' })),
    ]);
    expect(a.status).toBe('ok');
    expect(b.status).toBe('ok');
    expect(c).toEqual({
      status: 'throttled',
      detail: 'throttled: next agent.notify slot is 20 s away; event not sent',
    });
    expect(receiver.received).toHaveLength(2);
    const urgent = await d.emit(event({ text: 'now', urgent: true }));
    expect(urgent.status).toBe('ok');
    expect(d.stats()).toMatchObject({ sent: 3, throttled: 1, dropped: 1, urgent: 1 });
  });

  it('bounded queue: beyond queueLimit pending events are refused', async () => {
    const releases: (() => void)[] = [];
    const d = dispatcher({ queueLimit: 2, sleep: (ms) => new Promise((r) => (sleeps.push(ms), releases.push(r))) });
    const first = d.emit(event({ text: '1' }));
    const second = d.emit(event({ text: '2' })); // waits for its throttle slot
    const third = d.emit(event({ text: '3' }));
    expect(await third).toEqual({ status: 'throttled', detail: 'webhook queue full (2 pending); event not sent' });
    await first;
    releases.forEach((r) => r());
    expect((await second).status).toBe('ok');
    expect(d.stats()).toMatchObject({ sent: 2, dropped: 1 });
  });
});

describe('retries', () => {
  it('honours 429 Retry-After (header seconds)', async () => {
    receiver.script.push({ status: 429, headers: { 'retry-after': '3' } }, { status: 204 });
    const outcome = await dispatcher().emit(event());
    expect(outcome).toEqual({ status: 'ok', detail: 'HTTP 204 after 2 attempts' });
    expect(sleeps).toEqual([3000]);
    expect(receiver.received).toHaveLength(2);
  });

  it("honours Discord's JSON retry_after when there is no header", async () => {
    receiver.script.push({
      status: 429,
      headers: { 'content-type': 'application/json' },
      body: '{"message":"You are being rate limited.","retry_after":1.5,"global":false}',
    });
    const outcome = await dispatcher().emit(event());
    expect(outcome.status).toBe('ok');
    expect(sleeps).toEqual([1500]);
  });

  it('gives up when Retry-After exceeds the bound', async () => {
    receiver.script.push({ status: 429, headers: { 'retry-after': '600' } });
    const d = dispatcher();
    const outcome = await d.emit(event());
    expect(outcome).toEqual({
      status: 'error',
      detail: 'HTTP 429 rate limited; retry-after 600 s exceeds the 60 s bound',
    });
    expect(receiver.received).toHaveLength(1);
    expect(d.stats().failed).toBe(1);
  });

  it('retries 5xx with exponential backoff, then succeeds', async () => {
    receiver.script.push({ status: 500 }, { status: 502 }, { status: 200, body: '{}' });
    const d = dispatcher();
    expect(await d.emit(event())).toEqual({ status: 'ok', detail: 'HTTP 200 after 3 attempts' });
    expect(sleeps).toEqual([1000, 2000]);
    expect(d.stats()).toMatchObject({ sent: 1, retries: 2, failed: 0 });
  });

  it('stops after maxAttempts of 5xx and reports the last status', async () => {
    receiver.script.push({ status: 503 }, { status: 503 }, { status: 503 }, { status: 204 });
    const d = dispatcher({ maxAttempts: 3 });
    expect(await d.emit(event())).toEqual({ status: 'error', detail: 'HTTP 503' });
    expect(receiver.received).toHaveLength(3);
    expect(d.stats()).toMatchObject({ failed: 1, retries: 2 });
  });

  it('does not retry a 4xx other than 429', async () => {
    receiver.script.push({ status: 404, body: '{"message":"Unknown Webhook"}' });
    expect(await dispatcher().emit(event())).toEqual({ status: 'error', detail: 'HTTP 404' });
    expect(receiver.received).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('a request sent but never answered has an unknown outcome and is NOT re-sent', async () => {
    receiver.script.push({ hang: true }, { hang: true });
    const d = dispatcher({ timeoutMs: 200, maxAttempts: 4 });
    const outcome = await d.emit(event());
    expect(outcome).toEqual({
      status: 'unknown',
      detail: 'no answer within 200 ms after the request was sent; not re-sent (the receiver may have acted on it)',
    });
    expect(receiver.received).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(d.stats()).toMatchObject({ unknown: 1, retries: 0, sent: 0 });
  });

  it('reports a refused connection as a network error', async () => {
    const url = receiver.url;
    await receiver.close();
    const outcome = await dispatcher({ url, maxAttempts: 2 }).emit(event());
    expect(outcome.status).toBe('error');
    expect(outcome.detail).toMatch(/^network error/);
    receiver = await startWebhookReceiver(); // afterEach closes it
  });

  it('never logs or returns the URL', async () => {
    receiver.script.push({ status: 500 }, { status: 500 }, { status: 400 }, { hang: true });
    const d = dispatcher({ maxAttempts: 3, timeoutMs: 100 });
    const a = await d.emit(event());
    const b = await d.emit(event());
    const secretPart = new URL(receiver.url).pathname.split('/').pop()!;
    const port = new URL(receiver.url).port;
    expect(logLines.length).toBeGreaterThan(0);
    for (const text of [...logLines, JSON.stringify([a, b])]) {
      expect(text).not.toContain(secretPart);
      expect(text).not.toContain(`127.0.0.1:${port}`);
    }
  });
});

describe('delivery semantics against real receivers: each notification acted on once', () => {
  /** What a receiver honouring Idempotency-Key would act on: answered 2xx (or answered late), once per id. */
  const keysOf = (r: WebhookReceiver) => r.received.map((x) => x.headers['idempotency-key']);

  it('a slow receiver that answers after the timeout gets exactly one POST per notification', async () => {
    // Each answers 200 — but only after our timeout: it DID act on it.
    receiver.script.push(
      { status: 200, delayMs: 600 },
      { status: 200, delayMs: 600 },
      { status: 200, delayMs: 600 },
      { status: 200, delayMs: 600 },
    );
    const d = dispatcher({ timeoutMs: 150, maxAttempts: 4 });
    const outcomes = await Promise.all([
      d.emit(event({ id: 'n-a', urgent: true })),
      d.emit(event({ id: 'n-b', urgent: true })),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['unknown', 'unknown']);
    expect(keysOf(receiver).sort()).toEqual(['n-a', 'n-b']);
    const perId = new Map<string, number>();
    for (const r of receiver.received) {
      const id = (r.json as { notification_id: string }).notification_id;
      perId.set(id, (perId.get(id) ?? 0) + 1);
    }
    expect(Object.fromEntries(perId)).toEqual({ 'n-a': 1, 'n-b': 1 });
  });

  it('a receiver answering 503 then recovering gets every attempt under the same key, and accepts it once', async () => {
    receiver.script.push({ status: 503 }, { status: 502 }, { status: 200 });
    const outcome = await dispatcher().emit(event({ id: 'n-retry' }));
    expect(outcome).toEqual({ status: 'ok', detail: 'HTTP 200 after 3 attempts' });
    expect(keysOf(receiver)).toEqual(['n-retry', 'n-retry', 'n-retry']);
    expect(receiver.received.map((r) => (r.json as { notification_id: string }).notification_id)).toEqual([
      'n-retry',
      'n-retry',
      'n-retry',
    ]);
  });

  it('a receiver that refuses connections, then comes back up, gets the notification exactly once', async () => {
    const url = receiver.url;
    const port = Number(new URL(url).port);
    await receiver.close();
    let revived: WebhookReceiver | undefined;
    const d = dispatcher({
      url,
      sleep: async (ms) => {
        sleeps.push(ms);
        // The backoff wait is when the receiver recovers.
        revived ??= await startWebhookReceiver(port);
      },
    });
    const outcome = await d.emit(event({ id: 'n-back' }));
    expect(outcome).toEqual({ status: 'ok', detail: 'HTTP 204 after 2 attempts' });
    expect(sleeps).toEqual([1000]);
    expect(revived!.received).toHaveLength(1);
    expect(keysOf(revived!)).toEqual(['n-back']);
    receiver = revived!; // afterEach closes it
  });
});
