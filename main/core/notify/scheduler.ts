// The persistent notification scheduler behind `local_notify_schedule`, `/schedule` and the CLI.
// Life of an entry: scheduled → delivering → delivered | failed; scheduled → scheduled (retry: an
// attempt that sent nothing) | expired | cancelled. Finished entries stay in the file for audit and
// are pruned after the retention period.
//
// At most once, claimed at the last moment, only while bytes are in flight (delivery-claim.ts): the
// dispatcher calls `onSending` right before each request goes out (after any throttle wait); only
// there is the entry claimed (`delivering`, claim with owner, pid and lease, fdatasync'd). A receiver
// that answers without accepting (5xx, 429) releases it BEFORE any back-off or Retry-After wait:
// the entry is written back `scheduled`, retry at T. If the process dies under a claim, the next
// scheduler finds it with no live owner (claimAbandoned; or its lease expired) and marks the entry
// `failed` ("interrupted"): the user may have got it once, never twice. An attempt that ended with
// nothing accepted is retried with backoff (never before a receiver's Retry-After).
// No polling: a timer waits for the next due entry (at most a minute, so clock jumps and leases are
// noticed), and the store notices other programs' edits (fs.watch + a 2 s stat). Deliveries run
// concurrently, bounded overall and per destination (the entry's mode), so one slow receiver holds
// back only its own destination. Entries later than the tolerance carry "late by …"; later than the
// maximum they are marked `expired` and not delivered; overdue ones start in due order, paced.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { NotifyResult, ScheduledNotification, ScheduleState } from '../api-types.ts';
import type { EventHub } from '../event-hub.ts';
import { DeliveryClaim, unclaimed } from './delivery-claim.ts';
import type { Notifier } from './dispatcher.ts';
import { dueAt, InvalidCursorError, pidAlive, ScheduleStore, type IdempotencyKey, type StoredNotification } from './schedule-store.ts';
import { errorMessage, formatDuration, NotifyCapacityError, NotifyInputError, NotifyStateError, systemClock, type Clock } from './types.ts';
import { parseScheduleRequest, type ScheduleRequest } from './validation.ts';
import { nextInSeries, nextOccurrence, RepeatRuleError, resolveRepeat, systemTimezone } from './repeat.ts';

export const DEFAULT_MAX_PENDING = 10_000;
export const DEFAULT_LATE_TOLERANCE_SECONDS = 60;
export const DEFAULT_MAX_LATENESS_SECONDS = 24 * 3600;
export const LIST_DEFAULT_LIMIT = 100;
export const LIST_MAX_LIMIT = 1000;

export interface SchedulerOptions {
  file: string;
  notifier: Pick<Notifier, 'deliver'>;
  logger: Logger;
  clock?: Clock;
  /**
   * Check for edits by other programs (a stat). Default: fs.watch notices them at once (sooner than
   * the spec's 2 s poll) with a stat every 60 s as a safety net; 2000 ms where fs.watch is unavailable.
   */
  pollMs?: number;
  hub?: EventHub;
  /** Attempts that sent nothing (no destination reachable) before an entry is marked failed. Default 5. */
  maxAttempts?: number;
  /** First retry delay after an attempt that sent nothing, doubling, capped at 15 min. Default 30 s. */
  retryBaseSeconds?: number;
  /** Finished entries are pruned this long after their last change. Default 7 days. */
  retentionSeconds?: number;
  /** A claim older than this is abandoned even if its process still exists. Default 10 min. */
  leaseSeconds?: number;
  lockStaleMs?: number;
  /** Pending (scheduled + delivering) entries allowed; beyond it schedule() is refused. Default 10,000. */
  maxPending?: number;
  /** A delivery later than this carries "late by …". Default 60 s. */
  lateToleranceSeconds?: number;
  /** A delivery later than this is not made; the entry becomes `expired`. Default 24 h. */
  maxLatenessSeconds?: number;
  /** Late (overdue) entries start at most one per this interval. Default 1000 ms. */
  overduePaceMs?: number;
  /** Deliveries in flight at once. Default 8. */
  maxConcurrent?: number;
  /** Deliveries in flight per destination (entry mode). Default 2. */
  perDestination?: number;
  /** Longest stop() waits for deliveries in flight. Default 4000 ms. */
  stopWaitMs?: number;
}

