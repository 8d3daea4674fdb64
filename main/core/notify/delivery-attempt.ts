// One delivery attempt of a due entry, and what is written after it. The claim covers only bytes in
// flight (delivery-claim.ts); the outcome is recorded under the store's locks:
//   - delivered (or partly): `delivered`, with "late by" past the tolerance;
//   - something was sent under a claim and the result was a failure: `failed`, never retried as a
//     whole, so it is never delivered twice;
//   - nothing was sent: retried with back-off (never before a receiver's Retry-After) until
//     maxAttempts, or `failed` at once for a permanent error;
//   - refused (cancelled, claimed elsewhere) or shutting down with nothing held: nothing written,
//     the file already says the truth.
// An entry later than the maximum lateness is `expired` instead, never delivered.
import type { Logger } from 'pino';
import type { NotifyResult } from '../api-types.ts';
import { markOwnerLive } from './claim-owner.ts';
import { DeliveryClaim, unclaimed } from './delivery-claim.ts';
import type { Notifier } from './dispatcher.ts';
import type { ScheduleSeries } from './schedule-series.ts';
import type { ScheduleStore, StoredNotification } from './schedule-store.ts';
import { errorMessage, formatDuration, NotifyInputError } from './types.ts';

const MAX_RETRY_SECONDS = 15 * 60;

export interface DeliveryPolicy {
  maxAttempts: number;
  retryBaseSeconds: number;
  leaseSeconds: number;
  lateToleranceSeconds: number;
  maxLatenessSeconds: number;
  /** Seconds after the first send within which a repeat of an entry of this mode is dropped by its receiver. */
  resendWindows: Partial<Record<'dm' | 'channel' | 'webhook', number>>;
}

/** What an attempt needs from its scheduler. */
export interface AttemptContext {
  store: ScheduleStore;
  notifier: Pick<Notifier, 'deliver'>;
  log: Logger;
  owner: string;
  nowS: () => number;
  policy: DeliveryPolicy;
  series: ScheduleSeries;
  stopping: () => boolean;
  /** Ids this scheduler holds a claim on right now. */
  ownClaims: Set<string>;
  publish: (records: readonly StoredNotification[]) => void;
  /** Re-arm the scheduler's timer (a series' next occurrence was written). */
  arm: () => void;
}

/** How the attempt ended, as the record decision needs it. */
interface AttemptOutcome {
  result: NotifyResult | null;
  failure: string | undefined;
  permanent: boolean;
  claim: DeliveryClaim;
  lateBy: number;
}

function summarize(result: NotifyResult): string {
  const parts = Object.entries(result.results)
    .filter(([, o]) => o.status !== 'ok')
    .map(([mode, o]) => `${mode}: ${o.status}${o.detail ? ` (${o.detail})` : ''}`);
  return parts.join('; ').slice(0, 500);
}

function backoff(policy: DeliveryPolicy, attempts: number): number {
  return Math.min(policy.retryBaseSeconds * 2 ** (attempts - 1), MAX_RETRY_SECONDS);
}

/** The entry's record after the attempt (`cur`: its record now, `claimed`: a claim is still held). */
function afterAttempt(
  cur: StoredNotification,
  outcome: AttemptOutcome,
  claimed: boolean,
  policy: DeliveryPolicy,
  now: number,
): StoredNotification {
  const { result, failure, permanent, claim, lateBy } = outcome;
  const next = unclaimed(cur, now);
  if (!claim.everTaken) next.attempts = cur.attempts + 1; // an attempt that sent nothing is counted here
  if (!failure && result) {
    next.state = 'delivered';
    next.delivered_at = result.notified_at;
    delete next.next_attempt_at;
    if (lateBy > policy.lateToleranceSeconds) next.late_by_seconds = Math.round(lateBy);
    if (result.status === 'partial') next.last_error = `partial: ${summarize(result)}`;
    else delete next.last_error;
  } else if (claimed) {
    // Something was sent (or handed over) and the result was a failure: retrying the whole
    // notification could deliver it twice, so it ends here with the reasons.
    next.state = 'failed';
    next.last_error = `${failure} (sending was attempted; not retried as a whole, so it is never delivered twice)`;
    delete next.next_attempt_at;
  } else if (permanent || next.attempts >= policy.maxAttempts) {
    next.state = 'failed';
    next.last_error = `${failure} (after ${next.attempts} attempt${next.attempts === 1 ? '' : 's'}; nothing was sent)`;
    delete next.next_attempt_at;
  } else {
    next.state = 'scheduled';
    next.last_error = failure;
    // Not before the time a receiver asked for (Retry-After), whatever our own back-off says.
    next.next_attempt_at = Math.max(now + backoff(policy, next.attempts), claim.retryAt ?? 0);
  }
  return next;
}

