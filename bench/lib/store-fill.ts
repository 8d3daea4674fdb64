// The schedule file the store benches start from: `entries` pending reminders, written directly in
// the documented format (one JSON record per line), due 1-30 days from now.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { scheduleFilePath, serializeSchedule, type StoredNotification } from '../../main/core/notify/schedule-store.ts';

export function fillSchedule(home: string, entries: number): void {
  const file = scheduleFilePath(home);
  mkdirSync(path.dirname(file), { recursive: true });
  const now = Date.now() / 1000;
  const records: StoredNotification[] = [];
  for (let i = 0; i < entries; i++) {
    const delay = 86_400 + (i % 30) * 86_400 + i;
    records.push({ id: `n-${i.toString(16).padStart(12, '0')}`, text: `Reminder number ${i}: stretch, drink water, check the oven`, mode: 'dm', delay_seconds: delay, fire_at_epoch: now + delay, created_at: now, state: 'scheduled', attempts: 0, updated_at: now });
  }
  writeFileSync(file, serializeSchedule(records), { mode: 0o600 });
}
