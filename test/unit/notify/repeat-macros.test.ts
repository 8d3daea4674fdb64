// repeat takes "daily", "weekdays" or a 5-field cron expression (docs/notifications.md); croner's
// @-nicknames are not that, and @yearly put the first occurrence 36 days out past the 30-day bound.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NotifyResult } from '../../../main/core/api-types.ts';
import { scheduleFilePath } from '../../../main/core/notify/schedule-store.ts';
import { createScheduler } from '../../../main/core/notify/scheduler.ts';
import { parseScheduleRequest } from '../../../main/core/notify/validation.ts';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'lvb-repeat-macros-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const notifier = {
  deliver: async (): Promise<NotifyResult> => ({ id: 'n', status: 'ok', results: {}, notified_at: 0 }),
};

describe('repeat: cron nicknames are refused', () => {
  for (const macro of ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@hourly', '@midnight', '@reboot']) {
    it(`${macro} → 400 bad_repeat naming the accepted forms`, () => {
      expect(() => parseScheduleRequest({ text: 'x', repeat: macro })).toThrow(
        expect.objectContaining({ code: 'bad_repeat', status: 400 }),
      );
      expect(() => parseScheduleRequest({ text: 'x', repeat: macro })).toThrow(/5-field cron expression/);
    });
  }

  it('the scheduler creates no entry for @yearly; documented rules still work', async () => {
    const s = createScheduler({
      file: scheduleFilePath(home),
      notifier,
      logger: pino({ level: 'silent' }),
      clock: { now: () => Date.UTC(2026, 10, 26, 6, 0) },
    });
    await expect(s.schedule({ text: 'birthday', repeat: '@yearly', timezone: 'UTC' })).rejects.toMatchObject({
      code: 'bad_repeat',
    });
    expect((await s.list()).entries).toEqual([]);
    await expect(s.schedule({ text: 'ok', repeat: '0 9 * * 1', timezone: 'UTC' })).resolves.toMatchObject({
      state: 'scheduled',
    });
    await expect(s.schedule({ text: 'ok', repeat: 'daily', at: '09:00', timezone: 'UTC' })).resolves.toMatchObject({
      state: 'scheduled',
    });
    await s.stop();
  });
});
