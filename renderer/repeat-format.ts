// How a repeating reminder reads in the schedule panel, with its time zone named:
// "repeats weekdays 09:55 Europe/Berlin · next: Mon 09:55 Europe/Berlin (08:55 your time, Europe/London)".
// The rule's time and the next occurrence are both written in the rule's zone (never two zones
// unnamed); the viewer's own time is added only when the zones differ.
// Pure (no DOM), unit-tested in Node. The rule's cron fields are only read for the keyword rules,
// whose pattern the core writes as "M H * * *" / "M H * * 1-5".
import type { ScheduleRepeat } from '../main/core/api-types.ts';

const pad = (n: number | string): string => String(n).padStart(2, '0');

/** "daily 09:00", "weekdays 09:00" or "cron 30 9 * * 1": the rule in a few words (in the rule's zone). */
export function formatRepeatRule(repeat: Pick<ScheduleRepeat, 'rule' | 'cron'>): string {
  if (repeat.rule === 'daily' || repeat.rule === 'weekdays') {
    const [minute = '0', hour = '0'] = repeat.cron.split(' ');
    return `${repeat.rule} ${pad(hour)}:${pad(minute)}`;
  }
  return `cron ${repeat.rule}`;
}

/** The viewer's IANA zone (the browser's). */
export function viewerTimezone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** "Mon 09:00" within the coming week, else "Mon 7 Dec 09:00", in `timeZone`. */
export function formatNextOccurrence(epochSeconds: number, nowMs: number = Date.now(), timeZone: string = viewerTimezone()): string {
  const withinWeek = epochSeconds * 1000 - nowMs < 6.5 * 24 * 3600 * 1000;
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', ...(withinWeek ? {} : { day: 'numeric', month: 'short' }) }).formatToParts(new Date(epochSeconds * 1000));
  const part = (type: Intl.DateTimeFormatPartTypes): string => parts.find((p) => p.type === type)?.value ?? '';
  const day = withinWeek ? part('weekday') : `${part('weekday')} ${part('day')} ${part('month')}`;
  return `${day} ${part('hour')}:${part('minute')}`;
}

/** The clock time only ("08:55") in `timeZone`. */
function clockIn(epochSeconds: number, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(epochSeconds * 1000));
}

/** The panel's line for a member of a series; the scheduled one names the next occurrence. */
export function formatRepeatLine(entry: { repeat?: ScheduleRepeat; state: string; fire_at_epoch: number }, nowMs: number = Date.now(), viewerZone: string = viewerTimezone()): string | null {
  if (!entry.repeat) return null;
  const zone = entry.repeat.timezone;
  const rule = `repeats ${formatRepeatRule(entry.repeat)} ${zone}`;
  if (entry.state !== 'scheduled') return rule;
  const yours = zone === viewerZone ? '' : ` (${clockIn(entry.fire_at_epoch, viewerZone)} your time, ${viewerZone})`;
  return `${rule} · next: ${formatNextOccurrence(entry.fire_at_epoch, nowMs, zone)} ${zone}${yours}`;
}
