// notify/due-soon.ts: the reminders a fresh model session is told about — only those due within the
// horizon, soonest first, cut short — kept current from the scheduler's `schedule` events.
import { describe, expect, it } from 'vitest';
import type { ScheduledNotification } from '../../../main/core/api-types.ts';
import { EventHub } from '../../../main/core/event-hub.ts';
import { silentLogger } from '../../../main/core/log/logger.ts';
import { startDueSoonReminders } from '../../../main/core/notify/due-soon.ts';
import type { ScheduleListPage } from '../../../main/core/notify/scheduler.ts';

const NOW_S = 1_800_000_000;

function entry(id: string, text: string, inS: number): ScheduledNotification {
  return {
    id,
    text,
    mode: 'auto',
    delay_seconds: inS,
    fire_at_epoch: NOW_S + inS,
    created_at: NOW_S,
    state: 'scheduled',
    attempts: 0,
  };
}

function start(entries: ScheduledNotification[]) {
  const hub = new EventHub();
  let reads = 0;
  const scheduler = {
    list: async (): Promise<ScheduleListPage> => {
      reads++;
      return {
        entries: [...entries],
        next_cursor: null,
        total: entries.length,
        pending: entries.length,
        max_pending: 100,
      };
    },
  };
  const dueSoon = startDueSoonReminders({
    scheduler,
    hub,
    logger: silentLogger(),
    now: () => NOW_S * 1000,
    horizonS: 3600,
  });
  return { hub, dueSoon, reads: () => reads };
}

const settle = () => new Promise((r) => setTimeout(r, 10));

describe('reminders due soon', () => {
  it('only those within the horizon, with when, each cut to a short line', async () => {
    const long = 'x'.repeat(400);
    const { dueSoon } = start([
      entry('a', 'call Bob', 30),
      entry('b', 'take the  lasagne\nout', 600),
      entry('c', long, 1800),
      entry('d', 'renew the passport', 7200),
    ]);
    await settle();
    const text = dueSoon.text()!;
    expect(text).toContain('in under a minute: "call Bob"');
    expect(text).toContain('in 10 min: "take the lasagne out"');
    expect(text).toContain(`in 30 min: "${'x'.repeat(159)}…"`);
    expect(text).not.toContain('passport');
    dueSoon.stop();
  });

  it('none due: undefined; read again when the schedule changes', async () => {
    const entries: ScheduledNotification[] = [];
    const { hub, dueSoon, reads } = start(entries);
    await settle();
    expect(dueSoon.text()).toBeUndefined();
    entries.push(entry('a', 'stretch', 120));
    hub.publish({ type: 'schedule', data: { changed: [entries[0]!] } });
    await settle();
    expect(dueSoon.text()).toContain('stretch');
    expect(reads()).toBe(2);
    dueSoon.stop();
    hub.publish({ type: 'schedule', data: { changed: [] } });
    await settle();
    expect(reads()).toBe(2);
  });
});
