// Times as people type them, for `schedule`: `--in 10m` / `1h30m` / `90` (seconds), and a one-off
// `--at 09:30`, `--at "tomorrow 9:00"`, `--at "2026-12-01 08:15"`, `--at "9:30pm Europe/Berlin"`,
// read in `--tz ZONE` (an IANA name) or this machine's zone. `--in` goes to the sidecar as
// `delay_seconds`, `--at` as the moment itself (`fire_at_epoch`, so it fires at the second typed);
// those names never reach the user: every refusal here names the option that was typed.
import { CodedError } from '../core/contracts/coded-error.ts';

/** The sidecar's bound (notify/validation.ts, not imported: it loads zod); a test keeps them equal. */
export const MAX_DELAY_SECONDS = 30 * 24 * 3600;

export class TimeInputError extends CodedError {
  constructor(message: string) {
    super('bad_time', message);
  }
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };
const UNIT_WORDS: [RegExp, string][] = [
  [/^(s|secs?|seconds?)$/, 's'],
  [/^(m|mins?|minutes?)$/, 'm'],
  [/^(h|hrs?|hours?)$/, 'h'],
  [/^(d|days?)$/, 'd'],
];

/** `--in`: seconds from now. A bare number is seconds (as before); units s, m, h, d, combinable. */
export function parseIn(text: string): number {
  const input = text.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(input)) return checkedDelay(Number(input), text, '--in');
  const part = /(\d+(?:\.\d+)?)\s*([a-z]+)\s*/gy;
  let total = 0;
  let consumed = 0;
  for (let m = part.exec(input); m; m = part.exec(input)) {
    const unit = UNIT_WORDS.find(([re]) => re.test(m![2]!))?.[1];
    if (!unit) break;
    total += Number(m[1]) * UNIT_SECONDS[unit]!;
    consumed = part.lastIndex;
  }
  if (consumed === 0 || consumed !== input.length) {
    throw new TimeInputError(
      `--in: ${JSON.stringify(text)} is not a duration; write e.g. 90 (seconds), 10m, 1h30m, 2h or 1d`,
    );
  }
  return checkedDelay(Math.round(total), text, '--in');
}

function checkedDelay(seconds: number, typed: string, option: string): number {
  if (seconds > MAX_DELAY_SECONDS)
    throw new TimeInputError(
      `${option}: ${JSON.stringify(typed)} is more than 30 days ahead (the longest a reminder may wait)`,
    );
  return seconds;
}

/** The IANA zone to read times in: the one given (checked), else this machine's. */
export function resolveZone(given: string | undefined): string {
  const zone = given?.trim() || Intl.DateTimeFormat().resolvedOptions().timeZone;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    throw new TimeInputError(
      `--tz: ${JSON.stringify(given)} is not a time zone; use an IANA name such as Europe/Berlin, America/New_York or UTC`,
    );
  }
}

/** Milliseconds the zone is ahead of UTC at `epochMs`. */
function zoneOffsetMs(epochMs: number, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(epochMs));
  const get = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.find((p) => p.type === type)!.value);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return wall - Math.floor(epochMs / 1000) * 1000;
}

/** The instant the wall clock in `zone` shows this date and time (day may overflow: Date.UTC rolls it). */
function wallTimeToEpochMs(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  zone: string,
): number {
  const asUtc = Date.UTC(year, month - 1, day, hour, minute);
  const first = asUtc - zoneOffsetMs(asUtc, zone);
  // Once more at the found instant: right across a daylight-saving change.
  return asUtc - zoneOffsetMs(first, zone);
}

function todayIn(zone: string, now: Date): { year: number; month: number; day: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
  }).formatToParts(now);
  const get = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.find((p) => p.type === type)!.value);
  return { year: get('year'), month: get('month'), day: get('day') };
}

