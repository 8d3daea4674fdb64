import { describe, expect, it } from 'vitest';
import { formatRepeatLine } from '../../../renderer/repeat-format.ts';

describe('the schedule panel line of a repeating reminder', () => {
  // The next weekday 09:00 in Europe/Berlin after Friday 27 Nov 2026 is Monday 30 Nov, 08:00 UTC.
  const next = Date.UTC(2026, 10, 30, 8, 0) / 1000;
  const weekdaysBerlin = { rule: 'weekdays', cron: '0 9 * * 1-5', timezone: 'Europe/Berlin', series: 'n-1' };

  it('names the rule and the next occurrence in the rule’s zone, and names the zone', () => {
    expect(formatRepeatLine({ repeat: weekdaysBerlin, state: 'scheduled', fire_at_epoch: next }, 'Europe/Berlin')).toBe(
      'repeats weekdays 09:00 Europe/Berlin · next: 2026-11-30 09:00 Europe/Berlin',
    );
  });
  it('a viewer in another zone sees both times, each zone named (never two zones unnamed)', () => {
    expect(formatRepeatLine({ repeat: weekdaysBerlin, state: 'scheduled', fire_at_epoch: next }, 'Europe/London')).toBe(
      'repeats weekdays 09:00 Europe/Berlin · next: 2026-11-30 09:00 Europe/Berlin (2026-11-30 08:00 Europe/London your time)',
    );
  });
  it('past occurrences name only the rule; cron rules are shown as given; plain reminders get no line', () => {
    const repeat = { rule: '30 7 * * 1', cron: '30 7 * * 1', timezone: 'UTC', series: 'n-1' };
    expect(formatRepeatLine({ repeat, state: 'delivered', fire_at_epoch: 0 })).toBe('repeats cron 30 7 * * 1 UTC');
    expect(formatRepeatLine({ state: 'scheduled', fire_at_epoch: 0 })).toBeNull();
  });
});
