// Webhook dispatcher: posts events (our `agent.notify`) to one configured URL as a Discord-webhook
// compatible embed. Rules, in order:
//   - throttling per event class: at most one event of a class starts per window (default 2 s);
//     a later one is DELAYED to the next free slot, not dropped. `urgent: true` skips the window.
//   - bounded: at most `queueLimit` events pending (waiting or in flight), and no event waits for a
//     slot longer than `maxThrottleWaitMs`; beyond either bound the event is refused as `throttled`
//     and counted as dropped, so a burst can never grow memory or hold a caller for minutes.
//   - every event carries a stable notification id: `notification_id` in the body and the
//     `Idempotency-Key` header, the same on every attempt, so a receiver can drop a repeat;
//   - retried with exponential backoff: a connection refused or broken before the request was fully
//     written (provably not received), 429 (whose Retry-After, header or Discord's JSON
//     `retry_after`, is honoured), and 5xx — which does NOT prove nothing was acted on, so delivery
//     is at least once there, deduplicated only by a receiver that honours the Idempotency-Key;
//   - throttle slots are on a monotonic clock (a wall-clock step cannot block or burst them);
//   - a request that was written but got no answer in time (timeout, reset) has an UNKNOWN outcome:
//     the receiver may have acted on it, so it is never re-sent; the outcome says `unknown`.
// POSTs go through node:http(s) with a fresh connection each (no keep-alive): only there can we
// tell "not sent" from "sent, no answer", and a stale pooled socket cannot turn into an unknown.
// The URL is a secret (it embeds a token): it is never logged and never put in an outcome.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import https from 'node:https';
import type { Logger } from 'pino';
import type { DeliveryOutcome } from '../api-types.ts';
import { defuseMentions, truncate } from './format.ts';
import { realSleep, type SleepFn } from './types.ts';
import { systemClock, type Clock } from '../contracts/clock.ts';

export const AGENT_NOTIFY = 'agent.notify';
const COLOR_NORMAL = 0xe67e22;
const COLOR_URGENT = 0xed4245;
const EMBED_TITLE_MAX = 256;
const EMBED_DESCRIPTION_MAX = 4000;
const EMBED_FIELD_MAX = 1024;

export interface WebhookEvent {
  /** Event class, e.g. `agent.notify`; the throttling key. */
  eventClass: string;
  /** Finer kind shown in the footer, e.g. `agent_notification`, `agent_notify_scheduled`. */
  subEvent?: string;
  title: string;
  text: string;
  source?: string;
  urgent?: boolean;
  /** Stable notification id (payload `notification_id`, `Idempotency-Key`); generated when absent. */
  id?: string;
}

export interface WebhookStats {
  /** Events the receiver accepted (2xx). */
  sent: number;
  /** Events that failed after all attempts (or a non-retryable 4xx). */
  failed: number;
  /** Events delayed by the throttling window (then sent or failed as usual). */
  throttled: number;
  /** Events refused without a POST: queue full or the throttle wait would exceed its bound. */
  dropped: number;
  /** Events that bypassed the window because they were urgent. */
  urgent: number;
  /** Extra POST attempts made after a 5xx, 429 or a connection that failed before the request was sent. */
  retries: number;
  /** Events whose request was sent but never answered in time: maybe delivered, never re-sent. */
  unknown: number;
}

export interface WebhookDispatcherOptions {
  /** Destination; when unset every emit is `unavailable` and nothing is posted. */
  url?: string;
  logger: Logger;
  /** Wall time (epoch ms): only for what people read (the embed timestamp) and Retry-After dates. */
  clock?: Clock;
  /**
   * Monotonic time (ms, any origin) for throttle slots: never steps back or forward with the wall
   * clock (NTP, a manual change, suspend), so a clock step cannot block or burst the webhook.
   * Default `performance.now()`; injectable for tests.
   */
  monotonic?: Clock;
  sleep?: SleepFn;
  /** Throttling window per event class, seconds (DISCORD_VOICE_LIVE_WEBHOOK_THROTTLE_SECONDS). Default 2. */
  throttleSeconds?: number;
  /** Longest an event waits for its throttle slot before it is refused. Default 30 s. */
  maxThrottleWaitMs?: number;
  /** Events pending at once (waiting + in flight). Default 32. */
  queueLimit?: number;
  /** Per-POST timeout (connect + answer). Default 8 s. */
  timeoutMs?: number;
  /** POST attempts per event, including the first. Default 4. */
  maxAttempts?: number;
  /** First retry delay; doubles per attempt (1 s, 2 s, 4 s). Default 1000. */
  backoffMs?: number;
  /** A Retry-After longer than this gives up instead of waiting. Default 60 s. */
  maxRetryAfterMs?: number;
  /** `username` shown by Discord for the post. */
  username?: string;
}

