// Notification routes: POST /notify (JSON) and GET /notify?text=&mode=&title= (same result),
// POST /schedule, GET /schedule, DELETE /schedule/:id.
// A delivery that reached nobody is still a 200 whose body says `status: "error"` with per-mode
// reasons: the request was valid and the result is the answer. Bad input is a 400 with a code
// (`empty_text`, `unknown_mode`, `bad_delay`, ...; 413 `text_too_long`); an unknown schedule id is
// 404 `unknown_schedule_id`, cancelling one that already fired or was cancelled 409 `not_cancellable`,
// a schedule at its pending cap 429 `schedule_full`. GET /schedule is paginated (?limit&cursor&state).
//
// Optional client idempotency: POST /notify and POST /schedule take an `Idempotency-Key` header. A
// repeat of a key (a retry after a lost answer, or a concurrent duplicate) gets the first answer
// (same status, same body) and nothing is done again; the same key with a different body is 409
// `idempotency_key_reused`. /schedule keys are stored with the entry in the schedule file (24 h,
// survive restarts, shared by every process on the file); /notify keys live in memory (24 h, the
// last 1000 keys, lost on restart). Only successful answers are remembered: after an error the key
// is free and a retry is processed afresh. A keyed body is validated before it is hashed, so a bad
// one gets the same 400 as without the key (and a deeply nested one cannot exhaust the stack).
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { SCHEDULE_STATES, type NotifyRequest, type NotifyResult } from '../../api-types.ts';
import type { Notifier } from '../../notify/dispatcher.ts';
import { IdempotentReplay, type StoredNotification } from '../../notify/schedule-store.ts';
import {
  LIST_MAX_LIMIT,
  toView,
  type ScheduleEntryView,
  type ScheduleListPage,
  type Scheduler,
} from '../../notify/scheduler.ts';
import { NotifyCapacityError, NotifyInputError, NotifyStateError } from '../../notify/types.ts';
import { parseNotifyRequest, parseScheduleRequest } from '../../notify/validation.ts';
import { HttpError } from '../errors.ts';
import type { RouteModule } from '../route-types.ts';

export interface NotifyRouteDeps {
  notifier: Pick<Notifier, 'deliver'>;
  scheduler: Pick<Scheduler, 'schedule' | 'list' | 'cancel'>;
  /** Epoch seconds for the idempotency windows (tests). Default: the wall clock. */
  now?: () => number;
}

/** Notification errors → HTTP; anything else passes through (a bug → 500). */
export function notifyHttpError(
  err: unknown,
  stateCodes: { not_found: string; conflict: string } = { not_found: 'not_found', conflict: 'conflict' },
): unknown {
  if (err instanceof NotifyCapacityError) return new HttpError(429, err.code, err.message);
  if (err instanceof NotifyInputError)
    return new HttpError(err.code === 'text_too_long' ? 413 : 400, err.code, err.message);
  if (err instanceof NotifyStateError)
    return new HttpError(err.code === 'not_found' ? 404 : 409, stateCodes[err.code], err.message);
  return err;
}

async function mapErrors<T>(fn: () => Promise<T>, stateCodes?: { not_found: string; conflict: string }): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw notifyHttpError(err, stateCodes);
  }
}

// Unknown parameters are kept (catchall) and handed to deliver(), whose strict schema refuses them
// with 400 `unknown_field` exactly as POST does: `GET /notify?text=x&delay_seconds=3600` must not
// deliver now what the caller meant for later.
const NotifyQuery = z
  .object({
    text: z.string().optional(),
    mode: z.string().optional(),
    title: z.string().optional(),
    source: z.string().optional(),
    urgent: z.enum(['true', 'false', '1', '0']).optional(),
  })
  .catchall(z.unknown());

const ScheduleQuery = z.object({
  limit: z.string().regex(/^\d+$/).optional(),
  cursor: z.string().max(500).optional(),
  state: z.enum(SCHEDULE_STATES).optional(),
});

