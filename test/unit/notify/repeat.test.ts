// Repeating reminders: rule validation (400 codes), next occurrence across DST and weekends, the
// series continuing after each delivery, cancel stopping it, and crash safety (an occurrence is
// never delivered twice and the rest of the series is never skipped).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NotifyRequest, NotifyResult } from '../../../main/core/api-types.ts';
import type { DeliverOptions } from '../../../main/core/notify/dispatcher.ts';
import { nextOccurrence, resolveRepeat } from '../../../main/core/notify/repeat.ts';
import { scheduleFilePath } from '../../../main/core/notify/schedule-store.ts';
import { readScheduleRows, writeScheduleRows } from '../../helpers/schedule-db.ts';
import { createScheduler } from '../../../main/core/notify/scheduler.ts';
import { NotifyInputError } from '../../../main/core/notify/types.ts';

const logger = pino({ level: 'silent' });
const BERLIN = 'Europe/Berlin';
const epoch = (iso: string): number => Date.parse(iso) / 1000;

let home: string;
let file: string;
let t: number;
let delivered: string[];

beforeEach(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'lvb-repeat-'));
  file = scheduleFilePath(home);
  delivered = [];
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const clock = { now: () => t };
const okNotifier = {
  async deliver(req: NotifyRequest, options?: DeliverOptions): Promise<NotifyResult> {
    if (options?.onSending && !(await options.onSending('dm')))
      return { id: 'x', status: 'error', results: { dm: { status: 'skipped' } }, notified_at: t / 1000 };
    delivered.push(`${req.text}@${new Date(t).toISOString()}`);
    return {
      id: 'x',
      status: 'ok',
      channel: 'dm',
      results: { dm: { status: 'ok', message_id: '1' } },
      notified_at: t / 1000,
    };
  },
};
const make = (notifier: typeof okNotifier = okNotifier) => createScheduler({ file, notifier, clock, logger });

async function records() {
  return readScheduleRows(file);
}

describe('repeat rule validation', () => {
  it.each([
    [{ text: 'x', repeat: 'hourly-ish' }, 'bad_repeat'],
    [{ text: 'x', repeat: '* * * * * *' }, 'bad_repeat'], // 6 fields: seconds are refused
    [{ text: 'x', repeat: '61 9 * * *' }, 'bad_repeat'],
    [{ text: 'x', repeat: 'daily', at: '09:00', timezone: 'Mars/Olympus' }, 'bad_timezone'],
    [{ text: 'x', repeat: 'daily', at: '9am' }, 'bad_time'],
    [{ text: 'x', repeat: 'daily' }, 'missing_time'],
    [{ text: 'x', repeat: '0 9 * * *', at: '09:00' }, 'bad_time'],
    [{ text: 'x', repeat: 7 }, 'bad_repeat'],
    [{ text: 'x' }, 'bad_delay'],
    [{ text: 'x', delay_seconds: 5, at: '09:00' }, 'bad_time'],
  ])('%j → 400 %s', async (body, code) => {
    t = Date.parse('2026-03-27T10:00:00Z');
    const err = await make()
      .schedule(body)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotifyInputError);
    expect((err as NotifyInputError).code).toBe(code);
    expect((err as NotifyInputError).status).toBe(400);
  });
});

describe('next occurrence', () => {
  it('daily 09:00 in Berlin stays 09:00 local across the spring DST change (23 h apart)', () => {
    const r = resolveRepeat({ rule: 'daily', at: '09:00', timezone: BERLIN });
    expect(r.cron).toBe('0 9 * * *');
    const sat = nextOccurrence(r, epoch('2026-03-28T07:30:00Z')); // Sat 08:30 CET
    expect(sat).toBe(epoch('2026-03-28T08:00:00Z')); // 09:00 CET = 08:00Z
    const sun = nextOccurrence(r, sat!);
    expect(sun).toBe(epoch('2026-03-29T07:00:00Z')); // 09:00 CEST = 07:00Z
    expect(sun! - sat!).toBe(23 * 3600);
  });

  it('weekdays skips the weekend: after Friday 09:00 comes Monday 09:00', () => {
    const r = resolveRepeat({ rule: 'weekdays', at: '09:00', timezone: BERLIN });
    expect(nextOccurrence(r, epoch('2026-11-27T08:00:00Z'))).toBe(epoch('2026-11-30T08:00:00Z'));
  });

  it('daily without at takes the time of day of the first occurrence, in the given timezone', () => {
    const r = resolveRepeat({
      rule: 'daily',
      timezone: 'America/New_York',
      firstFireEpoch: epoch('2026-11-24T19:15:00Z'),
    });
    expect(r.cron).toBe('15 14 * * *');
  });
});

