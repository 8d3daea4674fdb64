// The schedule the store benches start from: `entries` pending reminders, due 1-30 days from now,
// written in one transaction into the home's database (the rows as the store writes them:
// main/core/notify/schedule-store.ts, migration 002).
import path from 'node:path';
import pino from 'pino';
import { scheduleFilePath, type StoredNotification } from '../../main/core/notify/schedule-store.ts';
import { openDatabase } from '../../main/core/store/database.ts';

export function fillSchedule(home: string, entries: number): void {
  const database = openDatabase({ dir: path.dirname(scheduleFilePath(home)), logger: pino({ level: 'silent' }) });
  const { db } = database;
  const now = Date.now() / 1000;
  const upsert = db.prepare(
    'INSERT INTO schedule (id, rev, record) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET rev = excluded.rev, record = excluded.record',
  );
  db.transaction(() => {
    const { rev } = db.prepare('UPDATE schedule_meta SET rev = rev + 1 RETURNING rev').get() as { rev: number };
    for (let i = 0; i < entries; i++) {
      const delay = 86_400 + (i % 30) * 86_400 + i;
      const record: StoredNotification = {
        id: `n-${i.toString(16).padStart(12, '0')}`,
        text: `Reminder number ${i}: stretch, drink water, check the oven`,
        mode: 'dm',
        delay_seconds: delay,
        fire_at_epoch: now + delay,
        created_at: now,
        state: 'scheduled',
        attempts: 0,
        updated_at: now,
      };
      upsert.run(record.id, rev, JSON.stringify(record));
    }
  })();
  database.close();
}
