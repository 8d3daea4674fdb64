// Repeating reminders: the rule a user gives (`daily`, `weekdays` or a 5-field cron expression), its
// resolution to one cron pattern in the user's timezone, and the next occurrence after a time.
//
// A repeating reminder is a series of ordinary schedule entries: each occurrence is its own entry
// (delivered, failed or expired like any other), and the next one is written in the SAME store
// transaction as the current one's first attempt (its delivery claim, expiry, a retry of an attempt
// that sent nothing, or a final failure), appended before it — so an occurrence being retried does
// not hold back the next one, and a crash after the claim leaves the next occurrence
// already on disk (the rest is never skipped), and the current one is recovered as `failed`, never
// re-sent (no occurrence twice). Occurrence ids are derived from the series and the fire time, so a
// second attempt at writing the same occurrence is recognised and not written again.
import { Cron } from 'croner';
import { z } from 'zod';
import { CodedError } from '../contracts/coded-error.ts';

export const REPEAT_RULE_KEYWORDS = ['daily', 'weekdays'] as const;

/** What is stored on each occurrence of a series (the schedule record's optional `repeat` field). */
export const storedRepeatSchema = z.object({
  /** As the user gave it: `daily`, `weekdays` or the cron expression. */
  rule: z.string().min(1).max(200),
  /** The 5-field cron pattern the rule resolved to (minute hour day-of-month month day-of-week). */
  cron: z.string().min(1).max(200),
  /** IANA timezone the pattern is read in (DST handled by croner). */
  timezone: z.string().min(1).max(100),
  /** Id of the first occurrence: cancelling any member stops the series. */
  series: z.string().min(1).max(100),
});

export type StoredRepeat = z.infer<typeof storedRepeatSchema>;

export class RepeatRuleError extends CodedError<'bad_repeat' | 'bad_timezone' | 'bad_time' | 'missing_time'> {}

/** The timezone of this machine (what `timezone` defaults to). */
export function systemTimezone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export function isValidTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Hour and minute of `epochSeconds` on the wall clock of `timezone`. */
function wallClock(epochSeconds: number, timezone: string): { hour: number; minute: number } {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(epochSeconds * 1000));
  const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return { hour: get('hour'), minute: get('minute') };
}

export interface RepeatInput {
  rule: string;
  timezone: string;
  /** "HH:MM" for daily/weekdays; without it the time of day of `firstFireEpoch` is used. */
  at?: string;
  /** The first occurrence when the caller gave a delay; absent: the rule's next time after now. */
  firstFireEpoch?: number;
}

/**
 * Resolve a rule to the cron pattern stored on the series. Throws RepeatRuleError for a rule that
 * is neither keyword nor a valid 5-field cron expression, an unknown timezone, or a keyword rule
 * without a time (`at` or a delay).
 */
export function resolveRepeat(input: RepeatInput): { rule: string; cron: string; timezone: string } {
  const rule = input.rule.trim();
  if (!isValidTimezone(input.timezone))
    throw new RepeatRuleError(
      'bad_timezone',
      `timezone: ${JSON.stringify(input.timezone)} is not an IANA timezone (e.g. Europe/Berlin)`,
    );
  if ((REPEAT_RULE_KEYWORDS as readonly string[]).includes(rule)) {
    let hour: number;
    let minute: number;
    if (input.at !== undefined) {
      const m = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(input.at.trim());
      if (!m) throw new RepeatRuleError('bad_time', 'at: give the time of day as HH:MM (24 h), e.g. 09:00');
      hour = Number(m[1]);
      minute = Number(m[2]);
    } else if (input.firstFireEpoch !== undefined) {
      ({ hour, minute } = wallClock(input.firstFireEpoch, input.timezone));
    } else {
      throw new RepeatRuleError('missing_time', `repeat "${rule}" needs a time: give at ("HH:MM") or delay_seconds`);
    }
    return { rule, cron: `${minute} ${hour} * * ${rule === 'weekdays' ? '1-5' : '*'}`, timezone: input.timezone };
  }
  if (input.at !== undefined)
    throw new RepeatRuleError(
      'bad_time',
      'at: only with repeat "daily" or "weekdays" (a cron expression carries its own time)',
    );
  try {
    // 5 fields only: minute resolution, so a rule cannot fire every second.
    const cron = new Cron(rule, { timezone: input.timezone, mode: '5-part', paused: true });
    if (cron.nextRun(new Date()) === null) throw new Error('it never fires');
  } catch (err) {
    throw new RepeatRuleError(
      'bad_repeat',
      `repeat: "daily", "weekdays" or a 5-field cron expression (minute hour day month weekday); ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  return { rule, cron: rule, timezone: input.timezone };
}

/** The first occurrence strictly after `afterEpochSeconds` (epoch seconds), or null if none. */
export function nextOccurrence(
  repeat: Pick<StoredRepeat, 'cron' | 'timezone'>,
  afterEpochSeconds: number,
): number | null {
  const cron = new Cron(repeat.cron, { timezone: repeat.timezone, mode: '5-part', paused: true });
  const next = cron.nextRun(new Date(afterEpochSeconds * 1000));
  return next ? next.getTime() / 1000 : null;
}

/** The id of the occurrence of `series` firing at `fireEpoch`: the same occurrence always gets the same id. */
export function occurrenceId(series: string, fireEpoch: number): string {
  return `${series}-r${Math.round(fireEpoch)}`;
}

/** The minimal entry shape the series logic reads and writes. */
export interface RepeatingEntry {
  id: string;
  fire_at_epoch: number;
  created_at: number;
  delay_seconds: number;
  state: string;
  attempts: number;
  repeat?: StoredRepeat;
}

/**
 * The next occurrence of `current`'s series as a fresh `scheduled` entry, or null when it does not
 * repeat, has no further occurrence, or that occurrence is already in the store (`exists`).
 * The next time is after both the current fire time and now, so an outage does not replay a burst
 * of missed occurrences: the series resumes at its next time.
 */
export function nextInSeries<T extends RepeatingEntry>(
  current: T,
  now: number,
  exists: (id: string) => boolean,
): T | null {
  if (!current.repeat) return null;
  const fire = nextOccurrence(current.repeat, Math.max(current.fire_at_epoch, now));
  if (fire === null) return null;
  const id = occurrenceId(current.repeat.series, fire);
  if (exists(id)) return null;
  const next = {
    ...current,
    id,
    fire_at_epoch: fire,
    created_at: now,
    delay_seconds: Math.max(0, Math.round(fire - now)),
    state: 'scheduled',
    attempts: 0,
    updated_at: now,
  };
  for (const key of ['last_error', 'delivered_at', 'late_by_seconds', 'next_attempt_at', 'claim'] as const)
    delete (next as unknown as Record<string, unknown>)[key];
  return next as T;
}
