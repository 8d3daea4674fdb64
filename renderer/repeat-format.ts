// How a repeating reminder reads in the schedule panel: "repeats weekdays 09:00 · next: Mon 09:00".
// Pure (no DOM), unit-tested in Node. The rule's cron fields are only read for the keyword rules,
// whose pattern the core writes as "M H * * *" / "M H * * 1-5".
import type { ScheduleRepeat } from '../main/core/api-types.ts';

const pad = (n: number | string): string => String(n).padStart(2, '0');

/** "daily 09:00", "weekdays 09:00" or "cron 30 9 * * 1": the rule in a few words. */
export function formatRepeatRule(repeat: Pick<ScheduleRepeat, 'rule' | 'cron'>): string {
  if (repeat.rule === 'daily' || repeat.rule === 'weekdays') {
    const [minute = '0', hour = '0'] = repeat.cron.split(' ');
    return `${repeat.rule} ${pad(hour)}:${pad(minute)}`;
  }
  return `cron ${repeat.rule}`;
}

/** "Mon 09:00" within the coming week (local time), else "Mon 7 Dec 09:00". */
export function formatNextOccurrence(epochSeconds: number, nowMs: number = Date.now()): string {
  const d = new Date(epochSeconds * 1000);
  const hm = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  const withinWeek = epochSeconds * 1000 - nowMs < 6.5 * 24 * 3600 * 1000;
  const day = d.toLocaleDateString('en-GB', withinWeek ? { weekday: 'short' } : { weekday: 'short', day: 'numeric', month: 'short' });
  return `${day.replace(/,/g, '')} ${hm}`;
}

/** The panel's line for a member of a series; the scheduled one names the next occurrence. */
export function formatRepeatLine(entry: { repeat?: ScheduleRepeat; state: string; fire_at_epoch: number }, nowMs: number = Date.now()): string | null {
  if (!entry.repeat) return null;
  const rule = `repeats ${formatRepeatRule(entry.repeat)}`;
  return entry.state === 'scheduled' ? `${rule} · next: ${formatNextOccurrence(entry.fire_at_epoch, nowMs)}` : rule;
}
