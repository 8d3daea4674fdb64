// A home written by release 0.3.5 keeps its schedule in `voice-users/notifications-schedule.jsonl`:
// one JSON record per line, the last line for an id winning (each change appended the entry's whole
// new record). On the first start with the database it is imported once, in one transaction (all or
// nothing) together with its row in `imports`, so it never runs twice; the file stays where it is, as
// a backup, until the user removes it. Lines are validated as that release read them: a torn last
// line (a crash mid-append) or a damaged line is skipped and counted.
import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { SqliteDatabase } from '../store/database.ts';
import { storedNotificationSchema, type StoredNotification } from './schedule-record.ts';

export const SCHEDULE_IMPORT_SOURCE = 'schedule-jsonl';

export interface ScheduleImportCounts {
  /** Entries imported (one per id: its last line). */
  entries: number;
  /** Valid lines read (superseded versions included). */
  lines: number;
  /** Lines that were not valid JSON or not a valid record (a torn tail included). */
  skippedLines: number;
  /** Imported entries by state. */
  states: Record<string, number>;
}

function parseLine(line: string): StoredNotification | null {
  try {
    const parsed = storedNotificationSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The file's entries, last line per id, read in 1 MiB chunks (no whole-file string). Null when there is no file. */
export function readLegacySchedule(
  file: string,
): { entries: Map<string, StoredNotification>; lines: number; skippedLines: number } | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const entries = new Map<string, StoredNotification>();
  let lines = 0;
  let skippedLines = 0;
  const handle = (line: string): void => {
    if (line.trim() === '') return;
    const record = parseLine(line);
    if (!record) skippedLines++;
    else {
      lines++;
      entries.set(record.id, record);
    }
  };
  try {
    const decoder = new StringDecoder('utf8');
    const buffer = Buffer.allocUnsafe(1 << 20);
    let carry = '';
    for (let position = 0; ;) {
      const n = readSync(fd, buffer, 0, buffer.length, position);
      if (n === 0) break;
      position += n;
      const chunk = carry + decoder.write(buffer.subarray(0, n));
      let start = 0;
      for (let nl = chunk.indexOf('\n'); nl >= 0; nl = chunk.indexOf('\n', start)) {
        handle(chunk.slice(start, nl));
        start = nl + 1;
      }
      carry = chunk.slice(start);
    }
    carry += decoder.end();
    if (carry.trim() !== '') skippedLines++; // a torn tail: an unfinished write, nothing to keep
  } finally {
    closeSync(fd);
  }
  return { entries, lines, skippedLines };
}

/**
 * Import `file` once into the `schedule` table through `insert` (the store's writer, inside this
 * transaction); null when it was imported before or there is no file. Throws (importing nothing)
 * when the file cannot be read.
 */
export function importLegacySchedule(
  db: SqliteDatabase,
  file: string,
  insert: (records: StoredNotification[]) => void,
  nowMs = Date.now(),
): ScheduleImportCounts | null {
  const done = db.prepare('SELECT 1 FROM imports WHERE source = ?');
  if (done.get(SCHEDULE_IMPORT_SOURCE)) return null;
  const read = readLegacySchedule(file);
  if (!read) return null;
  const records = [...read.entries.values()];
  const states: Record<string, number> = {};
  for (const r of records) states[r.state] = (states[r.state] ?? 0) + 1;
  const counts: ScheduleImportCounts = {
    entries: records.length,
    lines: read.lines,
    skippedLines: read.skippedLines,
    states,
  };
  // Checked again under the write lock: two processes starting at once import it once.
  return db
    .transaction(() => {
      if (done.get(SCHEDULE_IMPORT_SOURCE)) return null;
      insert(records);
      db.prepare('INSERT INTO imports (source, imported_at, counts) VALUES (?, ?, ?)').run(
        SCHEDULE_IMPORT_SOURCE,
        nowMs / 1000,
        JSON.stringify(counts),
      );
      return counts;
    })
    .immediate();
}
