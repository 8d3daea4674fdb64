// Repeating reminders as the scheduler sees them: each occurrence is its own entry, and a series is
// the entries whose `repeat.series` names the same first id (the rule itself is repeat.ts's). Also
// the record a new request creates, once or the first of a series.
import { randomBytes } from 'node:crypto';
import { nextInSeries, nextOccurrence, RepeatRuleError, resolveRepeat, systemTimezone } from './repeat.ts';
import type { ScheduleStore, StoredNotification } from './schedule-store.ts';
import { NotifyInputError } from './types.ts';
import { MAX_DELAY_SECONDS, type ScheduleRequest } from './validation.ts';

type ResolvedRepeat = { rule: string; cron: string; timezone: string };

/** A `fire_at_epoch` this far in the past is still taken (due at once): the request took a moment to arrive. */
const FIRE_AT_GRACE_SECONDS = 60;

/** When the request's first (or only) occurrence is due: `fire_at_epoch` as given, or now + `delay_seconds`. */
function requestedFireAt(req: ScheduleRequest, now: number): number | undefined {
  if (req.fire_at_epoch === undefined) return req.delay_seconds !== undefined ? now + req.delay_seconds : undefined;
  const ahead = req.fire_at_epoch - now;
  if (ahead < -FIRE_AT_GRACE_SECONDS)
    throw new NotifyInputError(
      'bad_delay',
      `fire_at_epoch: ${req.fire_at_epoch} has passed (${Math.round(-ahead)} s ago)`,
    );
  if (ahead > MAX_DELAY_SECONDS)
    throw new NotifyInputError(
      'bad_delay',
      `fire_at_epoch: ${req.fire_at_epoch} is more than ${MAX_DELAY_SECONDS} s (30 days) ahead`,
    );
  return req.fire_at_epoch;
}

/** The request's repeat rule resolved in its timezone (default: this machine's), or null. */
export function resolveRequestRepeat(req: ScheduleRequest, now: number): ResolvedRepeat | null {
  if (req.repeat === undefined) return null;
  try {
    return resolveRepeat({
      rule: req.repeat,
      timezone: req.timezone ?? systemTimezone(),
      at: req.at,
      firstFireEpoch: requestedFireAt(req, now),
    });
  } catch (err) {
    if (err instanceof RepeatRuleError) throw new NotifyInputError(err.code, err.message);
    throw err;
  }
}

/** The entry a valid request creates at `now` (a series' first occurrence when it repeats). */
export function newScheduledRecord(
  req: ScheduleRequest,
  repeat: ResolvedRepeat | null,
  now: number,
): StoredNotification {
  const id = `n-${randomBytes(6).toString('hex')}`;
  const requested = requestedFireAt(req, now);
  const fireAt = requested ?? (repeat ? nextOccurrence(repeat, now) : null);
  if (fireAt === null) throw new NotifyInputError('bad_repeat', 'repeat: the rule has no future occurrence');
  const record: StoredNotification = {
    id,
    text: req.text,
    mode: req.mode,
    // With fire_at_epoch: the delay to the millisecond (created_at + delay_seconds ≈ the moment asked for).
    delay_seconds:
      req.delay_seconds ??
      (req.fire_at_epoch !== undefined
        ? Math.max(0, Math.round((fireAt - now) * 1000) / 1000)
        : Math.max(0, Math.round(fireAt - now))),
    fire_at_epoch: fireAt,
    created_at: now,
    state: 'scheduled',
    attempts: 0,
    updated_at: now,
  };
  if (req.title) record.title = req.title;
  if (req.source) record.source = req.source;
  if (repeat) record.repeat = { ...repeat, series: id };
  return record;
}

export class ScheduleSeries {
  readonly #store: ScheduleStore;

  constructor(store: ScheduleStore) {
    this.#store = store;
  }

  /**
   * `current` (an occurrence that came due: claimed, expired, retried or finally failed) preceded by
   * its series' next occurrence, if it repeats and the series has none yet: one append, next first,
   * so a crash never leaves the series without its next entry. Written at the occurrence's FIRST
   * attempt, whatever its outcome, so an occurrence being retried (backoff) does not hold back the
   * next one: the series is never skipped. Any later member of the series (even a cancelled one:
   * the series was stopped) means the next one was already written.
   */
  withNextOccurrence(current: StoredNotification, now: number): StoredNotification[] {
    if (!current.repeat || this.#hasLater(current)) return [current];
    const next = nextInSeries(current, now, (id) => this.#store.get(id) !== undefined);
    return next ? [next, current] : [current];
  }

  /**
   * For a repeating reminder, any member's id stands for the series: cancelling it cancels the
   * occurrence still scheduled (which stops the series). Others: the entry itself.
   */
  pendingMember(e: StoredNotification | undefined): StoredNotification | undefined {
    if (!e?.repeat || e.state === 'scheduled') return e;
    return this.#store.seriesScheduled(e.repeat.series)[0] ?? e;
  }

  /** What cancelling `e` stops: a series can have two occurrences scheduled (one being retried, the next one). */
  cancelTargets(e: StoredNotification): StoredNotification[] {
    if (!e.repeat) return [e];
    return this.#store.seriesScheduled(e.repeat.series);
  }

  #hasLater(e: StoredNotification): boolean {
    return e.repeat !== undefined && this.#store.seriesHasLater(e.repeat.series, e.fire_at_epoch);
  }
}
