import { describe, expect, it } from 'vitest';
import { formatRepeatLine } from '../../../renderer/repeat-format.ts';

describe('the schedule panel line of a repeating reminder', () => {
  // Friday 27 Nov 2026 10:00 UTC; the next weekday 09:00 in Europe/Berlin is Monday 08:00 UTC.
  const now = Date.UTC(2026, 10, 27, 10, 0);
  const next = Date.UTC(2026, 10, 30, 8, 0) / 1000;
  const weekdaysBerlin = { rule: 'weekdays', cron: '0 9 * * 1-5', timezone: 'Europe/Berlin', series: 'n-1' };

  it('names the rule and the next occurrence in the rule’s zone, and names the zone', () => {
    expect(formatRepeatLine({ repeat: weekdaysBerlin, state: 'scheduled', fire_at_epoch: next }, now, 'Europe/Berlin')).toBe('repeats weekdays 09:00 Europe/Berlin · next: Mon 09:00 Europe/Berlin');
  });
  it('a viewer in another zone sees both times, each zone named (never two zones unnamed)', () => {
    expect(formatRepeatLine({ repeat: weekdaysBerlin, state: 'scheduled', fire_at_epoch: next }, now, 'Europe/London')).toBe(
      'repeats weekdays 09:00 Europe/Berlin · next: Mon 09:00 Europe/Berlin (08:00 your time, Europe/London)',
    );
  });
  it('past occurrences name only the rule; cron rules are shown as given; plain reminders get no line', () => {
    const repeat = { rule: '30 7 * * 1', cron: '30 7 * * 1', timezone: 'UTC', series: 'n-1' };
    expect(formatRepeatLine({ repeat, state: 'delivered', fire_at_epoch: 0 })).toBe('repeats cron 30 7 * * 1 UTC');
    expect(formatRepeatLine({ state: 'scheduled', fire_at_epoch: 0 })).toBeNull();
  });
});
