// The schedule's rows as a test sees them on disk: read (and, to stage a crash's leftovers, written)
// straight in the database beside `scheduleFile` (`<home>/voice-users/live-voice-bridge.sqlite`),
// through a connection of its own, as another process would. Each call opens and closes it.
import { existsSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { storedNotificationSchema, type StoredNotification } from '../../main/core/notify/schedule-record.ts';
import { DATABASE_FILE } from '../../main/core/store/database.ts';

export function scheduleDatabaseFile(scheduleFile: string): string {
  return path.join(path.dirname(scheduleFile), DATABASE_FILE);
}

/** Every row, validated, in list order (fire time, then id); [] when there is no database yet. */
export function readScheduleRows(scheduleFile: string): StoredNotification[] {
  const file = scheduleDatabaseFile(scheduleFile);
  if (!existsSync(file)) return [];
  const db = new Database(file, { readonly: true, timeout: 5000 });
  try {
    const rows = db.prepare('SELECT record FROM schedule ORDER BY fire_at, id').all() as Array<{ record: string }>;
    return rows.map((r) => storedNotificationSchema.parse(JSON.parse(r.record)));
  } finally {
    db.close();
  }
}

/** Replace the given rows (whole records), as another process committing them would. */
export function writeScheduleRows(scheduleFile: string, records: readonly object[]): void {
  const db = new Database(scheduleDatabaseFile(scheduleFile), { timeout: 5000 });
  try {
    db.transaction(() => {
      const { rev } = db.prepare('UPDATE schedule_meta SET rev = rev + 1 RETURNING rev').get() as { rev: number };
      const upsert = db.prepare(
        'INSERT INTO schedule (id, rev, record) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET rev = excluded.rev, record = excluded.record',
      );
      for (const r of records) upsert.run((r as { id: string }).id, rev, JSON.stringify(r));
    }).immediate();
  } finally {
    db.close();
  }
}
