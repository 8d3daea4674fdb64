// The notes in the database (docs/storage.md): every call's events (transcript lines, notes, tool
// calls…) as rows of `notes`, one row per call in `calls` with its counts, the FTS5 index over the
// text kept in step by triggers. Events outside any call go to the day's `outside-YYYY-MM-DD` call,
// as the per-call files did. Pages follow one total order (time, call id, row), so paging back
// never skips or repeats notes that share a timestamp (notes-cursor.ts).
import type { NoteEvent, NoteKind } from '../api-types.ts';
import type { SqliteDatabase, SqliteStatement } from '../store/database.ts';
import { formatNotesCursor, type NotesCursor } from './notes-cursor.ts';

export const NOTES_MAX_LIMIT = 500;

/** A call id: no separators, no dots at the start (also the form call ids take in cursors). */
export const CALL_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export interface CallSummary {
  /** The call id; `outside-YYYY-MM-DD` for events outside calls. */
  id: string;
  /** Epoch seconds of the first and last event. */
  started_at: number;
  ended_at: number;
  events: number;
  /** Size of the call's notes as JSON lines. */
  bytes: number;
  /** True for the daily record of events outside any call. */
  outside_call: boolean;
}

export interface NotesQuery {
  call?: string;
  /** Only events before this cursor (a previous page's `next_before`, or bare epoch seconds). */
  before?: NotesCursor;
  limit: number;
  /** Case-insensitive text search in text and speaker. */
  q?: string;
}

export interface NotesPage {
  /** Oldest first (newest last), like a transcript. */
  notes: NoteEvent[];
  /** Give back as `before` for the previous (older) page (`<ts>~<call id>~<row>`); null when there is none. */
  next_before: string | null;
}

export interface NoteRow {
  seq: number;
  id: string;
  call_id: string;
  ts: number;
  kind: string;
  speaker: string | null;
  speaker_name: string | null;
  text: string;
}

interface CallRow {
  id: string;
  started_at: number;
  ended_at: number;
  events: number;
  bytes: number;
  outside_call: number;
}

export const OUTSIDE_PREFIX = 'outside-';

export function outsideCallId(ts: number): string {
  return `${OUTSIDE_PREFIX}${new Date(ts * 1000).toISOString().slice(0, 10)}`;
}

export function noteFromRow(r: NoteRow): NoteEvent {
  return {
    id: r.id,
    ts: r.ts,
    kind: r.kind as NoteKind,
    ...(r.speaker !== null ? { speaker: r.speaker } : {}),
    ...(r.speaker_name !== null ? { speaker_name: r.speaker_name } : {}),
    text: r.text,
    ...(r.call_id.startsWith(OUTSIDE_PREFIX) ? {} : { callId: r.call_id }),
  };
}

function callFromRow(r: CallRow): CallSummary {
  return {
    id: r.id,
    started_at: r.started_at,
    ended_at: r.ended_at,
    events: r.events,
    bytes: r.bytes,
    outside_call: r.outside_call === 1,
  };
}

