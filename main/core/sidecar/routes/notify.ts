// Notification routes: POST /notify (JSON) and GET /notify?text=&mode=&title= (same result),
// POST /schedule, GET /schedule, DELETE /schedule/:id.
// A delivery that reached nobody is still a 200 whose body says `status: "error"` with per-mode
// reasons: the request was valid and the result is the answer. Bad input is a 400 with a code
// (`empty_text`, `unknown_mode`, `bad_delay`, ...; 413 `text_too_long`); an unknown schedule id is
// 404 `unknown_schedule_id`, cancelling one that already fired or was cancelled 409 `not_cancellable`,
// a schedule at its pending cap 429 `schedule_full`. GET /schedule is paginated (?limit&cursor&state).
import { z } from 'zod';
import { SCHEDULE_STATES, type NotifyRequest, type NotifyResult } from '../../api-types.ts';
import type { Notifier } from '../../notify/dispatcher.ts';
import { LIST_MAX_LIMIT, type ScheduleEntryView, type ScheduleListPage, type Scheduler } from '../../notify/scheduler.ts';
import { NotifyCapacityError, NotifyInputError, NotifyStateError } from '../../notify/types.ts';
import { HttpError } from '../errors.ts';
import type { RouteModule } from '../route-types.ts';

export interface NotifyRouteDeps {
  notifier: Pick<Notifier, 'deliver'>;
  scheduler: Pick<Scheduler, 'schedule' | 'list' | 'cancel'>;
}

/** Notification errors → HTTP; anything else passes through (a bug → 500). */
export function notifyHttpError(err: unknown, stateCodes: { not_found: string; conflict: string } = { not_found: 'not_found', conflict: 'conflict' }): unknown {
  if (err instanceof NotifyCapacityError) return new HttpError(429, err.code, err.message);
  if (err instanceof NotifyInputError) return new HttpError(err.code === 'text_too_long' ? 413 : 400, err.code, err.message);
  if (err instanceof NotifyStateError) return new HttpError(err.code === 'not_found' ? 404 : 409, stateCodes[err.code], err.message);
  return err;
}

async function mapErrors<T>(fn: () => Promise<T>, stateCodes?: { not_found: string; conflict: string }): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw notifyHttpError(err, stateCodes);
  }
}

const NotifyQuery = z.object({
  text: z.string().optional(),
  mode: z.string().optional(),
  title: z.string().optional(),
  source: z.string().optional(),
  urgent: z.enum(['true', 'false', '1', '0']).optional(),
});

const ScheduleQuery = z.object({
  limit: z.string().regex(/^\d+$/).optional(),
  cursor: z.string().max(500).optional(),
  state: z.enum(SCHEDULE_STATES).optional(),
});

const IdParams = z.object({ id: z.string().min(1).max(100) });

export const registerNotifyRoutes: RouteModule<NotifyRouteDeps> = (app, deps) => {
  // The body is validated inside deliver() (the same rules as the tool), so it is passed as is.
  app.post('/notify', (request): Promise<NotifyResult> => mapErrors(() => deps.notifier.deliver(request.body as NotifyRequest)));

  app.get('/notify', async (request): Promise<NotifyResult> => {
    const query = NotifyQuery.safeParse(request.query);
    if (!query.success) {
      const field = String(query.error.issues[0]?.path[0] ?? 'query');
      throw new HttpError(400, field === 'urgent' ? 'bad_urgent' : 'invalid_request', `${field}: give it once, as text${field === 'urgent' ? ' (true or false)' : ''}`);
    }
    const { urgent, ...rest } = query.data;
    const request_ = { ...rest, text: rest.text ?? '', ...(urgent !== undefined ? { urgent: urgent === 'true' || urgent === '1' } : {}) };
    return mapErrors(() => deps.notifier.deliver(request_ as NotifyRequest)); // mode is checked inside deliver()
  });

  app.post('/schedule', async (request, reply): Promise<{ scheduled: string; fire_at_epoch: number; entry: ScheduleEntryView }> => {
    const entry = await mapErrors(() => deps.scheduler.schedule(request.body));
    reply.code(201);
    return { scheduled: entry.id, fire_at_epoch: entry.fire_at_epoch, entry };
  });

  app.get('/schedule', async (request): Promise<ScheduleListPage> => {
    const query = ScheduleQuery.safeParse(request.query);
    if (!query.success) {
      const field = String(query.error.issues[0]?.path[0] ?? 'query');
      const hint = field === 'limit' ? `an integer from 1 to ${LIST_MAX_LIMIT}` : field === 'state' ? `one of ${SCHEDULE_STATES.join(', ')}` : 'the next_cursor of a previous page';
      throw new HttpError(400, `bad_${field}`, `${field}: give it once, as ${hint}`);
    }
    const { limit, cursor, state } = query.data;
    return mapErrors(() => deps.scheduler.list({ ...(limit !== undefined ? { limit: Number(limit) } : {}), cursor, state }));
  });

  app.delete('/schedule/:id', async (request): Promise<{ cancelled: string; entry: ScheduleEntryView }> => {
    const params = IdParams.safeParse(request.params);
    if (!params.success) throw new HttpError(400, 'invalid_request', 'id: expected a schedule id');
    const entry = await mapErrors(() => deps.scheduler.cancel(params.data.id), { not_found: 'unknown_schedule_id', conflict: 'not_cancellable' });
    return { cancelled: entry.id, entry };
  });
};
