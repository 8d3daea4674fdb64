// The claim of one delivery attempt: it covers only bytes in flight. It is taken right before a
// request goes out (the dispatcher's onSending, once per request: a webhook retry takes it again)
// and released — the entry written back `scheduled`, "not accepted, retry at T" — as soon as the
// receiver answered without accepting it (a 5xx, a 429, a connection that provably sent nothing),
// BEFORE any back-off or Retry-After wait. A crash or a shutdown during that wait then leaves the
// entry to be retried at T (persisted, so a Retry-After is honoured across restarts), never written
// off: "may have been delivered" is left for a claim whose request was written and never answered.
//
// One claim is shared by every mode of an `all` delivery. It is released only when no mode that
// used it is still holding it: a DM that went out under the claim keeps it (re-sending the whole
// notification could deliver that DM twice), so the entry then ends as before.
import type { DeliveryMode } from '../api-types.ts';
import type { ScheduleStore, StoredNotification } from './schedule-store.ts';
import { formatDuration } from './types.ts';

export interface DeliveryClaimDeps {
  store: ScheduleStore;
  id: string;
  /** This scheduler's owner id (claims carry it). */
  owner: string;
  leaseSeconds: number;
  /** How long after the first send the receiver drops a repeat of this entry (0: it does not). */
  resendWindowS: number;
  nowS: () => number;
  /** Whether the scheduler is shutting down: no new claim then. */
  stopping: () => boolean;
  /** Called once per process to register `owner` as alive before a claim is written. */
  markOwnerLive: () => void;
  /** The records to write for `record` (a repeating occurrence adds its series' next one). */
  withNextOccurrence: (record: StoredNotification, now: number) => StoredNotification[];
  /** Records were written (publish them; `claimed` when a claim was taken). */
  written: (records: StoredNotification[], claimed: boolean) => void;
}

/** A copy without the claim (records are replaced whole, never mutated in place). */
export function unclaimed(e: StoredNotification, now: number): StoredNotification {
  const next = { ...e, updated_at: now };
  delete next.claim;
  return next;
}

export class DeliveryClaim {
  readonly #deps: DeliveryClaimDeps;
  /** Modes sending (or that sent) under the claim held now. */
  readonly #users = new Set<DeliveryMode>();
  /** Claim operations run one at a time (`all` asks for every mode at once). */
  #chain: Promise<unknown> = Promise.resolve();
  /** A claim is held now. */
  held = false;
  /** A claim was taken at least once in this delivery (the attempt is counted then). */
  everTaken = false;
  /** A claim was refused (cancelled, claimed elsewhere, shutting down). */
  refused = false;
  /** The latest "retry at" a receiver asked for (epoch seconds), from a release. */
  retryAt: number | null = null;

  constructor(deps: DeliveryClaimDeps) {
    this.#deps = deps;
  }

  /** Before bytes go out for `mode`: true when they may (the claim is held, taken now if need be). */
  take(mode: DeliveryMode): Promise<boolean> {
    return this.#serial(async () => {
      if (this.held) {
        this.#users.add(mode);
        return true;
      }
      if (this.#deps.stopping()) {
        this.refused = true; // shutting down: leave it scheduled, untouched, for the next start
        return false;
      }
      const d = this.#deps;
      const records = await d.store.transact(() => {
        const cur = d.store.get(d.id);
        if (!cur || cur.state !== 'scheduled') return { value: null, write: [] };
        const now = d.nowS();
        // A request sent again after a release belongs to the same attempt: counted once.
        const next: StoredNotification = {
          ...cur,
          state: 'delivering',
          attempts: cur.attempts + (this.everTaken ? 0 : 1),
          updated_at: now,
          claim: { owner: d.owner, pid: process.pid, lease_until: now + d.leaseSeconds },
        };
        delete next.next_attempt_at;
        // From the first send on, the receiver drops a repeat until then: the earliest send counts.
        if (d.resendWindowS > 0 && next.resend_until === undefined) next.resend_until = now + d.resendWindowS;
        d.markOwnerLive();
        const write = d.withNextOccurrence(next, now);
        return { value: write, write };
      });
      if (!records) {
        this.refused = true;
        return false;
      }
      this.held = this.everTaken = true;
      this.#users.add(mode);
      d.written(records, true);
      return true;
    });
  }

  /**
   * `mode`'s request was answered without being accepted (or provably never sent): release the
   * claim, recording "not accepted, retry at `retryAtMs`", unless another mode still holds it.
   */
  release(mode: DeliveryMode, retryAtMs: number | null, detail: string): Promise<void> {
    return this.#serial(async () => {
      this.#users.delete(mode);
      const d = this.#deps;
      const retryAt = retryAtMs === null ? d.nowS() : retryAtMs / 1000;
      this.retryAt = Math.max(this.retryAt ?? 0, retryAt);
      if (!this.held || this.#users.size > 0) return;
      const records = await d.store.transact(() => {
        const cur = d.store.get(d.id);
        if (!cur || cur.state !== 'delivering' || cur.claim?.owner !== d.owner) return { value: [], write: [] };
        const now = d.nowS();
        const next: StoredNotification = {
          ...unclaimed(cur, now),
          state: 'scheduled',
          next_attempt_at: Math.max(now, this.retryAt!),
          last_error: `not accepted (${detail}); retry in ${formatDuration(this.retryAt! - now)}`.slice(0, 500),
        };
        return { value: [next], write: [next] };
      });
      this.held = false;
      if (records.length) d.written(records, false);
    });
  }

  #serial<T>(op: () => Promise<T>): Promise<T> {
    const run = this.#chain.then(op, op);
    this.#chain = run.catch(() => undefined);
    return run;
  }
}