describe('a repeating series in the scheduler', () => {
  it('delivers each occurrence once and schedules the next; GET shows it; cancel stops the series', async () => {
    t = Date.parse('2026-11-27T07:00:00Z'); // Friday 08:00 in Berlin
    const s = make();
    const first = await s.schedule({ text: 'standup', repeat: 'weekdays', at: '09:00', timezone: BERLIN, mode: 'dm' });
    expect(first.fire_at_epoch).toBe(epoch('2026-11-27T08:00:00Z'));
    expect(first.repeat).toEqual({ rule: 'weekdays', cron: '0 9 * * 1-5', timezone: BERLIN, series: first.id });

    t = Date.parse('2026-11-27T08:00:00Z');
    expect(await s.tick()).toBe(1);
    expect(delivered).toEqual(['standup@2026-11-27T08:00:00.000Z']);
    const scheduled = (await s.list({ state: 'scheduled' })).entries;
    expect(scheduled).toHaveLength(1);
    expect(scheduled[0]).toMatchObject({
      fire_at_epoch: epoch('2026-11-30T08:00:00Z'),
      state: 'scheduled',
      repeat: { series: first.id },
    });
    expect(await s.tick()).toBe(0); // nothing due over the weekend

    t = Date.parse('2026-11-30T08:00:05Z');
    await s.tick();
    expect(delivered).toHaveLength(2);
    const next = (await s.list({ state: 'scheduled' })).entries;
    expect(next.map((e) => e.fire_at_epoch)).toEqual([epoch('2026-12-01T08:00:00Z')]);

    // The first id stands for the series: cancelling it cancels the pending occurrence.
    const cancelled = await s.cancel(first.id);
    expect(cancelled).toMatchObject({ id: next[0]!.id, state: 'cancelled' });
    t = Date.parse('2026-12-05T08:00:00Z');
    await s.tick();
    expect(delivered).toHaveLength(2);
    expect((await s.list({ state: 'scheduled' })).entries).toEqual([]);
    expect((await records()).filter((r) => r.state === 'delivered')).toHaveLength(2);
  });

  it('a crash after the claim: that occurrence is failed (never re-sent) and the next one still comes', async () => {
    t = Date.parse('2026-11-24T07:59:00Z');
    // A process that claims the send and then dies (its deliver never returns).
    const dying = {
      async deliver(_req: NotifyRequest, options?: DeliverOptions): Promise<NotifyResult> {
        await options?.onSending?.('dm');
        return new Promise<NotifyResult>(() => {});
      },
    };
    const first = await make(dying).schedule({ text: 'pills', repeat: 'daily', at: '09:00', timezone: BERLIN });
    t = Date.parse('2026-11-24T08:00:00Z');
    void make(dying).tick();
    await expect.poll(async () => (await records()).map((r) => r.state).sort()).toEqual(['delivering', 'scheduled']);

    // The next start, after the claim's lease ran out (the dead process cannot finish it).
    t = Date.parse('2026-11-24T08:11:00Z');
    const s = make();
    await s.tick();
    const all = await records();
    const failed = all.filter((r) => r.state === 'failed');
    expect(failed.map((r) => r.id)).toEqual([first.id]);
    expect(failed[0]?.last_error).toMatch(/^interrupted/);
    expect(all.filter((r) => r.state === 'scheduled').map((r) => r.fire_at_epoch)).toEqual([
      epoch('2026-11-25T08:00:00Z'),
    ]);
    expect(delivered).toEqual([]);

    t = Date.parse('2026-11-25T08:00:00Z');
    await s.tick();
    expect(delivered).toEqual(['pills@2026-11-25T08:00:00.000Z']);
  });

  it('the next occurrence already written but the occurrence not yet claimed: delivered once, next not duplicated', async () => {
    t = Date.parse('2026-11-24T07:00:00Z');
    const first = await make().schedule({ text: 'water', repeat: 'daily', at: '09:00', timezone: BERLIN });
    const [record] = readScheduleRows(file);
    // The next occurrence (same id the scheduler derives) is there, the first still `scheduled`.
    const nextId = `${first.id}-r${epoch('2026-11-25T08:00:00Z')}`;
    writeScheduleRows(file, [{ ...record, id: nextId, fire_at_epoch: epoch('2026-11-25T08:00:00Z') }]);
    t = Date.parse('2026-11-24T08:00:00Z');
    const s = make();
    await s.tick();
    expect(delivered).toHaveLength(1);
    const all = await records();
    expect(Object.fromEntries(all.map((r) => [r.id, r.state]))).toEqual({
      [first.id]: 'delivered',
      [nextId]: 'scheduled',
    });
  });

  it('an occurrence missed by more than the maximum lateness expires and the series resumes at its next time', async () => {
    t = Date.parse('2026-11-24T07:00:00Z');
    const s = make();
    await s.schedule({ text: 'walk', repeat: '30 9 * * *', timezone: BERLIN });
    t = Date.parse('2026-11-27T12:00:00Z'); // three days off
    await s.tick();
    const all = await records();
    expect(all).toHaveLength(2);
    expect(all.filter((r) => r.state === 'expired')).toHaveLength(1);
    expect(all.filter((r) => r.state === 'scheduled').map((r) => r.fire_at_epoch)).toEqual([
      epoch('2026-11-28T08:30:00Z'),
    ]);
    expect(delivered).toEqual([]);
  });
});
