// The persistent notification scheduler behind `local_notify_schedule`, `/schedule` and the CLI.
// Life of an entry: scheduled → delivering → delivered | failed; scheduled → scheduled (retry: an
// attempt that sent nothing) | expired | cancelled. Finished entries stay in the file for audit and
// are pruned after the retention period. The entries live in the core's database (schedule-store.ts).
//
// At most once, claimed at the last moment, only while bytes are in flight (delivery-claim.ts): the
// dispatcher calls `onSending` right before each request goes out (after any throttle wait); only
// there is the entry claimed (`delivering`, claim with owner, pid and lease, committed and fsync'd). A receiver
// that answers without accepting (5xx, 429) releases it BEFORE any back-off or Retry-After wait:
// the entry is written back `scheduled`, retry at T. If the process dies under a claim, the next
// scheduler finds it with no live owner (claim-owner.ts; or its lease expired) and marks the entry
// `failed` ("interrupted"): the user may have got it once, never twice. An attempt that ended with
// nothing accepted is retried with backoff (never before a receiver's Retry-After): delivery-attempt.ts.
// No polling: a timer waits for the next due entry (delivery-loop.ts: bounded overall and per
// destination, overdue entries paced, past the maximum lateness `expired`), and the store notices
// other processes' commits (schedule-watch.ts). Repeating reminders: schedule-series.ts. This file
// composes them and answers the API (schedule, list, cancel, tick, start, stop).
import type { Logger } from 'pino';
import type { ScheduledNotification, ScheduleState } from '../api-types.ts';
import type { EventHub } from '../event-hub.ts';
import { markOwnerStopped, newOwnerId } from './claim-owner.ts';
import type { DeliveryPolicy } from './delivery-attempt.ts';
import { DeliveryLoop } from './delivery-loop.ts';
import type { Notifier } from './dispatcher.ts';
import { newScheduledRecord, resolveRequestRepeat, ScheduleSeries } from './schedule-series.ts';
import { InvalidCursorError, ScheduleStore, type IdempotencyKey, type StoredNotification } from './schedule-store.ts';
import { NotifyCapacityError, NotifyInputError, NotifyStateError } from './types.ts';
import { systemClock, type Clock } from '../contracts/clock.ts';
import { parseScheduleRequest } from './validation.ts';

