// When deliveries start. No polling: a timer waits for the next due entry (at most a minute, so clock
// jumps and leases are noticed). Deliveries run concurrently, bounded overall and per destination
// (the entry's mode), so one slow receiver holds back only its own destination. Entries later than
// the tolerance start in due order, paced (one per paceMs); later than the maximum they are expired.
// While the scheduler waits for its destinations at start-up (gated), nothing fires on its own.
import type { Clock } from '../contracts/clock.ts';
import { recoverAbandonedClaims } from './claim-owner.ts';
import { deliverScheduledEntry, expireEntry, type AttemptContext } from './delivery-attempt.ts';
import { dueAt, type StoredNotification } from './schedule-store.ts';

/** The timer never sleeps longer than this: leases expire and wall clocks jump. */
const MAX_TIMER_MS = 60_000;

export interface LoopBounds {
  /** Late (overdue) entries start at most one per this interval. */
  paceMs: number;
  /** Deliveries in flight at once. */
  maxConcurrent: number;
  /** Deliveries in flight per destination (entry mode). */
  perDestination: number;
}

export class DeliveryLoop {
  readonly #ctx: AttemptContext;
  readonly #clock: Clock;
  readonly #bounds: LoopBounds;
  #timer: NodeJS.Timeout | undefined;
  #nextLateStartMs = 0;
  readonly #inFlight = new Map<string, Promise<void>>();
  readonly #laneBusy = new Map<string, number>();
  /** Firing on its own (start() ran, stop() did not). */
  running = false;
  /** stop() began: no new claims, no new deliveries. */
  stopping = false;
  /** start() waits for its `ready` check: no timer is armed and nothing fires on its own. */
  gated = false;

  /** `ctx` without its stopping/arm/ownClaims: the loop provides those. */
  constructor(ctx: Omit<AttemptContext, 'stopping' | 'arm' | 'ownClaims'>, clock: Clock, bounds: LoopBounds) {
    this.#ctx = { ...ctx, ownClaims: new Set<string>(), stopping: () => this.stopping, arm: () => this.arm() };
    this.#clock = clock;
    this.#bounds = bounds;
  }

  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Claims whose process is gone: the send may have happened, so re-sent under the same key or failed (claim-owner.ts). */
  async recoverAbandoned(): Promise<void> {
    const { store, owner, ownClaims, nowS, log, publish } = this.#ctx;
    const written = await recoverAbandonedClaims(store, owner, ownClaims.size, nowS, log);
    if (written) publish(written);
  }

  /** Start every due delivery the bounds allow. Returns the promises of those started. */
  pump(): Promise<void>[] {
    const { store, nowS, policy } = this.#ctx;
    const started: Promise<void>[] = [];
    const held: StoredNotification[] = [];
    let paced = false;
    const now = nowS();
    for (;;) {
      if (this.stopping || this.#inFlight.size >= this.#bounds.maxConcurrent) break;
      const e = store.takeDue(now);
      if (!e) break;
      if (this.#inFlight.has(e.id)) continue; // already going; its outcome re-indexes it
      const lateBy = now - e.fire_at_epoch;
      if (lateBy > policy.maxLatenessSeconds) {
        started.push(this.#track(e, expireEntry(this.#ctx, e, lateBy), null));
        continue;
      }
      const lane = e.mode;
      if ((this.#laneBusy.get(lane) ?? 0) >= this.#bounds.perDestination) {
        held.push(e);
        continue;
      }
      if (lateBy > policy.lateToleranceSeconds) {
        if (this.#clock.now() < this.#nextLateStartMs) {
          held.push(e);
          paced = true;
          continue;
        }
        this.#nextLateStartMs = this.#clock.now() + this.#bounds.paceMs;
      }
      this.#laneBusy.set(lane, (this.#laneBusy.get(lane) ?? 0) + 1);
      started.push(this.#track(e, deliverScheduledEntry(this.#ctx, e), lane));
    }
    for (const e of held) store.putBack(e);
    this.arm(paced);
    return started;
  }

  /** Wake for the next due entry (or the pacing slot); nothing runs while nothing is due. */
  arm(paced = false): void {
    this.#clearTimer();
    if (!this.running || this.stopping || this.gated) return;
    const next = this.#ctx.store.peekDue();
    const nowMs = this.#clock.now();
    let wakeMs = next ? dueAt(next) * 1000 : nowMs + MAX_TIMER_MS;
    if (next && wakeMs <= nowMs) {
      // Due but held: by pacing → wake at the slot; by busy destinations → their completion pumps.
      if (paced) wakeMs = this.#nextLateStartMs;
      else if (this.#inFlight.size > 0) wakeMs = nowMs + MAX_TIMER_MS;
    }
    this.#timer = setTimeout(() => this.#onTimer(), Math.min(Math.max(0, wakeMs - nowMs), MAX_TIMER_MS));
    this.#timer.unref();
  }

  /** Stop firing and wait (at most `waitMs`) for deliveries in flight to be recorded. Returns those still in flight. */
  async stop(waitMs: number): Promise<number> {
    this.stopping = true;
    this.running = false;
    this.gated = false;
    this.#clearTimer();
    let bound: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (bound = setTimeout(resolve, waitMs)));
    await Promise.race([Promise.all(this.#inFlight.values()), waited]);
    clearTimeout(bound);
    return this.#inFlight.size;
  }

  #clearTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #track(e: StoredNotification, work: Promise<void>, lane: string | null): Promise<void> {
    const done = work
      .catch((err: unknown) => this.#ctx.log.error({ err, id: e.id }, 'scheduled delivery could not be recorded'))
      .finally(() => {
        this.#inFlight.delete(e.id);
        if (lane) this.#laneBusy.set(lane, (this.#laneBusy.get(lane) ?? 1) - 1);
        const cur = this.#ctx.store.get(e.id);
        if (cur?.state === 'scheduled') this.#ctx.store.putBack(cur); // nothing recorded (refused): keep it findable
        if (this.running && !this.stopping && !this.gated) this.pump();
      });
    this.#inFlight.set(e.id, done);
    return done;
  }

  #onTimer(): void {
    this.#timer = undefined;
    this.recoverAbandoned()
      .then(() => this.pump())
      .catch((err: unknown) => {
        this.#ctx.log.error({ err }, 'scheduler wake-up failed');
        this.arm();
      });
  }
}