/** Per-emit hooks. */
export interface WebhookEmitHooks {
  /** Called after the throttle wait, right before EACH POST; false (or a throw) sends nothing (more). */
  beforeSend?: () => Promise<boolean> | boolean;
  /**
   * A POST was answered without being accepted (5xx, 429) or provably not sent: called before any
   * back-off or Retry-After wait, and when giving up, with the time to retry at (epoch ms).
   */
  notAccepted?: (retryAtMs: number, detail: string) => Promise<void> | void;
}

export interface WebhookDispatcher {
  readonly configured: boolean;
  emit(event: WebhookEvent, hooks?: WebhookEmitHooks): Promise<DeliveryOutcome>;
  stats(): WebhookStats;
  /** Abort in-flight posts and waits; later emits are `unavailable`. */
  close(): void;
}

/** The JSON body POSTed for one event (documented in docs/notifications.md). */
export function buildWebhookPayload(event: WebhookEvent & { id: string }, nowMs: number, username: string): Record<string, unknown> {
  const fields: { name: string; value: string; inline: boolean }[] = [{ name: 'Event', value: event.eventClass, inline: true }];
  if (event.source) fields.push({ name: 'Source', value: truncate(defuseMentions(event.source), EMBED_FIELD_MAX), inline: true });
  if (event.urgent) fields.push({ name: 'Urgent', value: 'yes', inline: true });
  return {
    notification_id: event.id,
    username,
    allowed_mentions: { parse: [] },
    embeds: [
      {
        title: truncate(defuseMentions(event.title), EMBED_TITLE_MAX),
        description: truncate(defuseMentions(event.text), EMBED_DESCRIPTION_MAX),
        color: event.urgent ? COLOR_URGENT : COLOR_NORMAL,
        fields,
        footer: { text: event.subEvent ? `${event.eventClass} · ${event.subEvent}` : event.eventClass },
        timestamp: new Date(nowMs).toISOString(),
      },
    ],
  };
}

/** Retry-After as milliseconds: header seconds or HTTP date, else Discord's JSON `retry_after` seconds. */
export function retryAfterMs(header: string | null, body: unknown, nowMs: number): number | null {
  if (header) {
    const seconds = Number(header);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(header);
    if (Number.isFinite(date)) return Math.max(0, date - nowMs);
  }
  if (body && typeof body === 'object' && 'retry_after' in body) {
    const seconds = Number((body as { retry_after: unknown }).retry_after);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  }
  return null;
}