const TIME = /^(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$/;

function clockTime(text: string, typed: string): { hour: number; minute: number } {
  const m = TIME.exec(text);
  // A bare number ("9") is refused: 9 o'clock or 9 minutes? --in says minutes.
  if (!m || (m[2] === undefined && m[3] === undefined))
    throw new TimeInputError(
      `--at: ${JSON.stringify(typed)} is not a time; write e.g. 09:30, 9:30pm, "tomorrow 9:00" or "2026-12-01 08:15"`,
    );
  let hour = Number(m[1]);
  const minute = Number(m[2] ?? 0);
  if (m[3]) {
    if (hour < 1 || hour > 12)
      throw new TimeInputError(`--at: ${JSON.stringify(typed)}: with am/pm the hour is 1 to 12`);
    hour = (hour % 12) + (m[3] === 'pm' ? 12 : 0);
  }
  if (hour > 23 || minute > 59)
    throw new TimeInputError(`--at: ${JSON.stringify(typed)} is not a time of day (00:00 to 23:59)`);
  return { hour, minute };
}

export interface OneOffTime {
  /** Whole seconds from now (checked against the 30-day bound). */
  delaySeconds: number;
  /** Epoch seconds of the moment asked for: what the CLI sends (`fire_at_epoch`). */
  fireAt: number;
  zone: string;
}

/**
 * A one-off `--at`: `HH:MM` (the next time the clock shows it: today, or tomorrow once it has
 * passed), `today|tomorrow HH:MM`, `YYYY-MM-DD HH:MM`; a trailing IANA zone overrides `--tz`.
 */
export function parseAt(text: string, options: { zone?: string; now?: Date } = {}): OneOffTime {
  const now = options.now ?? new Date();
  let words = text.trim().split(/\s+/);
  let zoneGiven = options.zone;
  const last = words.at(-1) ?? '';
  if (words.length > 1 && (last.includes('/') || /^utc$/i.test(last))) {
    zoneGiven = last;
    words = words.slice(0, -1);
  }
  const zone = resolveZone(zoneGiven);
  const lower = words.map((w) => w.toLowerCase());
  const today = todayIn(zone, now);
  let date = today;
  let explicitDay = false;
  if (lower.length >= 2 && (lower[0] === 'today' || lower[0] === 'tomorrow')) {
    explicitDay = true;
    if (lower[0] === 'tomorrow') date = { ...today, day: today.day + 1 };
    lower.shift();
  } else if (lower.length >= 2 && /^\d{4}-\d{2}-\d{2}$/.test(lower[0]!)) {
    explicitDay = true;
    const [y, mo, d] = lower.shift()!.split('-').map(Number) as [number, number, number];
    date = { year: y, month: mo, day: d };
  } else if (lower.length === 1 && /^\d{4}-\d{2}-\d{2}t\d{1,2}:\d{2}$/.test(lower[0]!)) {
    explicitDay = true;
    const [day, time] = lower[0]!.split('t') as [string, string];
    const [y, mo, d] = day.split('-').map(Number) as [number, number, number];
    date = { year: y, month: mo, day: d };
    lower[0] = time;
  }
  const { hour, minute } = clockTime(lower.join(''), text);
  let at = wallTimeToEpochMs(date.year, date.month, date.day, hour, minute, zone);
  if (at <= now.getTime()) {
    if (explicitDay)
      throw new TimeInputError(
        `--at: ${JSON.stringify(text)} has already passed (it is ${formatWhen(now.getTime() / 1000, zone)})`,
      );
    at = wallTimeToEpochMs(date.year, date.month, date.day + 1, hour, minute, zone);
  }
  const delaySeconds = checkedDelay(Math.round((at - now.getTime()) / 1000), text, '--at');
  return { delaySeconds, fireAt: at / 1000, zone };
}

/**
 * "2026-12-02 09:00 Europe/Berlin": the one date format of the CLI's human output (24 h, the IANA
 * zone named; seconds only when they are not :00, e.g. a reminder `--in 90` sets).
 */
export function formatWhen(epochSeconds: number, zone: string): string {
  // The second it falls in: a reminder for 09:00:00.4 fires in the second 09:00:00.
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(Math.floor(epochSeconds) * 1000));
  const get = (type: Intl.DateTimeFormatPartTypes): string => parts.find((p) => p.type === type)?.value ?? '';
  const seconds = get('second') === '00' ? '' : `:${get('second')}`;
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}${seconds} ${zone}`;
}

/** "in 1 h 5 min", "in 40 s", "2 min ago". */
export function formatRelative(seconds: number): string {
  const s = Math.abs(Math.round(seconds));
  let text: string;
  if (s < 60) text = `${s} s`;
  else if (s < 3600) text = `${Math.round(s / 60)} min`;
  else if (s < 86400)
    text = `${Math.floor(s / 3600)} h${Math.round((s % 3600) / 60) ? ` ${Math.round((s % 3600) / 60)} min` : ''}`;
  else
    text = `${Math.floor(s / 86400)} d${Math.floor((s % 86400) / 3600) ? ` ${Math.floor((s % 86400) / 3600)} h` : ''}`;
  return seconds >= 0 ? `in ${text}` : `${text} ago`;
}
