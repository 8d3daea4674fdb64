// The read side of the notes: every call's JSONL file under `<agent home>/voice-users/notes/` (and
// the daily `outside-YYYY-MM-DD.jsonl` for events outside a call), read back from disk so /notes,
// /calls and the dashboard survive restarts. A per-file summary (events, first/last time) is cached
// by size+mtime, so listing calls re-reads only files that changed. Lines are validated (zod); a
// damaged line is skipped, never fatal. Pages follow one total order (time, call id, line in the
// file; notes-cursor.ts), so paging back never skips or repeats notes that share a timestamp.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { NOTE_KINDS, type NoteEvent } from '../api-types.ts';
import { compareNotePositions, formatNotesCursor, isBeforeCursor, type NotePosition, type NotesCursor } from './notes-cursor.ts';

export const NOTES_MAX_LIMIT = 500;

const noteEventSchema = z.object({
  id: z.string(),
  ts: z.number(),
  kind: z.enum(NOTE_KINDS),
  speaker: z.string().optional(),
  speaker_name: z.string().optional(),
  text: z.string(),
  callId: z.string().optional(),
});

export interface CallSummary {
  /** The call id (file name without `.jsonl`); `outside-YYYY-MM-DD` for events outside calls. */
  id: string;
  /** Epoch seconds of the first and last event. */
  started_at: number;
  ended_at: number;
  events: number;
  bytes: number;
  /** True for the daily file of events recorded outside any call. */
  outside_call: boolean;
}

export interface NotesQuery {
  /** Only this call's events. */
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
  /** Give back as `before` for the previous (older) page (`<ts>~<call id>~<line>`); null when there is none. */
  next_before: string | null;
}

interface CachedFile {
  size: number;
  mtimeMs: number;
  summary: CallSummary;
  /** Lowest and highest event time: first/last in the summary, but a clock step can reorder lines. */
  minTs: number;
  maxTs: number;
}

/** A note with where it sits in the archive (the tie-breaker of the page order). */
interface Row extends NotePosition {
  event: NoteEvent;
}

/** A call id safe to use as a file name: no separators, no dots at the start. */
export const CALL_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The valid events of a JSONL file with their line numbers (stable: the files are append-only). */
function parseNoteRows(text: string, file: string): Row[] {
  const rows: Row[] = [];
  text.split('\n').forEach((line, index) => {
    if (!line.trim()) return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      return; // a torn or damaged line
    }
    const parsed = noteEventSchema.safeParse(json);
    if (parsed.success) rows.push({ event: parsed.data, ts: parsed.data.ts, file, line: index });
  });
  return rows;
}

export function parseNoteLines(text: string): NoteEvent[] {
  return parseNoteRows(text, '').map((r) => r.event);
}

export class NotesArchive {
  readonly dir: string;
  readonly #cache = new Map<string, CachedFile>();

  constructor(dir: string) {
    this.dir = dir;
  }

  /** Every file's summary, newest call first. */
  calls(): CallSummary[] {
    return this.#files()
      .map((f) => f.summary)
      .sort((a, b) => b.ended_at - a.ended_at || (a.id < b.id ? 1 : -1));
  }

  /** One call's events (all of them), oldest first; null when there is no such call. */
  read(callId: string): NoteEvent[] | null {
    return this.#rows(callId)?.map((r) => r.event) ?? null;
  }

  /** The newest `limit` matching events before the cursor, across calls or in one. */
  query(query: NotesQuery): NotesPage | null {
    const needle = query.q?.toLowerCase();
    const { before } = query;
    const matches = (r: Row): boolean =>
      (before === undefined || isBeforeCursor(r, before)) &&
      (!needle || r.event.text.toLowerCase().includes(needle) || (r.event.speaker?.toLowerCase().includes(needle) ?? false));
    // One more than the page: its presence says an older page exists.
    const want = query.limit + 1;
    let best: Row[] = []; // newest first, at most `want`
    const files =
      query.call !== undefined ? [{ id: query.call, minTs: -Infinity, maxTs: Infinity }] : this.#files().map((f) => ({ id: f.summary.id, minTs: f.minTs, maxTs: f.maxTs }));
    files.sort((a, b) => b.maxTs - a.maxTs);
    for (const file of files) {
      // Files come by newest event: once the page is full and older than this whole file, stop reading.
      if (best.length === want && file.maxTs < best[want - 1]!.ts) break;
      if (before !== undefined && file.minTs > before.ts) continue;
      const rows = this.#rows(file.id);
      if (!rows) {
        if (query.call !== undefined) return null;
        continue;
      }
      best = best.concat(rows.filter(matches));
      best.sort((a, b) => compareNotePositions(b, a));
      best.length = Math.min(best.length, want);
    }
    const page = best.slice(0, query.limit).reverse(); // oldest first, like a transcript
    return { notes: page.map((r) => r.event), next_before: best.length > query.limit ? formatNotesCursor(page[0]!) : null };
  }

  #files(): CachedFile[] {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((n) => n.endsWith('.jsonl'));
    } catch {
      return [];
    }
    const seen = new Set<string>();
    const out: CachedFile[] = [];
    for (const name of names) {
      const id = name.slice(0, -'.jsonl'.length);
      seen.add(id);
      const entry = this.#entry(id);
      if (entry) out.push(entry);
    }
    for (const id of this.#cache.keys()) if (!seen.has(id)) this.#cache.delete(id);
    return out;
  }

  #rows(callId: string): Row[] | null {
    if (!CALL_ID_PATTERN.test(callId)) return null;
    try {
      return parseNoteRows(readFileSync(path.join(this.dir, `${callId}.jsonl`), 'utf8'), callId);
    } catch {
      return null;
    }
  }

  #entry(id: string): CachedFile | null {
    const file = path.join(this.dir, `${id}.jsonl`);
    let stat;
    try {
      stat = statSync(file);
    } catch {
      return null;
    }
    const cached = this.#cache.get(id);
    if (cached && cached.size === stat.size && cached.mtimeMs === stat.mtimeMs) return cached;
    const times = (this.#rows(id) ?? []).map((r) => r.ts);
    const fallback = stat.mtimeMs / 1000;
    const summary: CallSummary = {
      id,
      started_at: times[0] ?? fallback,
      ended_at: times.at(-1) ?? fallback,
      events: times.length,
      bytes: stat.size,
      outside_call: id.startsWith('outside-'),
    };
    const entry: CachedFile = { size: stat.size, mtimeMs: stat.mtimeMs, summary, minTs: fallback, maxTs: fallback };
    if (times.length) {
      // A loop, not Math.min(...times): a long call's file would overflow the argument stack.
      entry.minTs = entry.maxTs = times[0]!;
      for (const t of times) {
        if (t < entry.minTs) entry.minTs = t;
        if (t > entry.maxTs) entry.maxTs = t;
      }
    }
    this.#cache.set(id, entry);
    return entry;
  }
}