function parseJsonOrNull(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** What one POST came to. `not_sent`: provably not acted on; `unknown`: written, never answered. */
export type PostResult =
  | { kind: 'answered'; status: number; retryAfter: string | null; body: string }
  | { kind: 'not_sent'; detail: string }
  | { kind: 'unknown'; detail: string };

/** One POST on a fresh connection, telling "never written" apart from "written, no answer". */
export function postJson(target: URL, body: string, headers: Record<string, string>, timeoutMs: number, signal: AbortSignal): Promise<PostResult> {
  return new Promise((resolve) => {
    let written = false;
    let settled = false;
    const finish = (result: PostResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const lost = (why: string): PostResult =>
      written ? { kind: 'unknown', detail: `${why} after the request was sent; not re-sent (the receiver may have acted on it)` } : { kind: 'not_sent', detail: why };
    const request = (target.protocol === 'https:' ? https : http).request(
      target,
      { method: 'POST', agent: false, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)), connection: 'close' } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () =>
          finish({ kind: 'answered', status: response.statusCode ?? 0, retryAfter: headerValue(response.headers['retry-after']), body: Buffer.concat(chunks).toString('utf8') }),
        );
        // The status line arrived: the receiver answered, whatever happens to the rest of the body.
        response.on('error', () => finish({ kind: 'answered', status: response.statusCode ?? 0, retryAfter: null, body: '' }));
      },
    );
    request.on('finish', () => (written = true));
    // Describe the failure without the error text: Node's messages carry the address.
    request.on('error', (err: NodeJS.ErrnoException) => finish(lost(`network error${err.code ? ` (${err.code})` : ''}`)));
    const timer = setTimeout(() => {
      finish(lost(`no answer within ${timeoutMs} ms`));
      request.destroy();
    }, timeoutMs);
    const onAbort = (): void => {
      finish(lost('dispatcher closed'));
      request.destroy();
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    request.end(body);
  });
}