const IdParams = z.object({ id: z.string().min(1).max(100) });

/** How long a key is honoured, and how many /notify keys are kept in memory. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
export const NOTIFY_IDEMPOTENCY_MAX_KEYS = 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,200}$/;

/** The request's `Idempotency-Key`, or undefined; a malformed one is 400 `bad_idempotency_key`. */
function idempotencyKey(request: FastifyRequest): string | undefined {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  if (Array.isArray(raw) || !KEY_PATTERN.test(raw)) {
    throw new HttpError(
      400,
      'bad_idempotency_key',
      'Idempotency-Key: give it once, 1 to 200 visible ASCII characters (e.g. a UUID)',
    );
  }
  return raw;
}

/**
 * Deeper than any valid body (a flat object): hashed only after validation, so never reached; a
 * guard all the same, as a 400 rather than a stack overflow (500).
 */
const CANONICAL_MAX_DEPTH = 32;

/** JSON with sorted keys: the same body hashes the same whatever the key order. */
function canonical(value: unknown, depth = 0): string {
  if (depth > CANONICAL_MAX_DEPTH) throw new HttpError(400, 'invalid_request', 'the request body is nested too deeply');
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v, depth + 1)).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k], depth + 1)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function requestHash(route: string, body: unknown): string {
  return createHash('sha256')
    .update(`${route}\n${canonical(body)}`)
    .digest('hex');
}

/** Validate a keyed body before hashing it: a bad one is the same 400 as without the key. */
function validated(parse: (raw: unknown) => unknown, body: unknown): void {
  try {
    parse(body);
  } catch (err) {
    throw notifyHttpError(err);
  }
}

const keyReused = (key: string): HttpError =>
  new HttpError(
    409,
    'idempotency_key_reused',
    `Idempotency-Key ${JSON.stringify(key)} was already used for a different request; use a new key for a new request`,
  );

/** The /schedule answer for an entry, as it was when the entry was created. */
function scheduledAnswer(entry: ScheduleEntryView): {
  scheduled: string;
  fire_at_epoch: number;
  entry: ScheduleEntryView;
} {
  return { scheduled: entry.id, fire_at_epoch: entry.fire_at_epoch, entry };
}

function asCreated(e: StoredNotification): ScheduleEntryView {
  const first: StoredNotification = { ...e, state: 'scheduled', attempts: 0 };
  for (const key of ['last_error', 'delivered_at', 'late_by_seconds', 'next_attempt_at', 'claim'] as const)
    delete first[key];
  return toView(first);
}

interface RememberedAnswer {
  hash: string;
  until: number;
  answer: Promise<NotifyResult>;
}

export const registerNotifyRoutes: RouteModule<NotifyRouteDeps> = (app, deps) => {
  const now = deps.now ?? ((): number => Date.now() / 1000);
  registerNotify(app, deps, now);
  registerSchedule(app, deps, now);
};

