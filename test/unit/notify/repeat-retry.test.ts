// A repeating series while one occurrence is being retried: the next occurrence is written when the
// current one first comes due (not only when it leaves `scheduled` for good), so it fires on time
// and no occurrence is skipped; cancelling the series stops both.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { NotifyRequest, NotifyResult } from '../../../main/core/api-types.ts';
import type { DeliverOptions } from '../../../main/core/notify/dispatcher.ts';
import { scheduleFilePath } from '../../../main/core/notify/schedule-store.ts';
import { createScheduler } from '../../../main/core/notify/scheduler.ts';

const logger = pino({ level: 'silent' });
let home: string;
let t: number;
let reachable: boolean;
let delivered: string[];
const clock = { now: () => t };
const at = (iso: string): number => Date.parse(iso);

/** Nothing reachable (nothing sent, retried with backoff) until `reachable`. */
const notifier = {
  async deliver(req: NotifyRequest, options?: DeliverOptions): Promise<NotifyResult> {
    if (!reachable)
      return {
        id: 'x',
        status: 'error',
        results: { dm: { status: 'unavailable', detail: 'Discord bot is not connected' } },
        notified_at: t / 1000,
      };
    if (options?.onSending && !(await options.onSending('dm')))
      return { id: 'x', status: 'error', results: { dm: { status: 'unavailable' } }, notified_at: t / 1000 };
    delivered.push(`${req.text}@${new Date(t).toISOString().slice(11, 19)}`);
    return { id: 'x', status: 'ok', channel: 'dm', results: { dm: { status: 'ok' } }, notified_at: t / 1000 };
  },
};

beforeEach(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'lvb-repeat-retry-'));
  delivered = [];
  reachable = true;
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

it('an occurrence being retried does not hold back the next one: every occurrence fires', async () => {
  t = at('2026-11-24T08:00:30Z');
  const s = createScheduler({ file: scheduleFilePath(home), notifier, clock, logger, retryBaseSeconds: 90 });
  const first = await s.schedule({ text: 'tick', repeat: '* * * * *', timezone: 'UTC' });
  expect(first.fire_at_epoch).toBe(at('2026-11-24T08:01:00Z') / 1000);

  reachable = false;
  t = at('2026-11-24T08:01:00Z');
  await s.tick(); // nothing reachable: the 08:01 occurrence is retried at 08:02:30
  const scheduled = (await s.list({ state: 'scheduled' })).entries;
  expect(scheduled.map((e) => [e.fire_at_epoch, e.attempts])).toEqual([
    [at('2026-11-24T08:01:00Z') / 1000, 1],
    [at('2026-11-24T08:02:00Z') / 1000, 0], // the next occurrence is already there
  ]);

  reachable = true;
  t = at('2026-11-24T08:02:00Z');
  await s.tick(); // the 08:02 occurrence fires on time while 08:01 still waits for its retry
  expect(delivered).toEqual(['tick@08:02:00']);
  t = at('2026-11-24T08:02:30Z');
  await s.tick();
  expect(delivered).toHaveLength(2);
  expect(delivered[1]).toMatch(/^tick \(late by .+\)@08:02:30$/); // the retried 08:01 occurrence, once
  const states = (await s.list()).entries.map((e) => [
    new Date(e.fire_at_epoch * 1000).toISOString().slice(11, 16),
    e.state,
  ]);
  expect(states).toEqual([
    ['08:01', 'delivered'],
    ['08:02', 'delivered'],
    ['08:03', 'scheduled'],
  ]);
});

it('cancelling the series stops the retried occurrence and the next one alike', async () => {
  t = at('2026-11-24T08:00:30Z');
  const s = createScheduler({ file: scheduleFilePath(home), notifier, clock, logger, retryBaseSeconds: 90 });
  const first = await s.schedule({ text: 'tock', repeat: '* * * * *', timezone: 'UTC' });
  reachable = false;
  t = at('2026-11-24T08:01:00Z');
  await s.tick();
  expect((await s.list({ state: 'scheduled' })).entries).toHaveLength(2);
  await s.cancel(first.id);
  expect((await s.list({ state: 'scheduled' })).entries).toEqual([]);
  reachable = true;
  t = at('2026-11-24T08:10:00Z');
  await s.tick();
  expect(delivered).toEqual([]);
});
