// The webhook throttle runs on monotonic time: a wall clock stepped back (NTP, a manual change) must
// not push the next slot away by the size of the step (audit: "next agent.notify slot is 3602 s away").
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebhookDispatcher, type WebhookEvent } from '../../../main/core/notify/webhook.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.ts';

let receiver: WebhookReceiver;
beforeEach(async () => {
  receiver = await startWebhookReceiver();
});
afterEach(async () => {
  await receiver.close();
});

const event = (text: string): WebhookEvent => ({ eventClass: 'agent.notify', title: 'Reminder', text });

describe('webhook throttle and wall-clock steps', () => {
  it('a wall clock set back one hour does not throttle the next event', async () => {
    let wall = Date.UTC(2026, 5, 1, 12, 0, 0);
    let mono = 10_000;
    const sleeps: number[] = [];
    const d = createWebhookDispatcher({
      url: receiver.url,
      logger: pino({ level: 'silent' }),
      clock: { now: () => wall },
      monotonic: { now: () => mono },
      throttleSeconds: 2,
      sleep: async (ms) => {
        sleeps.push(ms);
        mono += ms;
        wall += ms;
      },
    });
    expect(await d.emit(event('first'))).toEqual({ status: 'ok', detail: 'HTTP 204' });
    wall -= 3600_000; // the wall clock steps back an hour; monotonic time does not
    mono += 5_000;
    const second = await d.emit(event('second'));
    expect(second).toEqual({ status: 'ok', detail: 'HTTP 204' });
    wall += 1800_000; // 30 minutes later (still before the first emit in wall time)
    mono += 1800_000;
    expect((await d.emit(event('third'))).status).toBe('ok');
    expect(
      receiver.received.map((r) => (r.json as { embeds: { description: string }[] }).embeds[0]!.description),
    ).toEqual(['first', 'second', 'third']);
    expect(sleeps).toEqual([]);
    expect(d.stats()).toMatchObject({ sent: 3, dropped: 0, throttled: 0 });
    // What people read still follows the wall clock.
    const stamp = (receiver.received[1]!.json as { embeds: { timestamp: string }[] }).embeds[0]!.timestamp;
    expect(stamp).toBe(new Date(Date.UTC(2026, 5, 1, 11, 0, 0)).toISOString());
  });

  it('the window still holds on monotonic time: a second event within it waits the rest of the window', async () => {
    let mono = 0;
    const sleeps: number[] = [];
    const d = createWebhookDispatcher({
      url: receiver.url,
      logger: pino({ level: 'silent' }),
      clock: { now: () => Date.UTC(2026, 5, 1) + 7_200_000 }, // wall clock far ahead: irrelevant to the window
      monotonic: { now: () => mono },
      throttleSeconds: 2,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    await d.emit(event('a'));
    mono += 500;
    const b = await d.emit(event('b'));
    expect(b.status).toBe('ok');
    expect(sleeps).toEqual([1500]);
  });

  it('the default dispatcher (no injected clocks) is not blocked when Date.now jumps back', async () => {
    const realNow = Date.now;
    const d = createWebhookDispatcher({ url: receiver.url, logger: pino({ level: 'silent' }), throttleSeconds: 0.05 });
    try {
      expect((await d.emit(event('one'))).status).toBe('ok');
      const stepped = realNow() - 3600_000;
      Date.now = () => stepped;
      const outcome = await d.emit(event('two'));
      expect(outcome.status).toBe('ok');
      expect(outcome.detail).not.toContain('throttled');
    } finally {
      Date.now = realNow;
    }
  });
});
