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
//     the receiver may have acted on it, so it is never re-sent; the outcome says `unknown` —
//     unless the receiver is said to honour the Idempotency-Key (`keyWindowSeconds` > 0,
//     DISCORD_VOICE_LIVE_WEBHOOK_IDEMPOTENCY_SECONDS): then it is sent again with the same key.
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
  /**
   * How long the receiver drops a repeat of an Idempotency-Key it acted on (seconds); 0 (default):
   * it does not. When > 0 a POST with an unknown outcome is sent again with the same key (within
   * the attempts), and a reminder interrupted mid-POST is resent after a restart within this window.
   */
  keyWindowSeconds?: number;
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
  /** How long the receiver drops a repeated Idempotency-Key (seconds); 0 or absent: it does not. */
  readonly keyWindowSeconds?: number;
  emit(event: WebhookEvent, hooks?: WebhookEmitHooks): Promise<DeliveryOutcome>;
  stats(): WebhookStats;
  /** Abort in-flight posts and waits; later emits are `unavailable`. */
  close(): void;
}

/** The JSON body POSTed for one event (documented in docs/notifications.md). */
export function buildWebhookPayload(
  event: WebhookEvent & { id: string },
  nowMs: number,
  username: string,
): Record<string, unknown> {
  const fields: { name: string; value: string; inline: boolean }[] = [
    { name: 'Event', value: event.eventClass, inline: true },
  ];
  if (event.source)
    fields.push({ name: 'Source', value: truncate(defuseMentions(event.source), EMBED_FIELD_MAX), inline: true });
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
export function postJson(
  target: URL,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<PostResult> {
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
      written
        ? {
            kind: 'unknown',
            detail: `${why} after the request was sent; not re-sent (the receiver may have acted on it)`,
          }
        : { kind: 'not_sent', detail: why };
    const request = (target.protocol === 'https:' ? https : http).request(
      target,
      {
        method: 'POST',
        agent: false,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)), connection: 'close' },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () =>
          finish({
            kind: 'answered',
            status: response.statusCode ?? 0,
            retryAfter: headerValue(response.headers['retry-after']),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        // The status line arrived: the receiver answered, whatever happens to the rest of the body.
        response.on('error', () =>
          finish({ kind: 'answered', status: response.statusCode ?? 0, retryAfter: null, body: '' }),
        );
      },
    );
    request.on('finish', () => (written = true));
    // Describe the failure without the error text: Node's messages carry the address.
    request.on('error', (err: NodeJS.ErrnoException) =>
      finish(lost(`network error${err.code ? ` (${err.code})` : ''}`)),
    );
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

/** The options with their defaults applied. */
type WebhookSettings = Required<Omit<WebhookDispatcherOptions, 'url' | 'throttleSeconds'>> & { windowMs: number };

function withDefaults(options: WebhookDispatcherOptions): WebhookSettings {
  return {
    logger: options.logger,
    clock: options.clock ?? systemClock,
    monotonic: options.monotonic ?? monotonicClock,
    sleep: options.sleep ?? realSleep,
    windowMs: (options.throttleSeconds ?? 2) * 1000,
    maxThrottleWaitMs: options.maxThrottleWaitMs ?? 30_000,
    queueLimit: options.queueLimit ?? 32,
    timeoutMs: options.timeoutMs ?? 8000,
    maxAttempts: Math.max(1, options.maxAttempts ?? 4),
    backoffMs: options.backoffMs ?? 1000,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
    username: options.username ?? 'Live Voice Bridge',
    keyWindowSeconds: Math.max(0, options.keyWindowSeconds ?? 0),
  };
}

/** Ask `beforeSend` before a POST; the outcome to return when it refuses. */
async function refusedBeforePost(
  hooks: WebhookEmitHooks | undefined,
  last: string | null,
): Promise<DeliveryOutcome | null> {
  if (!hooks?.beforeSend) return null;
  let go: boolean;
  try {
    go = await hooks.beforeSend();
  } catch (err) {
    return { status: 'error', detail: `not sent: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (go) return null;
  return last === null
    ? { status: 'skipped', detail: 'not sent: the entry was cancelled or is being delivered elsewhere' }
    : {
        status: 'error',
        detail: `${last}; not retried now: the entry was cancelled, is being delivered elsewhere or we are shutting down`,
      };
}

/** Posts to one URL: throttled per event class, bounded, retried on 5xx/429, never re-sent when the outcome is unknown. */
class WebhookPoster implements WebhookDispatcher {
  readonly configured = true;
  get keyWindowSeconds(): number {
    return this.#s.keyWindowSeconds;
  }
  readonly #target: URL;
  readonly #s: WebhookSettings;
  readonly #nextSlot = new Map<string, number>();
  readonly #stats: WebhookStats = { sent: 0, failed: 0, throttled: 0, dropped: 0, urgent: 0, retries: 0, unknown: 0 };
  readonly #closer = new AbortController();
  #pending = 0;

  constructor(target: URL, settings: WebhookSettings) {
    this.#target = target;
    this.#s = settings;
  }

  async emit(event: WebhookEvent, hooks?: WebhookEmitHooks): Promise<DeliveryOutcome> {
    if (this.#closer.signal.aborted) return { status: 'unavailable', detail: 'dispatcher closed' };
    if (this.#pending >= this.#s.queueLimit) {
      this.#stats.dropped++;
      return { status: 'throttled', detail: `webhook queue full (${this.#s.queueLimit} pending); event not sent` };
    }
    const { waitMs, reserved } = this.#reserveSlot(event);
    if (!reserved) {
      this.#stats.dropped++;
      return {
        status: 'throttled',
        detail: `throttled: next ${event.eventClass} slot is ${Math.ceil(waitMs / 1000)} s away; event not sent`,
      };
    }
    this.#pending++;
    try {
      if (waitMs > 0) {
        this.#stats.throttled++;
        await this.#s.sleep(waitMs, this.#closer.signal);
        if (this.#closer.signal.aborted) return { status: 'unavailable', detail: 'dispatcher closed' };
      }
      const outcome = await this.#send(event, event.id ?? randomUUID(), hooks);
      return waitMs > 0
        ? { ...outcome, detail: `${outcome.detail}; delayed ${(waitMs / 1000).toFixed(1)} s by throttling` }
        : outcome;
    } finally {
      this.#pending--;
    }
  }

  stats(): WebhookStats {
    return { ...this.#stats };
  }

  close(): void {
    this.#closer.abort();
  }

  /**
   * How long `event` waits for its class's slot, the slot reserved synchronously so concurrent emits
   * queue up one window apart; not reserved when it is further away than the bound. Urgent: no wait.
   */
  #reserveSlot(event: WebhookEvent): { waitMs: number; reserved: boolean } {
    if (event.urgent) {
      this.#stats.urgent++;
      return { waitMs: 0, reserved: true };
    }
    // Monotonic: a wall clock set back an hour must not push the next slot an hour away.
    const now = this.#s.monotonic.now();
    const slot = Math.max(now, this.#nextSlot.get(event.eventClass) ?? 0);
    if (slot - now > this.#s.maxThrottleWaitMs) return { waitMs: slot - now, reserved: false };
    this.#nextSlot.set(event.eventClass, slot + this.#s.windowMs);
    return { waitMs: slot - now, reserved: true };
  }

  async #postOnce(body: string, id: string): Promise<Attempt> {
    const closed = this.#closer.signal;
    const result = await postJson(
      this.#target,
      body,
      { 'content-type': 'application/json', 'idempotency-key': id },
      this.#s.timeoutMs,
      closed,
    );
    if (result.kind === 'unknown') return result;
    if (result.kind === 'not_sent')
      return closed.aborted
        ? { kind: 'fail', detail: 'dispatcher closed', unsent: true }
        : { kind: 'retry', detail: result.detail };
    if (result.status >= 200 && result.status < 300) return { kind: 'ok', status: result.status };
    if (result.status === 429) {
      const wait = retryAfterMs(result.retryAfter, parseJsonOrNull(result.body), this.#s.clock.now());
      return { kind: 'retry', detail: 'HTTP 429 rate limited', waitMs: wait ?? undefined };
    }
    if (result.status >= 500) return { kind: 'retry', detail: `HTTP ${result.status}` };
    return { kind: 'fail', detail: `HTTP ${result.status}` };
  }

  async #send(event: WebhookEvent, id: string, hooks?: WebhookEmitHooks): Promise<DeliveryOutcome> {
    const { clock, logger: log, maxAttempts } = this.#s;
    const body = JSON.stringify(buildWebhookPayload({ ...event, id }, clock.now(), this.#s.username));
    let last = 'not attempted';
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const refused = await refusedBeforePost(hooks, attempt === 1 ? null : last);
      if (refused) return refused;
      const result = await this.#postOnce(body, id);
      if (result.kind === 'ok') {
        this.#stats.sent++;
        return { status: 'ok', detail: `HTTP ${result.status}${attempt > 1 ? ` after ${attempt} attempts` : ''}` };
      }
      if (result.kind === 'unknown' && this.#s.keyWindowSeconds > 0 && attempt < maxAttempts) {
        // The receiver drops a repeat of this key: sending again cannot deliver twice.
        last = result.detail.replace('not re-sent', 'sent again with the same Idempotency-Key');
        this.#stats.retries++;
        log.debug(
          { eventClass: event.eventClass, notificationId: id, attempt, reason: result.detail },
          'webhook outcome unknown; sent again with the same key',
        );
        await this.#s.sleep(this.#s.backoffMs * 2 ** (attempt - 1), this.#closer.signal);
        if (this.#closer.signal.aborted) return { status: 'unknown', detail: result.detail };
        continue;
      }
      if (result.kind === 'unknown') {
        this.#stats.unknown++;
        log.warn(
          { eventClass: event.eventClass, notificationId: id, attempt, reason: result.detail },
          'webhook outcome unknown; not re-sent',
        );
        return { status: 'unknown', detail: result.detail };
      }
      const next = await this.#afterFailure(result, attempt, hooks);
      last = next.last;
      if (!next.retry) break;
      this.#stats.retries++;
      log.debug(
        { eventClass: event.eventClass, notificationId: id, attempt, waitMs: next.waitMs, reason: result.detail },
        'webhook post will be retried',
      );
      await this.#s.sleep(next.waitMs, this.#closer.signal);
      if (this.#closer.signal.aborted) {
        last = 'dispatcher closed';
        break;
      }
    }
    this.#stats.failed++;
    log.warn({ eventClass: event.eventClass, notificationId: id, reason: last }, 'webhook event not delivered');
    return { status: 'error', detail: last };
  }

  /** After a POST that was not accepted: tell the caller, then whether (and after how long) to try again. */
  async #afterFailure(
    result: Extract<Attempt, { kind: 'retry' | 'fail' }>,
    attempt: number,
    hooks?: WebhookEmitHooks,
  ): Promise<{ retry: boolean; waitMs: number; last: string }> {
    const waitMs = result.kind === 'retry' ? (result.waitMs ?? this.#s.backoffMs * 2 ** (attempt - 1)) : 0;
    // Not accepted (a retry) or provably never sent: the caller lets go of what it holds for this
    // send BEFORE we wait. A refusal (4xx) is final: it stays a failed send.
    if (hooks?.notAccepted && (result.kind === 'retry' || result.unsent)) {
      try {
        await hooks.notAccepted(this.#s.clock.now() + waitMs, result.detail);
      } catch (err) {
        return {
          retry: false,
          waitMs,
          last: `${result.detail}; not retried: ${err instanceof Error ? err.message : String(err)}`,
        };
      }
    }
    if (result.kind === 'fail' || attempt === this.#s.maxAttempts) return { retry: false, waitMs, last: result.detail };
    if (waitMs > this.#s.maxRetryAfterMs) {
      return {
        retry: false,
        waitMs,
        last: `${result.detail}; retry-after ${Math.ceil(waitMs / 1000)} s exceeds the ${Math.round(this.#s.maxRetryAfterMs / 1000)} s bound`,
      };
    }
    return { retry: true, waitMs, last: result.detail };
  }
}

/** No URL configured: every emit is `unavailable`, nothing is posted. */
const NO_WEBHOOK: WebhookDispatcher = {
  configured: false,
  keyWindowSeconds: 0,
  emit: async () => ({ status: 'unavailable', detail: 'no webhook URL configured' }),
  stats: () => ({ sent: 0, failed: 0, throttled: 0, dropped: 0, urgent: 0, retries: 0, unknown: 0 }),
  close: () => undefined,
};

export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const url = options.url?.trim() || undefined;
  return url ? new WebhookPoster(new URL(url), withDefaults(options)) : NO_WEBHOOK;
}
