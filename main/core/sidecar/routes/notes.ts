// Notes routes, read from disk so they survive restarts: GET /notes?limit&call&before&q (a page of
// events, newest last; `next_before` pages back) and GET /calls?limit&before (past calls, newest
// first). `next_before` is a cursor with a tie-breaker (notes-cursor.ts); `before` also takes the
// older bare epoch seconds. Bad parameters are 400 with a code; an unknown call is 404 `unknown_call`.
import { z } from 'zod';
import {
  CALL_ID_PATTERN,
  NOTES_MAX_LIMIT,
  type CallSummary,
  type NotesStore,
  type NotesPage,
} from '../../notes/notes-store.ts';
import {
  formatCallsCursor,
  isAfterCallsCursor,
  parseCallsCursor,
  parseNotesCursor,
  type CallsCursor,
  type NotesCursor,
} from '../../notes/notes-cursor.ts';
import { HttpError } from '../errors.ts';
import type { RouteModule } from '../route-types.ts';

export const NOTES_DEFAULT_LIMIT = 50;
export const CALLS_DEFAULT_LIMIT = 50;
export const Q_MAX_CHARS = 200;

export interface NotesRouteDeps {
  archive: Pick<NotesStore, 'query' | 'calls'>;
}

const once = z.string().optional();
const NotesQuery = z.object({ limit: once, call: once, before: once, q: once });
const CallsQuery = z.object({ limit: once, before: once });

function parseLimit(raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const limit = Number(raw);
  if (!/^\d+$/.test(raw) || limit < 1 || limit > NOTES_MAX_LIMIT)
    throw new HttpError(400, 'invalid_limit', `limit must be an integer from 1 to ${NOTES_MAX_LIMIT}`);
  return limit;
}

const isCallId = (id: string): boolean => CALL_ID_PATTERN.test(id);

function parseBefore<C>(
  raw: string | undefined,
  parse: (raw: string, isCallId: (id: string) => boolean) => C | null,
): C | undefined {
  if (raw === undefined) return undefined;
  const before = parse(raw, isCallId);
  if (!before)
    throw new HttpError(400, 'bad_before', 'before: the next_before of a previous page, or epoch seconds (a number)');
  return before;
}

function firstBadField(error: z.ZodError): string {
  return String(error.issues[0]?.path[0] ?? 'query');
}

export const registerNotesRoutes: RouteModule<NotesRouteDeps> = (app, deps) => {
  app.get('/notes', async (request): Promise<NotesPage> => {
    const query = NotesQuery.safeParse(request.query);
    if (!query.success) {
      const field = firstBadField(query.error);
      throw new HttpError(400, field === 'limit' ? 'invalid_limit' : `bad_${field}`, `${field}: give it once, as text`);
    }
    const { call, q } = query.data;
    if (call !== undefined && !CALL_ID_PATTERN.test(call))
      throw new HttpError(400, 'bad_call', 'call: a call id as listed by GET /calls');
    if (q !== undefined && (q.trim() === '' || q.length > Q_MAX_CHARS))
      throw new HttpError(400, 'bad_q', `q: 1 to ${Q_MAX_CHARS} characters of text to search for`);
    const page = deps.archive.query({
      limit: parseLimit(query.data.limit, NOTES_DEFAULT_LIMIT),
      call,
      before: parseBefore<NotesCursor>(query.data.before, parseNotesCursor),
      q: q?.trim(),
    });
    if (!page) throw new HttpError(404, 'unknown_call', `no notes for call ${JSON.stringify(call)}`);
    return page;
  });

  app.get('/calls', async (request): Promise<{ calls: CallSummary[]; next_before: string | null }> => {
    const query = CallsQuery.safeParse(request.query);
    if (!query.success) {
      const field = firstBadField(query.error);
      throw new HttpError(400, field === 'limit' ? 'invalid_limit' : `bad_${field}`, `${field}: give it once, as text`);
    }
    const limit = parseLimit(query.data.limit, CALLS_DEFAULT_LIMIT);
    const before = parseBefore<CallsCursor>(query.data.before, parseCallsCursor);
    const all = deps.archive.calls().filter((c) => before === undefined || isAfterCallsCursor(c, before));
    const calls = all.slice(0, limit);
    return { calls, next_before: all.length > limit ? formatCallsCursor(calls.at(-1)!) : null };
  });
};