export { ownerAlive, procStat } from './claim-owner.ts';

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
   * Check for other processes' changes (one row read). Default: fs.watch notices their commits at once
   * (sooner than the spec's 2 s poll) with a check every 60 s as a safety net; 2000 ms where fs.watch is unavailable.
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
  /**
   * How long a change waits for another process's open transaction before it is refused with
   * `schedule_locked` (SQLite's write lock; a killed holder's lock is gone with it). Default 2000 ms.
   */
  lockStaleMs?: number;
  /** Pending (scheduled + delivering) entries allowed; beyond it schedule() is refused. Default 10,000. */
  maxPending?: number;
  /** A delivery later than this carries "late by …". Default 60 s. */
  lateToleranceSeconds?: number;
  /** A delivery later than this is not made; the entry becomes `expired`. Default 24 h. */
  maxLatenessSeconds?: number;
  /**
   * Per mode, how long after a reminder's first send its receiver drops a repeat (Discord's nonce,
   * a webhook receiver that honours the Idempotency-Key): a reminder of that mode interrupted
   * mid-send is sent again after a restart within it, instead of written off. Default: none.
   */
  resendWindows?: DeliveryPolicy['resendWindows'];
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
  /** Entries in the schedule (every state). */
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

function policyOf(options: SchedulerOptions): DeliveryPolicy {
  return {
    maxAttempts: options.maxAttempts ?? 5,
    retryBaseSeconds: options.retryBaseSeconds ?? 30,
    leaseSeconds: options.leaseSeconds ?? 600,
    lateToleranceSeconds: options.lateToleranceSeconds ?? DEFAULT_LATE_TOLERANCE_SECONDS,
    maxLatenessSeconds: options.maxLatenessSeconds ?? DEFAULT_MAX_LATENESS_SECONDS,
    resendWindows: options.resendWindows ?? {},
  };
}

/**
 * Hold firing (loop.gated) until `destinationsReady()` or `waitMs` of real time has passed, then pump:
 * right after a restart the Discord bot is still logging in, and an `auto` reminder would otherwise
 * skip DM and channel. Returns a cancel for stop().
 */
function gateUntilReady(loop: DeliveryLoop, destinationsReady: () => boolean, waitMs: number, log: Logger): () => void {
  loop.gated = true;
  let gateTimer: NodeJS.Timeout | undefined;
  const startedAt = Date.now(); // real time: it bounds a real login, whatever the scheduling clock says
  const poll = (): void => {
    gateTimer = undefined;
    if (!loop.running || loop.stopping) return;
    const isReady = destinationsReady();
    if (!isReady && Date.now() - startedAt < waitMs) {
      gateTimer = setTimeout(poll, READY_POLL_MS);
      gateTimer.unref();
      return;
    }
    loop.gated = false;
    if (!isReady) log.warn({ waitedMs: waitMs }, 'destinations still not ready; firing due notifications anyway');
    else log.info({ waitedMs: Date.now() - startedAt }, 'destinations ready; firing due notifications');
    loop.pump();
  };
  gateTimer = setTimeout(poll, READY_POLL_MS);
  gateTimer.unref();
  return () => clearTimeout(gateTimer);
}

export function createScheduler(options: SchedulerOptions): Scheduler {
  return new PersistentScheduler(options);
}

class PersistentScheduler implements Scheduler {
  readonly file: string;
  readonly #options: SchedulerOptions;
  readonly #log: Logger;
  readonly #clock: Clock;
  readonly #retention: number;
  readonly #maxPending: number;
  readonly #owner = newOwnerId();
  readonly #store: ScheduleStore;
  readonly #series: ScheduleSeries;
  readonly #loop: DeliveryLoop;
  #loaded: Promise<void> | null = null;
  #pruneTimer: NodeJS.Timeout | undefined;
  #cancelGate: (() => void) | undefined;

  constructor(options: SchedulerOptions) {
    this.file = options.file;
    this.#options = options;
    this.#log = options.logger;
    this.#clock = options.clock ?? systemClock;
    this.#retention = options.retentionSeconds ?? 7 * 24 * 3600;
    this.#maxPending = options.maxPending ?? DEFAULT_MAX_PENDING;
    const publish = (changed: readonly StoredNotification[]): void => this.#publish(changed);
    this.#store = new ScheduleStore({
      file: options.file,
      logger: this.#log,
      busyTimeoutMs: options.lockStaleMs,
      statIntervalMs: options.pollMs,
    });
    this.#series = new ScheduleSeries(this.#store);
    this.#loop = new DeliveryLoop(
      {
        store: this.#store,
        notifier: options.notifier,
        log: this.#log,
        owner: this.#owner,
        nowS: () => this.#nowS(),
        policy: policyOf(options),
        series: this.#series,
        publish,
      },
      this.#clock,
      {
        paceMs: options.overduePaceMs ?? 1000,
        maxConcurrent: options.maxConcurrent ?? 8,
        perDestination: options.perDestination ?? 2,
      },
    );
    this.#store.setExternalChangeListener((change) => {
      this.#publish(change === 'reloaded' ? [] : change, change === 'reloaded');
      this.#loop.arm();
    });
  }

  async schedule(request: unknown, idempotency?: IdempotencyKey): Promise<ScheduleEntryView> {
    const req = parseScheduleRequest(request);
    const repeat = resolveRequestRepeat(req, this.#nowS());
    await this.#ready();
    const entry = await this.#store.transact(() => {
      if (this.#store.pendingCount >= this.#maxPending) throw new NotifyCapacityError(this.#maxPending);
      const record = newScheduledRecord(req, repeat, this.#nowS());
      return { value: record, write: [record] };
    }, idempotency);
    this.#publish([entry]);
    this.#loop.arm();
    return toView(entry);
  }

  async list(query: ScheduleListQuery = {}): Promise<ScheduleListPage> {
    await this.#ready();
    const limit = query.limit ?? LIST_DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > LIST_MAX_LIMIT)
      throw new NotifyInputError('bad_limit', `limit must be an integer from 1 to ${LIST_MAX_LIMIT}`);
    let page;
    try {
      page = this.#store.page({ limit, cursor: query.cursor, state: query.state });
    } catch (err) {
      if (err instanceof InvalidCursorError) throw new NotifyInputError('bad_cursor', err.message);
      throw err;
    }
    return {
      entries: page.entries.map(toView),
      next_cursor: page.next_cursor,
      total: this.#store.size,
      pending: this.#store.pendingCount,
      max_pending: this.#maxPending,
    };
  }

  async cancel(id: string): Promise<ScheduleEntryView> {
    await this.#ready();
    const written = await this.#store.transact(() => {
      const e = this.#series.pendingMember(this.#store.get(id));
      if (!e) throw new NotifyStateError('not_found', `no scheduled notification with id ${JSON.stringify(id)}`);
      if (e.state === 'delivering') throw new NotifyStateError('conflict', `notification ${id} is being delivered now`);
      if (e.state !== 'scheduled') throw new NotifyStateError('conflict', `notification ${id} is already ${e.state}`);
      const write = this.#series.cancelTargets(e).map((o): StoredNotification => {
        const next: StoredNotification = { ...o, state: 'cancelled', updated_at: this.#nowS() };
        delete next.next_attempt_at;
        return next;
      });
      return { value: write, write };
    });
    this.#publish(written);
    return toView(written.find((r) => r.id === id) ?? written[0]!);
  }

  async tick(): Promise<number> {
    await this.#ready();
    await this.#loop.recoverAbandoned();
    const started = this.#loop.pump();
    await Promise.all(started);
    return started.length;
  }

  async start(startOptions: StartOptions = {}): Promise<void> {
    const loop = this.#loop;
    if (loop.running) return;
    await this.#ready();
    loop.stopping = false;
    loop.running = true;
    await this.#prune();
    this.#store.watch();
    this.#pruneTimer = setInterval(
      () => void this.#prune().catch((err: unknown) => this.#log.warn({ err }, 'schedule pruning failed')),
      DAY_MS,
    );
    this.#pruneTimer.unref();
    const destinationsReady = startOptions.ready;
    if (!destinationsReady || destinationsReady())
      loop.pump(); // overdue entries start at once (paced), not one timer later
    else
      this.#cancelGate = gateUntilReady(
        loop,
        destinationsReady,
        startOptions.maxWaitMs ?? DEFAULT_START_WAIT_MS,
        this.#log,
      );
  }

  async stop(): Promise<void> {
    if (this.#pruneTimer) clearInterval(this.#pruneTimer);
    this.#cancelGate?.();
    this.#pruneTimer = this.#cancelGate = undefined;
    const inFlight = await this.#loop.stop(this.#options.stopWaitMs ?? 4000);
    if (inFlight)
      this.#log.warn(
        { inFlight },
        'stopped with deliveries still in flight; their claims are recovered at the next start',
      );
    markOwnerStopped(this.#owner); // from now on a claim of ours left in the database is abandoned, even to a scheduler in this process
    await this.#store.close();
    this.#loaded = null;
  }

  #nowS(): number {
    return this.#clock.now() / 1000;
  }

  #ready(): Promise<void> {
    return (this.#loaded ??= this.#store.load().then(() => this.#loop.recoverAbandoned()));
  }

  #publish(changed: readonly StoredNotification[], reloaded = false): void {
    this.#options.hub?.publish({
      type: 'schedule',
      data: { changed: changed.map(toView), ...(reloaded ? { reloaded: true } : {}) },
    });
  }

  /** Delete finished entries whose last change is older than the retention. */
  async #prune(): Promise<void> {
    await this.#store.prune(this.#nowS() - this.#retention);
  }
}