export interface StartOptions {
  /** Destinations are ready (polled every 250 ms); firing waits for it, at most `maxWaitMs`. */
  ready?: () => boolean;
  /** Default 30,000 ms. */
  maxWaitMs?: number;
}

export const DEFAULT_START_WAIT_MS = 30_000;
const READY_POLL_MS = 250;

/** The public view of an entry (what list, the hub and the routes show). */
export type ScheduleEntryView = ScheduledNotification & { next_attempt_at?: number };

export interface ScheduleListQuery {
  limit?: number;
  cursor?: string;
  state?: ScheduleState;
}

export interface ScheduleListPage {
  entries: ScheduleEntryView[];
  /** Pass as `cursor` for the next page; null on the last one. */
  next_cursor: string | null;
  /** Entries in the file (every state). */
  total: number;
  /** Scheduled + delivering: what the cap counts. */
  pending: number;
  max_pending: number;
}

export interface Scheduler {
  readonly file: string;
  /**
   * Throws NotifyInputError for bad input, NotifyCapacityError at the cap, and IdempotentReplay when
   * `idempotency`'s key already created an entry (the route answers with that entry, or 409).
   */
  schedule(request: unknown, idempotency?: IdempotencyKey): Promise<ScheduleEntryView>;
  /** One page by fire time (default 100, at most 1000). Throws NotifyInputError for a bad limit/cursor. */
  list(query?: ScheduleListQuery): Promise<ScheduleListPage>;
  /** Throws NotifyStateError: `not_found` for an unknown id, `conflict` when it is no longer scheduled. */
  cancel(id: string): Promise<ScheduleEntryView>;
  /** Deliver what is due now (recovering abandoned claims first); resolves when those deliveries are recorded. Returns deliveries started. */
  tick(): Promise<number>;
  /**
   * Loads the file and starts firing. With `ready` (e.g. "the Discord bot has logged in") nothing is
   * fired until it returns true or `maxWaitMs` (default 30 s) has passed, so reminders that came due
   * while the process was down do not find Discord `unavailable` and fall through to the webhook.
   */
  start(options?: StartOptions): Promise<void>;
  /** Stops the timer, refuses new claims and waits (bounded) for deliveries in flight to be recorded. */
  stop(): Promise<void>;
}

const TERMINAL = new Set<ScheduleState>(['delivered', 'failed', 'cancelled', 'expired']);
const MAX_RETRY_SECONDS = 15 * 60;
/** The timer never sleeps longer than this: leases expire and wall clocks jump. */
const MAX_TIMER_MS = 60_000;
const DAY_MS = 24 * 3600 * 1000;

export function toView(e: StoredNotification): ScheduleEntryView {
  const view: ScheduleEntryView = {
    id: e.id,
    text: e.text,
    mode: e.mode,
    delay_seconds: e.delay_seconds,
    fire_at_epoch: e.fire_at_epoch,
    created_at: e.created_at,
    state: e.state,
    attempts: e.attempts,
  };
  if (e.title !== undefined) view.title = e.title;
  if (e.source !== undefined) view.source = e.source;
  if (e.last_error !== undefined) view.last_error = e.last_error;
  if (e.delivered_at !== undefined) view.delivered_at = e.delivered_at;
  if (e.late_by_seconds !== undefined) view.late_by_seconds = e.late_by_seconds;
  if (e.next_attempt_at !== undefined) view.next_attempt_at = e.next_attempt_at;
  if (e.repeat !== undefined) view.repeat = { ...e.repeat };
  return view;
}

/** Owners of the schedulers running in this process (a claim by any other owner with our pid is stale). */
const liveOwners = new Set<string>();

/** Start time of `pid` (clock ticks since boot) and whether it is a zombie, from /proc (Linux); null elsewhere or when gone. */
export function procStat(pid: number): { start: string; zombie: boolean } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after "(comm)": state is the 1st, starttime the 20th (field 22 of proc(5)).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ? { start: fields[19], zombie: fields[0] === 'Z' || fields[0] === 'X' } : null;
  } catch {
    return null;
  }
}

