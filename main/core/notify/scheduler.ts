// The persistent notification scheduler behind `local_notify_schedule`, `/schedule` and the CLI.
// Life of an entry: scheduled → delivering → delivered | scheduled (retry later) | failed;
// scheduled → cancelled. Terminal entries stay in the file for audit and are pruned after the
// retention period.
//
// At most once: before delivering, the entry is claimed (`delivering`, attempts+1, claim with pid
// and lease) and that claim is fsynced; only then is the notification sent. If the process dies
// between the claim and recording the outcome, the next scheduler finds a claim whose process is
// gone (or whose lease expired) and marks the entry `failed` ("interrupted") instead of sending it
// again: the user may have got it once, never twice. A delivery that returned `error` delivered
// nothing, so it is retried with backoff up to `maxAttempts`.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { NotifyResult, ScheduledNotification } from '../api-types.ts';
import type { EventHub } from '../event-hub.ts';
import type { Notifier } from './dispatcher.ts';
import { ScheduleStore, type StoredNotification } from './schedule-store.ts';
import { errorMessage, NotifyInputError, NotifyStateError, systemClock, type Clock } from './types.ts';
import { parseScheduleRequest } from './validation.ts';

export interface SchedulerOptions {
  file: string;
  notifier: Pick<Notifier, 'deliver'>;
  logger: Logger;
  clock?: Clock;
  /** Poll interval. Default 2000 (spec). */
  pollMs?: number;
  hub?: EventHub;
  /** Delivery attempts before an entry is marked failed. Default 5. */
  maxAttempts?: number;
  /** First retry delay, doubling per attempt, capped at 15 min. Default 30 s (30, 60, 120, 240). */
  retryBaseSeconds?: number;
  /** Delivered/failed/cancelled entries are pruned this long after their last change. Default 7 days. */
  retentionSeconds?: number;
  /** A claim older than this is abandoned even if its process still exists. Default 10 min. */
  leaseSeconds?: number;
  lockStaleMs?: number;
}

/** The public view of an entry (what list, the hub and the routes show). */
export type ScheduleEntryView = ScheduledNotification & { next_attempt_at?: number };

export interface Scheduler {
  readonly file: string;
  schedule(request: unknown): Promise<ScheduleEntryView>;
  list(): Promise<ScheduleEntryView[]>;
  /** Throws NotifyStateError: `not_found` for an unknown id, `conflict` when it is no longer scheduled. */
  cancel(id: string): Promise<ScheduleEntryView>;
  /** One poll: recover abandoned claims, deliver due entries oldest first. Returns deliveries attempted. */
  tick(): Promise<number>;
  start(): Promise<void>;
  /** Stops polling and waits for an in-flight delivery to be recorded. */
  stop(): Promise<void>;
}

const TERMINAL = new Set(['delivered', 'failed', 'cancelled']);
const MAX_RETRY_SECONDS = 15 * 60;

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
  if (e.next_attempt_at !== undefined) view.next_attempt_at = e.next_attempt_at;
  return view;
}

const dueAt = (e: StoredNotification): number => e.next_attempt_at ?? e.fire_at_epoch;

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function summarize(result: NotifyResult): string {
  const parts = Object.entries(result.results)
    .filter(([, o]) => o.status !== 'ok')
    .map(([mode, o]) => `${mode}: ${o.status}${o.detail ? ` (${o.detail})` : ''}`);
  return parts.join('; ').slice(0, 500);
}

