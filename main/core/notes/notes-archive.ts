// The read side of the notes: every call's JSONL file under `<agent home>/voice-users/notes/` (and
// the daily `outside-YYYY-MM-DD.jsonl` for events outside a call), read back from disk so /notes,
// /calls and the dashboard survive restarts. A per-file summary (events, first/last time) is cached
// by size+mtime, so listing calls re-reads only files that changed. Lines are validated (zod); a
// damaged line is skipped, never fatal.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { NOTE_KINDS, type NoteEvent } from '../api-types.ts';

export const NOTES_MAX_LIMIT = 500;

const noteEventSchema = z.object({
  id: z.string(),
  ts: z.number(),
  kind: z.enum(NOTE_KINDS),
  speaker: z.string().optional(),
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
  /** Only events strictly older than this (epoch seconds): page backwards with `next_before`. */
  before?: number;
  limit: number;
  /** Case-insensitive text search in text and speaker. */
  q?: string;
}

export interface NotesPage {
  /** Oldest first (newest last), like a transcript. */
  notes: NoteEvent[];
  /** Give back as `before` for the previous (older) page; null when there is none. */
  next_before: number | null;
}

interface CachedFile {
  size: number;
  mtimeMs: number;
  summary: CallSummary;
}

/** A call id safe to use as a file name: no separators, no dots at the start. */
export const CALL_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function parseNoteLines(text: string): NoteEvent[] {
  const events: NoteEvent[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      continue; // a torn or damaged line
    }
    const parsed = noteEventSchema.safeParse(json);
    if (parsed.success) events.push(parsed.data);
  }
  return events;
}

export class NotesArchive {
  readonly dir: string;
  readonly #cache = new Map<string, CachedFile>();

  constructor(dir: string) {
    this.dir = dir;
  }

  /** Every file's summary, newest call first. */
  calls(): CallSummary[] {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((n) => n.endsWith('.jsonl'));
    } catch {
      return [];
    }
    const seen = new Set<string>();
    const out: CallSummary[] = [];
    for (const name of names) {
      const id = name.slice(0, -'.jsonl'.length);
      seen.add(id);
      const summary = this.#summary(id);
      if (summary) out.push(summary);
    }
    for (const id of this.#cache.keys()) if (!seen.has(id)) this.#cache.delete(id);
    return out.sort((a, b) => b.ended_at - a.ended_at || (a.id < b.id ? 1 : -1));
  }

  /** One call's events (all of them), oldest first; null when there is no such call. */
  read(callId: string): NoteEvent[] | null {
    if (!CALL_ID_PATTERN.test(callId)) return null;
    try {
      return parseNoteLines(readFileSync(path.join(this.dir, `${callId}.jsonl`), 'utf8'));
    } catch {
      return null;
    }
  }

  /** The newest `limit` matching events older than `before`, across calls or in one. */
  query(query: NotesQuery): NotesPage | null {
    const needle = query.q?.toLowerCase();
    const matches = (e: NoteEvent): boolean =>
      (query.before === undefined || e.ts < query.before) && (!needle || e.text.toLowerCase().includes(needle) || (e.speaker?.toLowerCase().includes(needle) ?? false));
    const picked: NoteEvent[] = [];
    const files = query.call !== undefined ? [query.call] : this.calls().filter((c) => query.before === undefined || c.started_at < query.before).map((c) => c.id);
    let more = false;
    for (const id of files) {
      const events = this.read(id);
      if (!events) {
        if (query.call !== undefined) return null;
        continue;
      }
      // Newest first within the file; files come newest first.
      for (let i = events.length - 1; i >= 0; i--) {
        const e = events[i]!;
        if (!matches(e)) continue;
        if (picked.length === query.limit) {
          more = true;
          break;
        }
        picked.push(e);
      }
      if (more) break;
    }
    picked.reverse(); // collected newest first
    return { notes: picked, next_before: more && picked.length ? picked[0]!.ts : null };
  }

  #summary(id: string): CallSummary | null {
    const file = path.join(this.dir, `${id}.jsonl`);
    let stat;
    try {
      stat = statSync(file);
    } catch {
      return null;
    }
    const cached = this.#cache.get(id);
    if (cached && cached.size === stat.size && cached.mtimeMs === stat.mtimeMs) return cached.summary;
    const events = this.read(id) ?? [];
    const summary: CallSummary = {
      id,
      started_at: events[0]?.ts ?? stat.mtimeMs / 1000,
      ended_at: events.at(-1)?.ts ?? stat.mtimeMs / 1000,
      events: events.length,
      bytes: stat.size,
      outside_call: id.startsWith('outside-'),
    };
    this.#cache.set(id, { size: stat.size, mtimeMs: stat.mtimeMs, summary });
    return summary;
  }
}