/** `/notify`: a notification delivered now, answered with its outcome (POST keyed by Idempotency-Key). */
function registerNotify(app: FastifyInstance, deps: NotifyRouteDeps, now: () => number): void {
  /** /notify answers by Idempotency-Key (insertion order = age, for eviction). */
  const notifyAnswers = new Map<string, RememberedAnswer>();

  // The body is validated inside deliver() (the same rules as the tool), so it is passed as is.
  app.post('/notify', (request): Promise<NotifyResult> => {
    const key = idempotencyKey(request);
    const deliver = (): Promise<NotifyResult> => mapErrors(() => deps.notifier.deliver(request.body as NotifyRequest));
    if (key === undefined) return deliver();
    validated(parseNotifyRequest, request.body);
    const hash = requestHash('/notify', request.body);
    const t = now();
    const known = notifyAnswers.get(key);
    if (known && known.until > t) {
      if (known.hash !== hash) throw keyReused(key);
      return known.answer; // the first answer (or, while it runs, the same pending one): nothing sent again
    }
    notifyAnswers.delete(key);
    const answer = deliver();
    notifyAnswers.set(key, { hash, until: t + IDEMPOTENCY_TTL_SECONDS, answer });
    // Only a success is remembered: after an error nothing was delivered, so the key is free again.
    answer.catch(() => {
      if (notifyAnswers.get(key)?.answer === answer) notifyAnswers.delete(key);
    });
    for (const [k, v] of notifyAnswers) {
      if (notifyAnswers.size <= NOTIFY_IDEMPOTENCY_MAX_KEYS && v.until > t) break;
      notifyAnswers.delete(k);
    }
    return answer;
  });

  app.get('/notify', async (request): Promise<NotifyResult> => {
    const query = NotifyQuery.safeParse(request.query);
    if (!query.success) {
      const field = String(query.error.issues[0]?.path[0] ?? 'query');
      throw new HttpError(
        400,
        field === 'urgent' ? 'bad_urgent' : 'invalid_request',
        `${field}: give it once, as text${field === 'urgent' ? ' (true or false)' : ''}`,
      );
    }
    const { urgent, ...rest } = query.data;
    const request_ = {
      ...rest,
      text: rest.text ?? '',
      ...(urgent !== undefined ? { urgent: urgent === 'true' || urgent === '1' } : {}),
    };
    return mapErrors(() => deps.notifier.deliver(request_ as NotifyRequest)); // mode is checked inside deliver()
  });
}

/** `/schedule`: reminders set (keyed by Idempotency-Key, kept in the schedule file), listed, cancelled. */
function registerSchedule(app: FastifyInstance, deps: NotifyRouteDeps, now: () => number): void {
  app.post(
    '/schedule',
    async (
      request: FastifyRequest,
      reply: FastifyReply,
    ): Promise<{ scheduled: string; fire_at_epoch: number; entry: ScheduleEntryView }> => {
      const key = idempotencyKey(request);
      let entry: ScheduleEntryView;
      if (key === undefined) entry = await mapErrors(() => deps.scheduler.schedule(request.body));
      else {
        validated(parseScheduleRequest, request.body);
        const keyed = {
          key,
          request_hash: requestHash('/schedule', request.body),
          now: now(),
          ttlSeconds: IDEMPOTENCY_TTL_SECONDS,
        };
        try {
          entry = await mapErrors(() => deps.scheduler.schedule(request.body, keyed));
        } catch (err) {
          if (!(err instanceof IdempotentReplay)) throw err;
          if (!err.sameRequest) throw keyReused(key);
          entry = asCreated(err.entry); // the first answer again; no second entry
        }
      }
      reply.code(201);
      return scheduledAnswer(entry);
    },
  );

  app.get('/schedule', async (request): Promise<ScheduleListPage> => {
    const query = ScheduleQuery.safeParse(request.query);
    if (!query.success) {
      const field = String(query.error.issues[0]?.path[0] ?? 'query');
      const hint =
        field === 'limit'
          ? `an integer from 1 to ${LIST_MAX_LIMIT}`
          : field === 'state'
            ? `one of ${SCHEDULE_STATES.join(', ')}`
            : 'the next_cursor of a previous page';
      throw new HttpError(400, `bad_${field}`, `${field}: give it once, as ${hint}`);
    }
    const { limit, cursor, state } = query.data;
    return mapErrors(() =>
      deps.scheduler.list({ ...(limit !== undefined ? { limit: Number(limit) } : {}), cursor, state }),
    );
  });

  app.delete('/schedule/:id', async (request): Promise<{ cancelled: string; entry: ScheduleEntryView }> => {
    const params = IdParams.safeParse(request.params);
    if (!params.success) throw new HttpError(400, 'invalid_request', 'id: expected a schedule id');
    const entry = await mapErrors(() => deps.scheduler.cancel(params.data.id), {
      not_found: 'unknown_schedule_id',
      conflict: 'not_cancellable',
    });
    return { cancelled: entry.id, entry };
  });
}
