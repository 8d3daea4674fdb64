// A reminder for a typed wall-clock time fires at that second: POST /schedule takes the moment itself
// (`fire_at_epoch`, what the CLI's `--at` sends) instead of a delay the scheduler adds to its own
// clock. Before, `--at "tomorrow 9:00"` was sent as whole seconds from the CLI's now and stored at
// 08:59:59.54 (the page showed 07:59 UTC for 09:00 Berlin) — and fired that early.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NotifyRequest, NotifyResult } from '../../../main/core/api-types.ts';
import { parseAt } from '../../../main/cli/human-time.ts';
import { scheduleFilePath } from '../../../main/core/notify/schedule-store.ts';
import { createScheduler } from '../../../main/core/notify/scheduler.ts';
import { NotifyInputError } from '../../../main/core/notify/types.ts';
import { parseScheduleRequest } from '../../../main/core/notify/validation.ts';

// Tue 1 Dec 2026 20:30:12.46 UTC (21:30 in Berlin): the fraction is what used to make the reminder early.
const T0 = Date.UTC(2026, 11, 1, 20, 30, 12, 460);
let home: string;
let t: number;
let delivered: { req: NotifyRequest; at: number }[];

beforeEach(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'lvb-fire-at-'));
  t = T0;
  delivered = [];
});
afterEach(() => rm(home, { recursive: true, force: true }));

const notifier = {
  async deliver(req: NotifyRequest): Promise<NotifyResult> {
    delivered.push({ req, at: t });
    return {
      id: 'n-test',
      status: 'ok',
      channel: 'dm',
      results: { dm: { status: 'ok', message_id: '1' } },
      notified_at: t / 1000,
    };
  },
};
const make = () =>
  createScheduler({
    file: scheduleFilePath(home),
    notifier,
    clock: { now: () => t },
    logger: pino({ level: 'silent' }),
  });

describe('a typed wall-clock time', () => {
  it('"tomorrow 9:00 Europe/Berlin" is stored at 09:00:00 there and fires in that second, not before', async () => {
    const typed = parseAt('tomorrow 9:00 Europe/Berlin', { now: new Date(T0) });
    const nineBerlin = Date.UTC(2026, 11, 2, 8, 0) / 1000;
    expect(typed.fireAt).toBe(nineBerlin);
    const s = make();
    // The request the CLI sends for --at (main/cli.ts schedule()).
    const entry = await s.schedule(
      parseScheduleRequest({ text: 'Plan the day', fire_at_epoch: typed.fireAt, source: 'cli' }),
    );
    expect(entry.fire_at_epoch).toBe(nineBerlin);
    expect(entry.created_at + entry.delay_seconds).toBeCloseTo(nineBerlin, 3);
    t = nineBerlin * 1000 - 1;
    expect(await s.tick()).toBe(0);
    expect(delivered).toEqual([]);
    t = nineBerlin * 1000;
    expect(await s.tick()).toBe(1);
    expect(delivered.map((d) => [d.req.text, d.at])).toEqual([['Plan the day', nineBerlin * 1000]]);
  });

  it('a repeating rule takes its first time of day from fire_at_epoch too', async () => {
    const s = make();
    const at = Date.UTC(2026, 11, 2, 8, 15) / 1000;
    const entry = await s.schedule(
      parseScheduleRequest({ text: 'Stand-up', repeat: 'daily', timezone: 'Europe/Berlin', fire_at_epoch: at }),
    );
    expect(entry.fire_at_epoch).toBe(at);
    expect(entry.repeat).toMatchObject({ rule: 'daily', cron: '15 9 * * *', timezone: 'Europe/Berlin' });
  });

  it('refuses both fields at once, a moment long past and one more than 30 days ahead (400 bad_delay)', async () => {
    const code = async (body: Record<string, unknown>): Promise<string> => {
      try {
        await make().schedule(parseScheduleRequest({ text: 'x', ...body }));
      } catch (err) {
        expect(err).toBeInstanceOf(NotifyInputError);
        return `${(err as NotifyInputError).code}: ${(err as Error).message}`;
      }
      return 'accepted';
    };
    expect(await code({ fire_at_epoch: T0 / 1000 + 60, delay_seconds: 60 })).toBe(
      'bad_delay: give delay_seconds or fire_at_epoch, not both',
    );
    expect(await code({ fire_at_epoch: T0 / 1000 - 3600 })).toMatch(
      /^bad_delay: fire_at_epoch: .* has passed \(3600 s ago\)$/,
    );
    expect(await code({ fire_at_epoch: T0 / 1000 + 31 * 86400 })).toMatch(
      /^bad_delay: fire_at_epoch: .* more than 2592000 s \(30 days\) ahead$/,
    );
    expect(await code({ fire_at_epoch: 'tomorrow' })).toMatch(/^bad_delay: fire_at_epoch: /);
    // A moment a few seconds gone (the request took that long) is due at once, kept as asked.
    expect(await code({ fire_at_epoch: T0 / 1000 - 2 })).toBe('accepted');
  });
});