/** `<pid>:<instance>`, the instance being `<process start time>-<random>` where /proc exists. */
function ownerId(): string {
  const start = procStat(process.pid)?.start;
  return `${process.pid}:${start ? `${start}-` : ''}${randomBytes(4).toString('hex')}`;
}

/** Whether the scheduler named by a claim's `owner` (made by process `pid`) can still be running. */
export function ownerAlive(claimOwner: string, pid: number): boolean {
  if (pid === process.pid) return liveOwners.has(claimOwner);
  if (!pidAlive(pid)) return false;
  const stat = procStat(pid);
  if (!stat) return true; // no /proc (or unreadable): the pid exists; the lease decides
  if (stat.zombie) return false;
  // The owner carries its process's start time: a different one means the pid was reused.
  const recorded = /^\d+:(\d+)-/.exec(claimOwner)?.[1];
  return recorded === undefined || recorded === stat.start;
}

function summarize(result: NotifyResult): string {
  const parts = Object.entries(result.results)
    .filter(([, o]) => o.status !== 'ok')
    .map(([mode, o]) => `${mode}: ${o.status}${o.detail ? ` (${o.detail})` : ''}`);
  return parts.join('; ').slice(0, 500);
}

/** The request's repeat rule resolved in its timezone (default: this machine's), or null. */
function resolveRequestRepeat(req: ScheduleRequest, now: number): { rule: string; cron: string; timezone: string } | null {
  if (req.repeat === undefined) return null;
  try {
    return resolveRepeat({ rule: req.repeat, timezone: req.timezone ?? systemTimezone(), at: req.at, firstFireEpoch: req.delay_seconds !== undefined ? now + req.delay_seconds : undefined });
  } catch (err) {
    if (err instanceof RepeatRuleError) throw new NotifyInputError(err.code, err.message);
    throw err;
  }
}