export function createScheduler(options: SchedulerOptions): Scheduler {
  const clock = options.clock ?? systemClock;
  const log = options.logger;
  const pollMs = options.pollMs ?? 2000;
  const maxAttempts = options.maxAttempts ?? 5;
  const retryBase = options.retryBaseSeconds ?? 30;
  const retention = options.retentionSeconds ?? 7 * 24 * 3600;
  const lease = options.leaseSeconds ?? 600;
  const store = new ScheduleStore({ file: options.file, logger: log, lockStaleMs: options.lockStaleMs });
  const owner = `${process.pid}:${randomBytes(4).toString('hex')}`;
  const nowS = (): number => clock.now() / 1000;

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | null = null;
  let stopping = false;
  let lastPublished = '';

  function publish(entries: readonly StoredNotification[]): void {
    if (!options.hub) return;
    const views = entries.map(toView);
    const json = JSON.stringify(views);
    if (json === lastPublished) return;
    lastPublished = json;
    options.hub.publish({ type: 'schedule', data: { entries: views } });
  }

  function claimAbandoned(e: StoredNotification, now: number): boolean {
    if (e.state !== 'delivering') return false;
    if (!e.claim) return true;
    if (e.claim.owner === owner) return false; // ours, in flight
    if (e.claim.lease_until <= now) return true;
    return e.claim.pid !== process.pid && !pidAlive(e.claim.pid);
  }

  /** Recovery + pruning applied inside every write. Returns true when something changed. */
  function maintain(entries: StoredNotification[], now: number): { changed: boolean; entries: StoredNotification[] } {
    let changed = false;
    for (const e of entries) {
      if (claimAbandoned(e, now)) {
        e.state = 'failed';
        e.last_error = `interrupted during delivery attempt ${e.attempts} (the process stopped); not retried so it is never sent twice — it may have been delivered once`;
        e.updated_at = now;
        delete e.claim;
        changed = true;
        log.warn({ id: e.id }, 'scheduled notification was interrupted mid-delivery; marked failed');
      }
    }
    const kept = entries.filter((e) => !(TERMINAL.has(e.state) && (e.updated_at ?? e.created_at) < now - retention));
    return { changed: changed || kept.length !== entries.length, entries: kept };
  }

  async function mutate<T>(fn: (entries: StoredNotification[], now: number) => { changed: boolean; value: T }): Promise<T> {
    let snapshot: StoredNotification[] = [];
    const value = await store.update((entries) => {
      const now = nowS();
      const outcome = fn(entries, now);
      const maintained = maintain(entries, now);
      snapshot = maintained.entries;
      return { changed: outcome.changed || maintained.changed, value: outcome.value, entries: maintained.entries };
    });
    publish(snapshot);
    return value;
  }

  async function deliverOne(id: string): Promise<boolean> {
    const claimed = await mutate((entries, now) => {
      const e = entries.find((x) => x.id === id);
      if (!e || e.state !== 'scheduled' || dueAt(e) > now) return { changed: false, value: null };
      e.state = 'delivering';
      e.attempts += 1;
      e.updated_at = now;
      e.claim = { owner, pid: process.pid, lease_until: now + lease };
      return { changed: true, value: { ...e } };
    });
    if (!claimed) return false;

    let result: NotifyResult | null = null;
    let failure: string | undefined;
    let permanent = false;
    try {
      result = await options.notifier.deliver(
        { text: claimed.text, mode: claimed.mode, title: claimed.title, source: claimed.source ?? 'scheduler' },
        { subEvent: 'agent_notify_scheduled' },
      );
      if (result.status === 'error') failure = summarize(result) || 'nothing delivered';
    } catch (err) {
      failure = errorMessage(err);
      permanent = err instanceof NotifyInputError;
    }

    await mutate((entries, now) => {
      const e = entries.find((x) => x.id === id);
      if (!e || e.claim?.owner !== owner) {
        log.warn({ id }, 'scheduled notification changed hands during delivery; outcome not recorded');
        return { changed: false, value: undefined };
      }
      delete e.claim;
      e.updated_at = now;
      if (!failure && result) {
        e.state = 'delivered';
        e.delivered_at = result.notified_at;
        delete e.next_attempt_at;
        if (result.status === 'partial') e.last_error = `partial: ${summarize(result)}`;
        else delete e.last_error;
      } else if (permanent || e.attempts >= maxAttempts) {
        e.state = 'failed';
        e.last_error = `${failure} (after ${e.attempts} attempt${e.attempts === 1 ? '' : 's'})`;
        delete e.next_attempt_at;
      } else {
        e.state = 'scheduled';
        e.last_error = failure;
        e.next_attempt_at = now + Math.min(retryBase * 2 ** (e.attempts - 1), MAX_RETRY_SECONDS);
      }
      log.info({ id, state: e.state, attempts: e.attempts }, 'scheduled notification attempt recorded');
      return { changed: true, value: undefined };
    });
    return true;
  }

  async function runTick(): Promise<number> {
    const { entries, damaged } = await store.read();
    const now = nowS();
    const due = entries
      .filter((e) => e.state === 'scheduled' && dueAt(e) <= now)
      .sort((a, b) => dueAt(a) - dueAt(b) || a.created_at - b.created_at);
    const needsMaintenance =
      damaged > 0 || entries.some((e) => claimAbandoned(e, now) || (TERMINAL.has(e.state) && (e.updated_at ?? e.created_at) < now - retention));
    if (needsMaintenance) await mutate(() => ({ changed: false, value: undefined }));
    else publish(entries); // another process may have changed the file
    let attempted = 0;
    for (const e of due) {
      if (stopping) break;
      if (await deliverOne(e.id)) attempted++;
    }
    return attempted;
  }

  const scheduler: Scheduler = {
    file: options.file,
    async schedule(request) {
      const req = parseScheduleRequest(request);
      const now = nowS();
      const entry: StoredNotification = {
        id: `n-${randomBytes(6).toString('hex')}`,
        text: req.text,
        mode: req.mode,
        delay_seconds: req.delay_seconds,
        fire_at_epoch: now + req.delay_seconds,
        created_at: now,
        state: 'scheduled',
        attempts: 0,
        updated_at: now,
      };
      if (req.title) entry.title = req.title;
      if (req.source) entry.source = req.source;
      await mutate((entries) => {
        entries.push(entry);
        return { changed: true, value: undefined };
      });
      return toView(entry);
    },
    async list() {
      const { entries } = await store.read();
      return entries.map(toView).sort((a, b) => a.fire_at_epoch - b.fire_at_epoch);
    },
    async cancel(id) {
      return mutate((entries, now) => {
        const e = entries.find((x) => x.id === id);
        if (!e) throw new NotifyStateError('not_found', `no scheduled notification with id ${JSON.stringify(id)}`);
        if (e.state === 'delivering') throw new NotifyStateError('conflict', `notification ${id} is being delivered now`);
        if (e.state !== 'scheduled') throw new NotifyStateError('conflict', `notification ${id} is already ${e.state}`);
        e.state = 'cancelled';
        e.updated_at = now;
        delete e.next_attempt_at;
        return { changed: true, value: toView(e) };
      });
    },
    tick() {
      if (running) return running;
      running = runTick().finally(() => {
        running = null;
      });
      return running;
    },
    async start() {
      if (timer) return;
      stopping = false;
      // Repair a torn file, recover abandoned claims and prune before the first poll.
      await mutate(() => ({ changed: false, value: undefined }));
      const poll = (): void => {
        scheduler.tick().catch((err: unknown) => log.error({ err }, 'schedule poll failed'));
      };
      timer = setInterval(poll, pollMs);
      poll(); // overdue entries fire at start-up, not one poll later
    },
    async stop() {
      stopping = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      await running?.catch(() => undefined);
    },
  };
  return scheduler;
}
