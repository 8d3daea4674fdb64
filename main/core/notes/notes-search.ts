// Full-text search over every call's notes (FTS5, `notes_fts`): the words of a query, each a quoted
// phrase (so no FTS5 syntax reaches the engine from a user), whole words only (a prefix query reads
// the doclists of every word it could be: 6 ms at 180k lines against 0.2–1 ms, bench:store); newest
// first, by row (insertion order), so a common word stops at the limit instead of ranking millions.
// A line of a speaker who opted out is never returned, whenever it was written.
import type { SqliteDatabase, SqliteStatement } from '../store/database.ts';
import { OUTSIDE_PREFIX } from './notes-store.ts';

export const SEARCH_MAX_LIMIT = 100;
export const SEARCH_DEFAULT_LIMIT = 20;

export interface SearchHit {
  call_id: string;
  /** Epoch seconds of the line. */
  at: number;
  /** The speaker's display name (Discord ids as they were named then), `model`, or null. */
  speaker: string | null;
  /** The matching part of the line. */
  snippet: string;
  /** The note's id (`GET /notes?call=` lists it): where to open the call. */
  note_id: string;
  /** The Discord id(s) behind `speaker` (or `model`, `sidecar`…). */
  speaker_id: string | null;
}

export interface SearchOptions {
  limit?: number;
  /** Only lines at or after this time (epoch seconds). */
  since?: number;
  /** Leave out calls' lines by these speakers (opted out). */
  excludeSpeaker?: (id: string) => boolean;
  /** Only real calls (not the `outside-` days). */
  callsOnly?: boolean;
}

/** The FTS5 query for what a person typed, or null when it has no word to look for. */
export function ftsQuery(text: string): string | null {
  const words = text.match(/[\p{L}\p{N}_]+/gu);
  if (!words?.length) return null;
  const phrases = words.slice(0, 16).map((w) => `"${w}"`);
  return `text : (${phrases.join(' ')})`;
}

interface HitRow {
  id: string;
  call_id: string;
  ts: number;
  speaker: string | null;
  speaker_name: string | null;
  snippet: string;
}

const statements = new WeakMap<SqliteDatabase, SqliteStatement>();

export function searchNotes(db: SqliteDatabase, text: string, options: SearchOptions = {}): SearchHit[] {
  const match = ftsQuery(text);
  if (!match) return [];
  const limit = Math.min(options.limit ?? SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT);
  let statement = statements.get(db);
  if (!statement) {
    statement = db.prepare(
      `SELECT n.id, n.call_id, n.ts, n.speaker, n.speaker_name, snippet(notes_fts, 0, '', '', '…', 24) AS snippet
       FROM notes_fts JOIN notes n ON n.seq = notes_fts.rowid
       WHERE notes_fts MATCH ? AND n.ts >= ? AND (? = 0 OR n.call_id NOT LIKE '${OUTSIDE_PREFIX}%')
       ORDER BY notes_fts.rowid DESC LIMIT ?`,
    );
    statements.set(db, statement);
  }
  const excluded = options.excludeSpeaker;
  const hits: SearchHit[] = [];
  // A few more than asked: lines of opted-out speakers are dropped after the query.
  for (const r of statement.all(
    match,
    options.since ?? -Infinity,
    options.callsOnly ? 1 : 0,
    excluded ? limit * 2 : limit,
  ) as HitRow[]) {
    if (excluded && r.speaker && r.speaker.split(',').some((id) => excluded(id))) continue;
    hits.push({
      call_id: r.call_id,
      at: r.ts,
      speaker: r.speaker_name ?? r.speaker,
      snippet: r.snippet,
      note_id: r.id,
      speaker_id: r.speaker,
    });
    if (hits.length === limit) break;
  }
  return hits;
}