export function createScheduler(options: SchedulerOptions): Scheduler {
  const clock = options.clock ?? systemClock;
  const log = options.logger;
  const maxAttempts = options.maxAttempts ?? 5;
  const retryBase = options.retryBaseSeconds ?? 30;
  const retention = options.retentionSeconds ?? 7 * 24 * 3600;
  const lease = options.leaseSeconds ?? 600;
  const maxPending = options.maxPending ?? DEFAULT_MAX_PENDING;
  const tolerance = options.lateToleranceSeconds ?? DEFAULT_LATE_TOLERANCE_SECONDS;
  const maxLateness = options.maxLatenessSeconds ?? DEFAULT_MAX_LATENESS_SECONDS;
  const paceMs = options.overduePaceMs ?? 1000;
  const maxConcurrent = options.maxConcurrent ?? 8;
  const perDestination = options.perDestination ?? 2;
  const stopWaitMs = options.stopWaitMs ?? 4000;
  const owner = ownerId();
  const nowS = (): number => clock.now() / 1000;

  const store = new ScheduleStore({
    file: options.file,
    logger: log,
    lockStaleMs: options.lockStaleMs,
    statIntervalMs: options.pollMs,
    onExternalChange: (change) => {
      publish(change === 'reloaded' ? [] : change, change === 'reloaded');
      arm();
    },
  });
  store.setPruneRule((e) => TERMINAL.has(e.state) && (e.updated_at ?? e.created_at) < nowS() - retention);

  let loaded: Promise<void> | null = null;
  let timer: NodeJS.Timeout | undefined;
  let pruneTimer: NodeJS.Timeout | undefined;
  let running = false;
  let stopping = false;
  /** Set while start() waits for its `ready` check: no timer is armed and nothing fires on its own. */
  let gateTimer: NodeJS.Timeout | undefined;
  let gated = false;
  let nextLateStartMs = 0;
  const inFlight = new Map<string, Promise<void>>();
  const laneBusy = new Map<string, number>();
  /** Ids we hold a claim on right now (so a scan for abandoned claims can skip our own). */
  const ownClaims = new Set<string>();

  const ready = (): Promise<void> => (loaded ??= store.load().then(() => recoverAbandoned()));

  function publish(changed: readonly StoredNotification[], reloaded = false): void {
    if (!options.hub) return;
    options.hub.publish({ type: 'schedule', data: { changed: changed.map(toView), ...(reloaded ? { reloaded: true } : {}) } });
  }

  /**
   * Whether a `delivering` entry's claim has no live owner. Decided by the claim's OWNER identity,
   * not just its pid: a claim made in this process by a scheduler that is no longer running (an
   * in-process core restart, or PID 1 again in a restarted container) is abandoned at once; one by
   * another pid is abandoned when that process is gone, a zombie, or a different process that
   * reused the pid (its start time differs from the one in the owner). The lease is the backstop.
   */
  function claimAbandoned(e: StoredNotification, now: number): boolean {
    if (e.state !== 'delivering') return false;
    if (!e.claim) return true;
    if (e.claim.owner === owner) return false; // ours, in flight
    if (e.claim.lease_until <= now) return true;
    return !ownerAlive(e.claim.owner, e.claim.pid);
  }

  /** Claims whose process is gone: the send may have happened, so the entry is failed, never re-sent. */
  async function recoverAbandoned(): Promise<void> {
    if ((store.counts().delivering ?? 0) <= ownClaims.size) return;
    const written = await store.transact(() => {
      const now = nowS();
      const write: StoredNotification[] = [];
      for (const e of store.values()) {
        if (!claimAbandoned(e, now)) continue;
        write.push({
          ...unclaimed(e, now),
          state: 'failed',
          last_error: `interrupted during delivery attempt ${e.attempts} (the process stopped after it started sending); not retried so it is never sent twice — it may have been delivered once`,
        });
        log.warn({ id: e.id }, 'scheduled notification was interrupted mid-delivery; marked failed');
      }
      return { value: write, write };
    });
    publish(written);
  }

  /**
   * `current` (an occurrence that came due: claimed, expired, retried or finally failed) preceded by
   * its series' next occurrence, if it repeats and the series has none yet: one append, next first,
   * so a crash never leaves the series without its next entry. Written at the occurrence's FIRST
   * attempt, whatever its outcome, so an occurrence being retried (backoff) does not hold back the
   * next one: the series is never skipped. Any later member of the series (even a cancelled one:
   * the series was stopped) means the next one was already written.
   */
  function withNextOccurrence(current: StoredNotification, now: number): StoredNotification[] {
    if (!current.repeat || seriesHasLater(current)) return [current];
    const next = nextInSeries(current, now, (id) => store.get(id) !== undefined);
    return next ? [next, current] : [current];
  }

  function seriesHasLater(e: StoredNotification): boolean {
    const series = e.repeat?.series;
    for (const other of store.values()) if (other.repeat?.series === series && other.fire_at_epoch > e.fire_at_epoch) return true;
    return false;
  }

  function backoff(attempts: number): number {
    return Math.min(retryBase * 2 ** (attempts - 1), MAX_RETRY_SECONDS);
  }

  async function expire(e: StoredNotification, lateBy: number): Promise<void> {
    const written = await store.transact(() => {
      const cur = store.get(e.id);
      if (!cur || cur.state !== 'scheduled') return { value: [], write: [] };
      const record: StoredNotification = {
        ...unclaimed(cur, nowS()),
        state: 'expired',
        last_error: `expired: due ${formatDuration(lateBy)} ago, beyond the ${formatDuration(maxLateness)} maximum lateness; not delivered`,
      };
      delete record.next_attempt_at;
      const write = withNextOccurrence(record, nowS());
      return { value: write, write };
    });
    if (written.length) log.warn({ id: e.id, lateBySeconds: Math.round(lateBy) }, 'scheduled notification expired unsent');
    publish(written);
  }

  async function deliverEntry(e: StoredNotification): Promise<void> {
    const lateBy = nowS() - e.fire_at_epoch;
    const late = lateBy > tolerance;
    // Taken right before each request goes out, released when a receiver answered without
    // accepting it (before any back-off wait): see delivery-claim.ts.
    const claim = new DeliveryClaim({
      store,
      id: e.id,
      owner,
      leaseSeconds: lease,
      nowS,
      stopping: () => stopping,
      markOwnerLive: () => liveOwners.add(owner),
      withNextOccurrence,
      written: (records, claimed) => {
        if (claimed) ownClaims.add(e.id);
        else ownClaims.delete(e.id);
        publish(records);
        if (records.length > 1) arm(); // the series' next occurrence is now due at its time
      },
    });

    let result: NotifyResult | null = null;
    let failure: string | undefined;
    let permanent = false;
    try {
      const text = late ? `${e.text} (late by ${formatDuration(lateBy)})` : e.text;
      result = await options.notifier.deliver(
        { text, mode: e.mode, title: e.title, source: e.source ?? 'scheduler' },
        { subEvent: 'agent_notify_scheduled', notificationId: e.id, onSending: (mode) => claim.take(mode), onNotAccepted: (mode, retryAtMs, detail) => claim.release(mode, retryAtMs, detail) },
      );
      // `unknown` (nothing known delivered, a send may have been) is a failure too: never recorded
      // as delivered, never retried.
      if (result.status === 'error' || result.status === 'unknown') failure = summarize(result) || 'nothing delivered';
    } catch (err) {
      failure = errorMessage(err);
      permanent = err instanceof NotifyInputError;
    }
    const claimed = claim.held;
    // Refused, or shutting down with nothing held: the file already says the truth (scheduled, or
    // "not accepted, retry at T" from a release), so the next start goes on from there.
    if ((claim.refused || stopping) && !claimed) {
      log.info({ id: e.id }, 'scheduled notification was cancelled, claimed elsewhere or stopped with nothing in flight; left for later');
      return;
    }

    const recorded = await store.transact(() => {
      const cur = store.get(e.id);
      const now = nowS();
      if (!cur) return { value: [], write: [] };
      if (claimed && cur.claim?.owner !== owner) {
        log.warn({ id: e.id }, 'scheduled notification changed hands during delivery; outcome not recorded');
        return { value: [], write: [] };
      }
      if (!claimed && cur.state !== 'scheduled') return { value: [], write: [] }; // cancelled meanwhile
      const next = unclaimed(cur, now);
      if (!claim.everTaken) next.attempts = cur.attempts + 1; // an attempt that sent nothing is counted here
      if (!failure && result) {
        next.state = 'delivered';
        next.delivered_at = result.notified_at;
        delete next.next_attempt_at;
        if (late) next.late_by_seconds = Math.round(lateBy);
        if (result.status === 'partial') next.last_error = `partial: ${summarize(result)}`;
        else delete next.last_error;
      } else if (claimed) {
        // Something was sent (or handed over) and the result was a failure: retrying the whole
        // notification could deliver it twice, so it ends here with the reasons.
        next.state = 'failed';
        next.last_error = `${failure} (sending was attempted; not retried as a whole, so it is never delivered twice)`;
        delete next.next_attempt_at;
      } else if (permanent || next.attempts >= maxAttempts) {
        next.state = 'failed';
        next.last_error = `${failure} (after ${next.attempts} attempt${next.attempts === 1 ? '' : 's'}; nothing was sent)`;
        delete next.next_attempt_at;
      } else {
        next.state = 'scheduled';
        next.last_error = failure;
        // Not before the time a receiver asked for (Retry-After), whatever our own back-off says.
        next.next_attempt_at = Math.max(now + backoff(next.attempts), claim.retryAt ?? 0);
      }
      log.info({ id: e.id, state: next.state, attempts: next.attempts }, 'scheduled notification attempt recorded');
      // A repeating occurrence's first attempt writes the series' next one whatever its outcome
      // (usually already done by the claim), so a retried occurrence never delays the series.
      const write = withNextOccurrence(next, now);
      return { value: write, write };
    });
    ownClaims.delete(e.id);
    publish(recorded);
  }

  /** Start every due delivery the bounds allow. Returns the promises of those started. */
  function pump(): Promise<void>[] {
    const started: Promise<void>[] = [];
    const held: StoredNotification[] = [];
    let paced = false;
    const now = nowS();
    for (;;) {
      if (stopping || inFlight.size >= maxConcurrent) break;
      const e = store.takeDue(now);
      if (!e) break;
      if (inFlight.has(e.id)) continue; // already going; its outcome re-indexes it
      const lateBy = now - e.fire_at_epoch;
      if (lateBy > maxLateness) {
        started.push(track(e, expire(e, lateBy), null));
        continue;
      }
      const lane = e.mode;
      if ((laneBusy.get(lane) ?? 0) >= perDestination) {
        held.push(e);
        continue;
      }
      if (lateBy > tolerance) {
        if (clock.now() < nextLateStartMs) {
          held.push(e);
          paced = true;
          continue;
        }
        nextLateStartMs = clock.now() + paceMs;
      }
      laneBusy.set(lane, (laneBusy.get(lane) ?? 0) + 1);
      started.push(track(e, deliverEntry(e), lane));
    }
    for (const e of held) store.putBack(e);
    arm(paced);
    return started;
  }

  function track(e: StoredNotification, work: Promise<void>, lane: string | null): Promise<void> {
    const done = work
      .catch((err: unknown) => log.error({ err, id: e.id }, 'scheduled delivery could not be recorded'))
      .finally(() => {
        inFlight.delete(e.id);
        if (lane) laneBusy.set(lane, (laneBusy.get(lane) ?? 1) - 1);
        const cur = store.get(e.id);
        if (cur?.state === 'scheduled') store.putBack(cur); // nothing recorded (refused): keep it findable
        if (running && !stopping && !gated) pump();
      });
    inFlight.set(e.id, done);
    return done;
  }

  /** Wake for the next due entry (or the pacing slot); nothing runs while nothing is due. */
  function arm(paced = false): void {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (!running || stopping || gated) return;
    const next = store.peekDue();
    const nowMs = clock.now();
    let wakeMs = next ? dueAt(next) * 1000 : nowMs + MAX_TIMER_MS;
    if (next && wakeMs <= nowMs) {
      // Due but held: by pacing → wake at the slot; by busy destinations → their completion pumps.
      if (paced) wakeMs = nextLateStartMs;
      else if (inFlight.size > 0) wakeMs = nowMs + MAX_TIMER_MS;
    }
    timer = setTimeout(onTimer, Math.min(Math.max(0, wakeMs - nowMs), MAX_TIMER_MS));
    timer.unref();
  }

  function onTimer(): void {
    timer = undefined;
    recoverAbandoned()
      .then(() => pump())
      .catch((err: unknown) => {
        log.error({ err }, 'scheduler wake-up failed');
        arm();
      });
  }

  async function prune(): Promise<void> {
    const cutoff = nowS() - retention;
    let prunable = false;
    for (const e of store.values()) {
      if (TERMINAL.has(e.state) && (e.updated_at ?? e.created_at) < cutoff) {
        prunable = true;
        break;
      }
    }
    if (prunable) await store.compact();
  }

  /**
   * For a repeating reminder, any member's id stands for the series: cancelling it cancels the
   * occurrence still scheduled (which stops the series). Others: the entry itself.
   */
  function seriesPending(e: StoredNotification | undefined): StoredNotification | undefined {
    if (!e?.repeat || e.state === 'scheduled') return e;
    const series = e.repeat.series;
    for (const other of store.values()) if (other.repeat?.series === series && other.state === 'scheduled') return other;
    return e;
  }

  const scheduler: Scheduler = {
    file: options.file,
    async schedule(request, idempotency) {
      const req = parseScheduleRequest(request);
      const repeat = resolveRequestRepeat(req, nowS());
      await ready();
      const entry = await store.transact(() => {
        if (store.pendingCount >= maxPending) throw new NotifyCapacityError(maxPending);
        const now = nowS();
        const id = `n-${randomBytes(6).toString('hex')}`;
        const fireAt = req.delay_seconds !== undefined ? now + req.delay_seconds : repeat ? nextOccurrence(repeat, now) : null;
        if (fireAt === null) throw new NotifyInputError('bad_repeat', 'repeat: the rule has no future occurrence');
        const record: StoredNotification = {
          id,
          text: req.text,
          mode: req.mode,
          delay_seconds: req.delay_seconds ?? Math.max(0, Math.round(fireAt - now)),
          fire_at_epoch: fireAt,
          created_at: now,
          state: 'scheduled',
          attempts: 0,
          updated_at: now,
        };
        if (req.title) record.title = req.title;
        if (req.source) record.source = req.source;
        if (repeat) record.repeat = { ...repeat, series: id };
        return { value: record, write: [record] };
      }, idempotency);
      publish([entry]);
      arm();
      return toView(entry);
    },
    async list(query = {}) {
      await ready();
      const limit = query.limit ?? LIST_DEFAULT_LIMIT;
      if (!Number.isInteger(limit) || limit < 1 || limit > LIST_MAX_LIMIT) throw new NotifyInputError('bad_limit', `limit must be an integer from 1 to ${LIST_MAX_LIMIT}`);
      let page;
      try {
        page = store.page({ limit, cursor: query.cursor, state: query.state });
      } catch (err) {
        if (err instanceof InvalidCursorError) throw new NotifyInputError('bad_cursor', err.message);
        throw err;
      }
      return { entries: page.entries.map(toView), next_cursor: page.next_cursor, total: store.size, pending: store.pendingCount, max_pending: maxPending };
    },
    async cancel(id) {
      await ready();
      const written = await store.transact(() => {
        const e = seriesPending(store.get(id));
        if (!e) throw new NotifyStateError('not_found', `no scheduled notification with id ${JSON.stringify(id)}`);
        if (e.state === 'delivering') throw new NotifyStateError('conflict', `notification ${id} is being delivered now`);
        if (e.state !== 'scheduled') throw new NotifyStateError('conflict', `notification ${id} is already ${e.state}`);
        // A series can have two occurrences scheduled (one being retried, the next one): stop both.
        const targets = e.repeat ? [...store.values()].filter((o) => o.repeat?.series === e.repeat!.series && o.state === 'scheduled').sort((a, b) => a.fire_at_epoch - b.fire_at_epoch) : [e];
        const write = targets.map((o): StoredNotification => {
          const next: StoredNotification = { ...o, state: 'cancelled', updated_at: nowS() };
          delete next.next_attempt_at;
          return next;
        });
        return { value: write, write };
      });
      publish(written);
      return toView(written.find((r) => r.id === id) ?? written[0]!);
    },
    async tick() {
      await ready();
      await recoverAbandoned();
      const started = pump();
      await Promise.all(started);
      return started.length;
    },
    async start(startOptions = {}) {
      if (running) return;
      await ready();
      stopping = false;
      running = true;
      await prune();
      store.watch();
      pruneTimer = setInterval(() => void prune().catch((err: unknown) => log.warn({ err }, 'schedule pruning failed')), DAY_MS);
      pruneTimer.unref();
      const destinationsReady = startOptions.ready;
      if (!destinationsReady || destinationsReady()) {
        pump(); // overdue entries start at once (paced), not one timer later
        return;
      }
      // Overdue entries wait (bounded) for the destinations: right after a restart the Discord bot
      // is still logging in, and an `auto` reminder would otherwise skip DM and channel.
      gated = true;
      const waitMs = startOptions.maxWaitMs ?? DEFAULT_START_WAIT_MS;
      const startedAt = Date.now(); // real time: it bounds a real login, whatever the scheduling clock says
      const poll = (): void => {
        gateTimer = undefined;
        if (!running || stopping) return;
        const isReady = destinationsReady();
        if (!isReady && Date.now() - startedAt < waitMs) {
          gateTimer = setTimeout(poll, READY_POLL_MS);
          gateTimer.unref();
          return;
        }
        gated = false;
        if (!isReady) log.warn({ waitedMs: waitMs }, 'destinations still not ready; firing due notifications anyway');
        else log.info({ waitedMs: Date.now() - startedAt }, 'destinations ready; firing due notifications');
        pump();
      };
      gateTimer = setTimeout(poll, READY_POLL_MS);
      gateTimer.unref();
    },
    async stop() {
      stopping = true;
      running = false;
      if (timer) clearTimeout(timer);
      if (pruneTimer) clearInterval(pruneTimer);
      if (gateTimer) clearTimeout(gateTimer);
      timer = pruneTimer = gateTimer = undefined;
      gated = false;
      let bound: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => (bound = setTimeout(resolve, stopWaitMs)));
      await Promise.race([Promise.all(inFlight.values()), waited]);
      clearTimeout(bound);
      if (inFlight.size) log.warn({ inFlight: inFlight.size }, 'stopped with deliveries still in flight; their claims are recovered at the next start');
      liveOwners.delete(owner); // from now on a claim of ours left in the file is abandoned, even to a scheduler in this process
      await store.close();
      loaded = null;
    },
  };
  return scheduler;
}