function headerValue(value: string | string[] | undefined): string | null {
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

/** Milliseconds since an arbitrary origin that only moves forward (throttle decisions). */
export const monotonicClock: Clock = { now: () => performance.now() };

type Attempt =
  | { kind: 'ok'; status: number }
  | { kind: 'retry'; detail: string; waitMs?: number }
  | { kind: 'fail'; detail: string; unsent?: true }
  | { kind: 'unknown'; detail: string };

export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const clock = options.clock ?? systemClock;
  const monotonic = options.monotonic ?? monotonicClock;
  const sleep = options.sleep ?? realSleep;
  const windowMs = (options.throttleSeconds ?? 2) * 1000;
  const maxThrottleWaitMs = options.maxThrottleWaitMs ?? 30_000;
  const queueLimit = options.queueLimit ?? 32;
  const timeoutMs = options.timeoutMs ?? 8000;
  const maxAttempts = Math.max(1, options.maxAttempts ?? 4);
  const backoffMs = options.backoffMs ?? 1000;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
  const username = options.username ?? 'Live Voice Bridge';
  const log = options.logger;
  const url = options.url?.trim() || undefined;
  const target = url ? new URL(url) : undefined;

  const nextSlot = new Map<string, number>();
  const stats: WebhookStats = { sent: 0, failed: 0, throttled: 0, dropped: 0, urgent: 0, retries: 0, unknown: 0 };
  const closer = new AbortController();
  let pending = 0;

  async function postOnce(body: string, id: string): Promise<Attempt> {
    const result = await postJson(target!, body, { 'content-type': 'application/json', 'idempotency-key': id }, timeoutMs, closer.signal);
    if (result.kind === 'unknown') return result;
    if (result.kind === 'not_sent') return closer.signal.aborted ? { kind: 'fail', detail: 'dispatcher closed', unsent: true } : { kind: 'retry', detail: result.detail };
    if (result.status >= 200 && result.status < 300) return { kind: 'ok', status: result.status };
    if (result.status === 429) {
      const wait = retryAfterMs(result.retryAfter, parseJsonOrNull(result.body), clock.now());
      return { kind: 'retry', detail: 'HTTP 429 rate limited', waitMs: wait ?? undefined };
    }
    if (result.status >= 500) return { kind: 'retry', detail: `HTTP ${result.status}` };
    return { kind: 'fail', detail: `HTTP ${result.status}` };
  }

  /** Ask `beforeSend` before a POST; the outcome to return when it refuses. */
  async function refusedBeforePost(hooks: WebhookEmitHooks | undefined, last: string | null): Promise<DeliveryOutcome | null> {
    if (!hooks?.beforeSend) return null;
    let go: boolean;
    try {
      go = await hooks.beforeSend();
    } catch (err) {
      return { status: 'error', detail: `not sent: ${err instanceof Error ? err.message : String(err)}` };
    }
    if (go) return null;
    return last === null ? { status: 'skipped', detail: 'not sent: the entry was cancelled or is being delivered elsewhere' } : { status: 'error', detail: `${last}; not retried now: the entry was cancelled, is being delivered elsewhere or we are shutting down` };
  }

  async function send(event: WebhookEvent, id: string, hooks?: WebhookEmitHooks): Promise<DeliveryOutcome> {
    const body = JSON.stringify(buildWebhookPayload({ ...event, id }, clock.now(), username));
    let last = 'not attempted';
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const refused = await refusedBeforePost(hooks, attempt === 1 ? null : last);
      if (refused) return refused;
      const result = await postOnce(body, id);
      if (result.kind === 'ok') {
        stats.sent++;
        return { status: 'ok', detail: `HTTP ${result.status}${attempt > 1 ? ` after ${attempt} attempts` : ''}` };
      }
      if (result.kind === 'unknown') {
        stats.unknown++;
        log.warn({ eventClass: event.eventClass, notificationId: id, attempt, reason: result.detail }, 'webhook outcome unknown; not re-sent');
        return { status: 'unknown', detail: result.detail };
      }
      last = result.detail;
      const wait = result.kind === 'retry' ? (result.waitMs ?? backoffMs * 2 ** (attempt - 1)) : 0;
      // Not accepted (a retry) or provably never sent: the caller lets go of what it holds for this
      // send BEFORE we wait. A refusal (4xx) is final: it stays a failed send.
      if (hooks?.notAccepted && (result.kind === 'retry' || result.unsent)) {
        try {
          await hooks.notAccepted(clock.now() + wait, result.detail);
        } catch (err) {
          last = `${result.detail}; not retried: ${err instanceof Error ? err.message : String(err)}`;
          break;
        }
      }
      if (result.kind === 'fail' || attempt === maxAttempts) break;
      if (wait > maxRetryAfterMs) {
        last = `${result.detail}; retry-after ${Math.ceil(wait / 1000)} s exceeds the ${Math.round(maxRetryAfterMs / 1000)} s bound`;
        break;
      }
      stats.retries++;
      log.debug({ eventClass: event.eventClass, notificationId: id, attempt, waitMs: wait, reason: result.detail }, 'webhook post will be retried');
      await sleep(wait, closer.signal);
      if (closer.signal.aborted) {
        last = 'dispatcher closed';
        break;
      }
    }
    stats.failed++;
    log.warn({ eventClass: event.eventClass, notificationId: id, reason: last }, 'webhook event not delivered');
    return { status: 'error', detail: last };
  }

  return {
    configured: url !== undefined,
    async emit(event, hooks) {
      if (!url) return { status: 'unavailable', detail: 'no webhook URL configured' };
      if (closer.signal.aborted) return { status: 'unavailable', detail: 'dispatcher closed' };
      if (pending >= queueLimit) {
        stats.dropped++;
        return { status: 'throttled', detail: `webhook queue full (${queueLimit} pending); event not sent` };
      }
      let waitMs = 0;
      if (event.urgent) {
        stats.urgent++;
      } else {
        // Monotonic: a wall clock set back an hour must not push the next slot an hour away.
        const now = monotonic.now();
        const slot = Math.max(now, nextSlot.get(event.eventClass) ?? 0);
        waitMs = slot - now;
        if (waitMs > maxThrottleWaitMs) {
          stats.dropped++;
          return { status: 'throttled', detail: `throttled: next ${event.eventClass} slot is ${Math.ceil(waitMs / 1000)} s away; event not sent` };
        }
        // Reserve the slot synchronously so concurrent emits queue up one window apart.
        nextSlot.set(event.eventClass, slot + windowMs);
      }
      pending++;
      try {
        if (waitMs > 0) {
          stats.throttled++;
          await sleep(waitMs, closer.signal);
          if (closer.signal.aborted) return { status: 'unavailable', detail: 'dispatcher closed' };
        }
        const outcome = await send(event, event.id ?? randomUUID(), hooks);
        return waitMs > 0 ? { ...outcome, detail: `${outcome.detail}; delayed ${(waitMs / 1000).toFixed(1)} s by throttling` } : outcome;
      } finally {
        pending--;
      }
    },
    stats: () => ({ ...stats }),
    close() {
      closer.abort();
    },
  };
}
