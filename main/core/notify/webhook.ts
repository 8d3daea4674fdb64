// Webhook dispatcher: posts events (our `agent.notify`) to one configured URL as a Discord-webhook
// compatible embed. Rules, in order:
//   - throttling per event class: at most one event of a class starts per window (default 2 s);
//     a later one is DELAYED to the next free slot, not dropped. `urgent: true` skips the window.
//   - bounded: at most `queueLimit` events pending (waiting or in flight), and no event waits for a
//     slot longer than `maxThrottleWaitMs`; beyond either bound the event is refused as `throttled`
//     and counted as dropped, so a burst can never grow memory or hold a caller for minutes.
//   - each POST has a timeout; 5xx, 429, timeouts and network errors are retried with exponential
//     backoff, and a 429's Retry-After (header, or Discord's JSON `retry_after`) is honoured.
// The URL is a secret (it embeds a token): it is never logged and never put in an outcome.
import type { Logger } from 'pino';
import type { DeliveryOutcome } from '../api-types.ts';
import { defuseMentions, truncate } from './format.ts';
import { realSleep, systemClock, type Clock, type SleepFn } from './types.ts';

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
  /** Extra POST attempts made after a 5xx, 429, timeout or network error. */
  retries: number;
}

export interface WebhookDispatcherOptions {
  /** Destination; when unset every emit is `unavailable` and nothing is posted. */
  url?: string;
  logger: Logger;
  fetch?: typeof fetch;
  clock?: Clock;
  sleep?: SleepFn;
  /** Throttling window per event class, seconds (DISCORD_VOICE_LIVE_WEBHOOK_THROTTLE_SECONDS). Default 2. */
  throttleSeconds?: number;
  /** Longest an event waits for its throttle slot before it is refused. Default 30 s. */
  maxThrottleWaitMs?: number;
  /** Events pending at once (waiting + in flight). Default 32. */
  queueLimit?: number;
  /** Per-POST timeout. Default 8 s. */
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
  /** Called after the throttle wait, right before the first POST; false (or a throw) sends nothing. */
  beforeSend?: () => Promise<boolean> | boolean;
}

export interface WebhookDispatcher {
  readonly configured: boolean;
  emit(event: WebhookEvent, hooks?: WebhookEmitHooks): Promise<DeliveryOutcome>;
  stats(): WebhookStats;
  /** Abort in-flight posts and waits; later emits are `unavailable`. */
  close(): void;
}

/** The JSON body POSTed for one event (documented in docs/notifications.md). */
export function buildWebhookPayload(event: WebhookEvent, nowMs: number, username: string): Record<string, unknown> {
  const fields: { name: string; value: string; inline: boolean }[] = [{ name: 'Event', value: event.eventClass, inline: true }];
  if (event.source) fields.push({ name: 'Source', value: truncate(defuseMentions(event.source), EMBED_FIELD_MAX), inline: true });
  if (event.urgent) fields.push({ name: 'Urgent', value: 'yes', inline: true });
  return {
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

type Attempt = { kind: 'ok'; status: number } | { kind: 'retry'; detail: string; waitMs?: number } | { kind: 'fail'; detail: string };

export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const doFetch = options.fetch ?? fetch;
  const clock = options.clock ?? systemClock;
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

  const nextSlot = new Map<string, number>();
  const stats: WebhookStats = { sent: 0, failed: 0, throttled: 0, dropped: 0, urgent: 0, retries: 0 };
  const closer = new AbortController();
  let pending = 0;

  async function postOnce(body: string): Promise<Attempt> {
    const signal = AbortSignal.any([closer.signal, AbortSignal.timeout(timeoutMs)]);
    let response: Response;
    try {
      response = await doFetch(url!, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal });
    } catch (err) {
      if (closer.signal.aborted) return { kind: 'fail', detail: 'dispatcher closed' };
      // Describe the failure without the error text: undici messages can carry the address.
      const name = err instanceof Error ? err.name : 'Error';
      const code = (err as { cause?: { code?: unknown } }).cause?.code;
      const detail = name === 'TimeoutError' ? `timeout after ${timeoutMs} ms` : `network error${typeof code === 'string' ? ` (${code})` : ''}`;
      return { kind: 'retry', detail };
    }
    const text = await response.text().catch(() => '');
    const parsed = parseJsonOrNull(text);
    if (response.ok) return { kind: 'ok', status: response.status };
    if (response.status === 429) {
      const wait = retryAfterMs(response.headers.get('retry-after'), parsed, clock.now());
      return { kind: 'retry', detail: 'HTTP 429 rate limited', waitMs: wait ?? undefined };
    }
    if (response.status >= 500) return { kind: 'retry', detail: `HTTP ${response.status}` };
    return { kind: 'fail', detail: `HTTP ${response.status}` };
  }

  async function send(event: WebhookEvent): Promise<DeliveryOutcome> {
    const body = JSON.stringify(buildWebhookPayload(event, clock.now(), username));
    let last = 'not attempted';
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const result = await postOnce(body);
      if (result.kind === 'ok') {
        stats.sent++;
        return { status: 'ok', detail: `HTTP ${result.status}${attempt > 1 ? ` after ${attempt} attempts` : ''}` };
      }
      last = result.detail;
      if (result.kind === 'fail' || attempt === maxAttempts) break;
      const wait = result.waitMs ?? backoffMs * 2 ** (attempt - 1);
      if (wait > maxRetryAfterMs) {
        last = `${result.detail}; retry-after ${Math.ceil(wait / 1000)} s exceeds the ${Math.round(maxRetryAfterMs / 1000)} s bound`;
        break;
      }
      stats.retries++;
      log.debug({ eventClass: event.eventClass, attempt, waitMs: wait, reason: result.detail }, 'webhook post will be retried');
      await sleep(wait, closer.signal);
      if (closer.signal.aborted) {
        last = 'dispatcher closed';
        break;
      }
    }
    stats.failed++;
    log.warn({ eventClass: event.eventClass, reason: last }, 'webhook event not delivered');
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
        const now = clock.now();
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
        if (hooks?.beforeSend) {
          let go: boolean;
          try {
            go = await hooks.beforeSend();
          } catch (err) {
            return { status: 'error', detail: `not sent: ${err instanceof Error ? err.message : String(err)}` };
          }
          if (!go) return { status: 'skipped', detail: 'not sent: the entry was cancelled or is being delivered elsewhere' };
        }
        const outcome = await send(event);
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