/** `%`, `_` and `\` taken literally in a LIKE pattern. */
function likePattern(needle: string): string {
  return `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const NOTE_COLUMNS = 'seq, id, call_id, ts, kind, speaker, speaker_name, text';

export class NotesStore {
  readonly db: SqliteDatabase;
  readonly #statements = new Map<string, SqliteStatement>();
  readonly #insertOne: (event: NoteEvent, callId: string) => number;

  constructor(db: SqliteDatabase) {
    this.db = db;
    const upsertCall = db.prepare(
      `INSERT INTO calls (id, started_at, ended_at, events, bytes, outside_call) VALUES (@id, @ts, @ts, 1, @bytes, @outside)
       ON CONFLICT (id) DO UPDATE SET started_at = min(started_at, @ts), ended_at = max(ended_at, @ts), events = events + 1, bytes = bytes + @bytes`,
    );
    const insertNote = db.prepare(
      'INSERT INTO notes (id, call_id, ts, kind, speaker, speaker_name, text) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.#insertOne = db.transaction((event: NoteEvent, callId: string): number => {
      const bytes = Buffer.byteLength(JSON.stringify(event)) + 1;
      upsertCall.run({ id: callId, ts: event.ts, bytes, outside: callId.startsWith(OUTSIDE_PREFIX) ? 1 : 0 });
      return Number(
        insertNote.run(
          event.id,
          callId,
          event.ts,
          event.kind,
          event.speaker ?? null,
          event.speaker_name ?? null,
          event.text,
        ).lastInsertRowid,
      );
    });
  }

  /** Record one event (its call row created or extended); returns its row number. */
  insert(event: NoteEvent): number {
    return this.#insertOne(event, event.callId ?? outsideCallId(event.ts));
  }

  /** Record many events in one transaction (the import). */
  insertMany(events: Iterable<NoteEvent & { callId: string }>): number {
    let n = 0;
    this.db.transaction(() => {
      for (const e of events) {
        this.#insertOne(e, e.callId);
        n += 1;
      }
    })();
    return n;
  }

  #prepare(sql: string): SqliteStatement {
    let statement = this.#statements.get(sql);
    if (!statement) this.#statements.set(sql, (statement = this.db.prepare(sql)));
    return statement;
  }

  /** Every call, newest last event first. */
  calls(): CallSummary[] {
    return (this.#prepare('SELECT * FROM calls ORDER BY ended_at DESC, id DESC').all() as CallRow[]).map(callFromRow);
  }

  call(id: string): CallSummary | null {
    const row = this.#prepare('SELECT * FROM calls WHERE id = ?').get(id) as CallRow | undefined;
    return row ? callFromRow(row) : null;
  }

  /** One call's events (all of them), oldest first; null when there is no such call. */
  read(callId: string): NoteEvent[] | null {
    if (!this.call(callId)) return null;
    return (
      this.#prepare(`SELECT ${NOTE_COLUMNS} FROM notes WHERE call_id = ? ORDER BY ts, seq`).all(callId) as NoteRow[]
    ).map(noteFromRow);
  }

  /** The newest `limit` matching events before the cursor, across calls or in one; null for an unknown call. */
  query(query: NotesQuery): NotesPage | null {
    if (query.call !== undefined && !this.call(query.call)) return null;
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (clause: string, ...values: unknown[]): void => {
      where.push(clause);
      params.push(...values);
    };
    if (query.call !== undefined) add('call_id = ?', query.call);
    const { before } = query;
    if (before?.file !== undefined && before.line !== undefined)
      add('(ts, call_id, seq) < (?, ?, ?)', before.ts, before.file, before.line);
    else if (before !== undefined) add('ts < ?', before.ts);
    if (query.q)
      add("(text LIKE ? ESCAPE '\\' OR speaker LIKE ? ESCAPE '\\')", likePattern(query.q), likePattern(query.q));
    const sql = `SELECT ${NOTE_COLUMNS} FROM notes ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ts DESC, call_id DESC, seq DESC LIMIT ?`;
    // One more than the page: its presence says an older page exists.
    const rows = this.#prepare(sql).all(...params, query.limit + 1) as NoteRow[];
    const page = rows.slice(0, query.limit).reverse();
    const oldest = page[0];
    return {
      notes: page.map(noteFromRow),
      next_before:
        rows.length > query.limit && oldest
          ? formatNotesCursor({ ts: oldest.ts, file: oldest.call_id, line: oldest.seq })
          : null,
    };
  }

  /** Store a call's end-of-call summary (JSON), replacing an earlier one. */
  saveSummary(callId: string, body: unknown, nowMs = Date.now()): void {
    this.#prepare(
      'INSERT INTO summaries (call_id, created_at, body) VALUES (?, ?, ?) ON CONFLICT (call_id) DO UPDATE SET created_at = excluded.created_at, body = excluded.body',
    ).run(callId, nowMs / 1000, JSON.stringify(body));
  }

  /** A call's summary, or null. */
  summary(callId: string): unknown {
    const row = this.#prepare('SELECT body FROM summaries WHERE call_id = ?').get(callId) as
      { body: string } | undefined;
    return row ? (JSON.parse(row.body) as unknown) : null;
  }

  /** The newest `limit` summaries (newest first), with their call and when they were made. */
  recentSummaries(limit: number): Array<{ call_id: string; created_at: number; body: unknown }> {
    const rows = this.#prepare('SELECT call_id, created_at, body FROM summaries ORDER BY created_at DESC LIMIT ?').all(
      limit,
    ) as Array<{ call_id: string; created_at: number; body: string }>;
    return rows.map((r) => ({ call_id: r.call_id, created_at: r.created_at, body: JSON.parse(r.body) as unknown }));
  }

  /** Delete calls (their notes, the index entries, summaries and usage rows) in one transaction. */
  deleteCalls(ids: readonly string[]): number {
    let notes = 0;
    this.db.transaction(() => {
      for (const id of ids) {
        notes += this.#prepare('DELETE FROM notes WHERE call_id = ?').run(id).changes;
        this.#prepare('DELETE FROM summaries WHERE call_id = ?').run(id);
        this.#prepare('DELETE FROM usage_calls WHERE call_id = ?').run(id);
        this.#prepare('DELETE FROM calls WHERE id = ?').run(id);
      }
    })();
    return notes;
  }
}

export interface NotesPruneOptions {
  maxAgeDays: number;
  /** Delete the oldest calls until the rest of the notes fit in this many bytes (as JSON lines). */
  maxBytes: number;
  nowMs?: number;
  /** The call in progress: never deleted. */
  keep?: string;
}

export interface NotesPruneResult {
  callsDeleted: number;
  notesDeleted: number;
  usageDaysDeleted: number;
  /** Bytes of notes left. */
  bytes: number;
}

/** Retention: calls that ended more than `maxAgeDays` ago, then the oldest beyond `maxBytes`, from every table and the index. */
export function pruneNotes(store: NotesStore, options: NotesPruneOptions): NotesPruneResult {
  const cutoff = ((options.nowMs ?? Date.now()) - options.maxAgeDays * 86_400_000) / 1000;
  const calls = store.calls().reverse(); // oldest first
  const doomed: string[] = [];
  let bytes = 0;
  for (const c of calls) bytes += c.bytes;
  for (const c of calls) {
    if (c.id === options.keep) continue;
    if (c.ended_at >= cutoff && bytes <= options.maxBytes) break;
    doomed.push(c.id);
    bytes -= c.bytes;
  }
  const notesDeleted = store.deleteCalls(doomed);
  const cutoffDay = new Date(cutoff * 1000).toISOString().slice(0, 10);
  const usageDaysDeleted = store.db.prepare('DELETE FROM usage_days WHERE day < ?').run(cutoffDay).changes;
  store.db.prepare('DELETE FROM usage_calls WHERE day < ?').run(cutoffDay);
  return { callsDeleted: doomed.length, notesDeleted, usageDaysDeleted, bytes };
}
