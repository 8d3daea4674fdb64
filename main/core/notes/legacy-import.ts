// A home written by release 0.3.5 and earlier keeps its notes as per-call JSONL files under
// `voice-users/notes/` (and `outside-YYYY-MM-DD.jsonl` for events outside calls). On the first start
// with the database they are imported once, all in one transaction (all or nothing), and the import
// is recorded in `imports` so it never runs twice; the files stay where they are, as a backup, until
// the user removes them. Lines are validated (zod) as the release read them: a torn or damaged line
// is skipped and counted.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { NOTE_KINDS, type NoteEvent } from '../api-types.ts';
import type { SqliteDatabase } from '../store/database.ts';
import { CALL_ID_PATTERN, type NotesStore } from './notes-store.ts';

export const NOTES_IMPORT_SOURCE = 'notes-jsonl';

const legacyNoteSchema = z.object({
  id: z.string(),
  ts: z.number(),
  kind: z.enum(NOTE_KINDS),
  speaker: z.string().optional(),
  speaker_name: z.string().optional(),
  text: z.string(),
  callId: z.string().optional(),
});

export interface ImportCounts {
  files: number;
  notes: number;
  skippedLines: number;
}

/** Whether `source` was imported already (and when). */
export function importedAt(db: SqliteDatabase, source: string): number | null {
  const row = db.prepare('SELECT imported_at FROM imports WHERE source = ?').get(source) as
    { imported_at: number } | undefined;
  return row?.imported_at ?? null;
}

export function recordImport(db: SqliteDatabase, source: string, counts: object, nowMs: number): void {
  db.prepare('INSERT INTO imports (source, imported_at, counts) VALUES (?, ?, ?)').run(
    source,
    nowMs / 1000,
    JSON.stringify(counts),
  );
}

function* legacyNotes(dir: string, names: string[], counts: ImportCounts): Generator<NoteEvent & { callId: string }> {
  for (const name of names) {
    const callId = name.slice(0, -'.jsonl'.length);
    for (const line of readFileSync(path.join(dir, name), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      let parsed;
      try {
        parsed = legacyNoteSchema.safeParse(JSON.parse(line));
      } catch {
        parsed = null;
      }
      if (!parsed?.success) {
        counts.skippedLines += 1;
        continue;
      }
      // The file names the call (an outside day's events carry no callId).
      yield { ...parsed.data, callId };
    }
  }
}

/**
 * Import `<notesDir>/*.jsonl` once; null when it ran before (or there is nothing to import). Throws
 * (and imports nothing) when a file cannot be read.
 */
export function importLegacyNotes(store: NotesStore, notesDir: string, nowMs = Date.now()): ImportCounts | null {
  const { db } = store;
  if (importedAt(db, NOTES_IMPORT_SOURCE) !== null) return null;
  const names = existsSync(notesDir)
    ? readdirSync(notesDir)
        .filter((n) => n.endsWith('.jsonl') && CALL_ID_PATTERN.test(n.slice(0, -6)))
        .sort()
    : [];
  const counts: ImportCounts = { files: names.length, notes: 0, skippedLines: 0 };
  db.transaction(() => {
    counts.notes = store.insertMany(legacyNotes(notesDir, names, counts));
    recordImport(db, NOTES_IMPORT_SOURCE, counts, nowMs);
  })();
  return names.length ? counts : null;
}
