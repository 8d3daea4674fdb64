// Who owns a delivery claim, and whether that owner can still be running. A claim names its
// scheduler as `<pid>:<instance>`, the instance being `<process start time>-<random>` where /proc
// exists, so a claim is judged by its OWNER identity, not just its pid: a claim made in this process
// by a scheduler that is no longer running (an in-process core restart, or PID 1 again in a
// restarted container) is abandoned at once; one by another pid is abandoned when that process is
// gone, a zombie, or a different process that reused the pid (its start time differs from the one in
// the owner). The lease is the backstop. An abandoned claim's send may have happened: a delivery
// whose receiver still drops a repeat (`resend_until`: a Discord message's enforced nonce, a webhook
// receiver that honours the Idempotency-Key) is sent again under the same key, so a kill anywhere
// loses nothing and the receiver keeps one; any other is failed, never re-sent (a spoken reminder,
// or a message past its receiver's window, cannot be taken back).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { unclaimed } from './delivery-claim.ts';
import type { ScheduleStore, StoredNotification } from './schedule-store.ts';

/** An entry interrupted this often is failed: a delivery that kills its process is not retried forever. */
export const MAX_INTERRUPTED_RESENDS = 5;

/** Owners of the schedulers running in this process (a claim by any other owner with our pid is stale). */
const liveOwners = new Set<string>();

/** Whether a process exists (EPERM: it does, owned by someone else). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

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
export function newOwnerId(): string {
  const start = procStat(process.pid)?.start;
  return `${process.pid}:${start ? `${start}-` : ''}${randomBytes(4).toString('hex')}`;
}

/** `owner` may take claims from now on (registered before its first claim is written). */
export function markOwnerLive(owner: string): void {
  liveOwners.add(owner);
}

/** `owner` has stopped: a claim of its own left in the file is abandoned, even to a scheduler in this process. */
export function markOwnerStopped(owner: string): void {
  liveOwners.delete(owner);
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

/** Whether a `delivering` entry's claim has no live owner (`owner`: the asking scheduler, whose claims are in flight). */
export function claimAbandoned(e: StoredNotification, now: number, owner: string): boolean {
  if (e.state !== 'delivering') return false;
  if (!e.claim) return true;
  if (e.claim.owner === owner) return false; // ours, in flight
  if (e.claim.lease_until <= now) return true;
  return !ownerAlive(e.claim.owner, e.claim.pid);
}

/** The record after its owner vanished mid-delivery: sent again under the same key, or failed. */
function afterInterruption(e: StoredNotification, now: number): StoredNotification {
  const interrupted = (e.interrupted ?? 0) + 1;
  const base = { ...unclaimed(e, now), interrupted };
  const what = `interrupted during delivery attempt ${e.attempts} (the process stopped after it started sending)`;
  // The receiver drops a repeat until then (resend_until, set at the first send): sending again delivers it once either way.
  const receiverDrops = e.resend_until !== undefined && now < e.resend_until;
  if (receiverDrops && interrupted <= MAX_INTERRUPTED_RESENDS) {
    return {
      ...base,
      state: 'scheduled',
      next_attempt_at: now,
      last_error: `${what}; sent again with the same nonce / Idempotency-Key, which the receiver drops if the first arrived`,
    };
  }
  const why = receiverDrops
    ? `interrupted ${interrupted} times, not sent again`
    : 'not retried so it is never sent twice';
  return { ...base, state: 'failed', last_error: `${what}; ${why} — it may have been delivered once` };
}

/**
 * Claims whose owner is gone: sent again under the same key while the receiver drops a repeat
 * (`resend_until`, at most MAX_INTERRUPTED_RESENDS times), else marked `failed` ("interrupted"): the
 * user gets the entry once, never twice. `ownClaims`: how many claims the asking scheduler holds now
 * (when every `delivering` entry is one of them, nothing is written: null). Returns the records written.
 */
export async function recoverAbandonedClaims(
  store: ScheduleStore,
  owner: string,
  ownClaims: number,
  nowS: () => number,
  log: Logger,
): Promise<StoredNotification[] | null> {
  if ((store.counts().delivering ?? 0) <= ownClaims) return null;
  return store.transact(() => {
    const now = nowS();
    const write: StoredNotification[] = [];
    for (const e of store.delivering()) {
      if (!claimAbandoned(e, now, owner)) continue;
      const next = afterInterruption(e, now);
      write.push(next);
      if (next.state === 'scheduled')
        log.warn(
          { id: e.id, interrupted: next.interrupted },
          'scheduled notification was interrupted mid-delivery; sending it again under the same idempotency key',
        );
      else log.warn({ id: e.id }, 'scheduled notification was interrupted mid-delivery; marked failed');
    }
    return { value: write, write };
  });
}