function newClaim(ctx: AttemptContext, e: StoredNotification): DeliveryClaim {
  // Taken right before each request goes out, released when a receiver answered without
  // accepting it (before any back-off wait): see delivery-claim.ts.
  return new DeliveryClaim({
    store: ctx.store,
    id: e.id,
    owner: ctx.owner,
    leaseSeconds: ctx.policy.leaseSeconds,
    // Only an entry of one mode whose receiver drops a repeat: `auto`/`all` may speak it in the call.
    resendWindowS:
      e.mode === 'dm' || e.mode === 'channel' || e.mode === 'webhook' ? (ctx.policy.resendWindows[e.mode] ?? 0) : 0,
    nowS: ctx.nowS,
    stopping: ctx.stopping,
    markOwnerLive: () => markOwnerLive(ctx.owner),
    withNextOccurrence: (record, now) => ctx.series.withNextOccurrence(record, now),
    written: (records, claimed) => {
      if (claimed) ctx.ownClaims.add(e.id);
      else ctx.ownClaims.delete(e.id);
      ctx.publish(records);
      if (records.length > 1) ctx.arm(); // the series' next occurrence is now due at its time
    },
  });
}

/** Send the entry (claimed at the last moment) and record how it went. */
async function attempt(ctx: AttemptContext, e: StoredNotification): Promise<AttemptOutcome> {
  const lateBy = ctx.nowS() - e.fire_at_epoch;
  const claim = newClaim(ctx, e);
  const outcome: AttemptOutcome = { result: null, failure: undefined, permanent: false, claim, lateBy };
  try {
    const text = lateBy > ctx.policy.lateToleranceSeconds ? `${e.text} (late by ${formatDuration(lateBy)})` : e.text;
    const result = await ctx.notifier.deliver(
      { text, mode: e.mode, title: e.title, source: e.source ?? 'scheduler' },
      {
        subEvent: 'agent_notify_scheduled',
        notificationId: e.id,
        onSending: (mode) => claim.take(mode),
        onNotAccepted: (mode, retryAtMs, detail) => claim.release(mode, retryAtMs, detail),
      },
    );
    outcome.result = result;
    // `unknown` (nothing known delivered, a send may have been) is a failure too: never recorded
    // as delivered, never retried.
    if (result.status === 'error' || result.status === 'unknown')
      outcome.failure = summarize(result) || 'nothing delivered';
  } catch (err) {
    outcome.failure = errorMessage(err);
    outcome.permanent = err instanceof NotifyInputError;
  }
  return outcome;
}

export async function deliverScheduledEntry(ctx: AttemptContext, e: StoredNotification): Promise<void> {
  const outcome = await attempt(ctx, e);
  const claimed = outcome.claim.held;
  // Refused, or shutting down with nothing held: the file already says the truth (scheduled, or
  // "not accepted, retry at T" from a release), so the next start goes on from there.
  if ((outcome.claim.refused || ctx.stopping()) && !claimed) {
    ctx.log.info(
      { id: e.id },
      'scheduled notification was cancelled, claimed elsewhere or stopped with nothing in flight; left for later',
    );
    return;
  }
  const recorded = await ctx.store.transact(() => {
    const cur = ctx.store.get(e.id);
    const now = ctx.nowS();
    if (!cur) return { value: [], write: [] };
    if (claimed && cur.claim?.owner !== ctx.owner) {
      ctx.log.warn({ id: e.id }, 'scheduled notification changed hands during delivery; outcome not recorded');
      return { value: [], write: [] };
    }
    if (!claimed && cur.state !== 'scheduled') return { value: [], write: [] }; // cancelled meanwhile
    const next = afterAttempt(cur, outcome, claimed, ctx.policy, now);
    ctx.log.info({ id: e.id, state: next.state, attempts: next.attempts }, 'scheduled notification attempt recorded');
    // A repeating occurrence's first attempt writes the series' next one whatever its outcome
    // (usually already done by the claim), so a retried occurrence never delays the series.
    const write = ctx.series.withNextOccurrence(next, now);
    return { value: write, write };
  });
  ctx.ownClaims.delete(e.id);
  ctx.publish(recorded);
}

/** Past the maximum lateness: `expired`, not delivered (a series still gets its next occurrence). */
export async function expireEntry(ctx: AttemptContext, e: StoredNotification, lateBy: number): Promise<void> {
  const written = await ctx.store.transact(() => {
    const cur = ctx.store.get(e.id);
    if (!cur || cur.state !== 'scheduled') return { value: [], write: [] };
    const record: StoredNotification = {
      ...unclaimed(cur, ctx.nowS()),
      state: 'expired',
      // A re-send after an interruption may already have reached the receiver once.
      last_error: `expired: due ${formatDuration(lateBy)} ago, beyond the ${formatDuration(ctx.policy.maxLatenessSeconds)} maximum lateness; ${cur.interrupted ? 'not sent again after its interrupted delivery (it may have been delivered once)' : 'not delivered'}`,
    };
    delete record.next_attempt_at;
    const write = ctx.series.withNextOccurrence(record, ctx.nowS());
    return { value: write, write };
  });
  if (written.length)
    ctx.log.warn({ id: e.id, lateBySeconds: Math.round(lateBy) }, 'scheduled notification expired unsent');
  ctx.publish(written);
}
