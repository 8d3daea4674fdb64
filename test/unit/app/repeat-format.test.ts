import { describe, expect, it } from 'vitest';
import { formatRepeatLine } from '../../../renderer/repeat-format.ts';

describe('the schedule panel line of a repeating reminder', () => {
  const local = (y: number, mo: number, d: number, h: number, mi: number): number => new Date(y, mo - 1, d, h, mi).getTime();
  it('names the rule and the next occurrence by weekday within the week', () => {
    const now = local(2026, 11, 27, 10, 0); // Friday
    const next = local(2026, 11, 30, 9, 0) / 1000; // Monday
    expect(formatRepeatLine({ repeat: { rule: 'weekdays', cron: '0 9 * * 1-5', timezone: 'UTC', series: 'n-1' }, state: 'scheduled', fire_at_epoch: next }, now)).toBe('repeats weekdays 09:00 · next: Mon 09:00');
  });
  it('past occurrences name only the rule; cron rules are shown as given; plain reminders get no line', () => {
    const repeat = { rule: '30 7 * * 1', cron: '30 7 * * 1', timezone: 'UTC', series: 'n-1' };
    expect(formatRepeatLine({ repeat, state: 'delivered', fire_at_epoch: 0 })).toBe('repeats cron 30 7 * * 1');
    expect(formatRepeatLine({ state: 'scheduled', fire_at_epoch: 0 })).toBeNull();
  });
});
