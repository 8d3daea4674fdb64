// How a repeating reminder reads in the schedule panel, with its time zone named:
// "repeats weekdays 09:55 Europe/Berlin · next: 2026-11-30 09:55 Europe/Berlin (2026-11-30 08:55 Europe/London your time)".
// The rule's time and the next occurrence are both written in the rule's zone (never two zones
// unnamed); the viewer's own time is added only when the zones differ.
// Pure (no DOM), unit-tested in Node. The rule's cron fields are only read for the keyword rules,
// whose pattern the core writes as "M H * * *" / "M H * * 1-5".
import type { ScheduleRepeat } from '../main/core/api-types.ts';
import { formatMoment, viewerTimezone } from './moment-format.ts';

const pad = (n: number | string): string => String(n).padStart(2, '0');

/** "daily 09:00", "weekdays 09:00" or "cron 30 9 * * 1": the rule in a few words (in the rule's zone). */
export function formatRepeatRule(repeat: Pick<ScheduleRepeat, 'rule' | 'cron'>): string {
  if (repeat.rule === 'daily' || repeat.rule === 'weekdays') {
    const [minute = '0', hour = '0'] = repeat.cron.split(' ');
    return `${repeat.rule} ${pad(hour)}:${pad(minute)}`;
  }
  return `cron ${repeat.rule}`;
}

export { viewerTimezone };

/** The panel's line for a member of a series; the scheduled one names the next occurrence. */
export function formatRepeatLine(
  entry: { repeat?: ScheduleRepeat; state: string; fire_at_epoch: number },
  viewerZone: string = viewerTimezone(),
): string | null {
  if (!entry.repeat) return null;
  const zone = entry.repeat.timezone;
  const rule = `repeats ${formatRepeatRule(entry.repeat)} ${zone}`;
  if (entry.state !== 'scheduled') return rule;
  const yours = zone === viewerZone ? '' : ` (${formatMoment(entry.fire_at_epoch, viewerZone)} your time)`;
  return `${rule} · next: ${formatMoment(entry.fire_at_epoch, zone)}${yours}`;
}
