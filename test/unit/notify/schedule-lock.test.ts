// Two processes on one schedule: SQLite's write lock serialises them. One that keeps a transaction
// open longer than a change may wait gets `schedule_locked` naming the database (not a hang, not a
// half-written change); once that process is killed its lock is gone and the next change goes through.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { expect, it } from 'vitest';
import { createNotifier } from '../../../main/core/notify/dispatcher.ts';
import { scheduleFilePath } from '../../../main/core/notify/schedule-store.ts';
import { createScheduler } from '../../../main/core/notify/scheduler.ts';
import { readScheduleRows, scheduleDatabaseFile } from '../../helpers/schedule-db.ts';

const HOLD = `
const Database = require('better-sqlite3');
const db = new Database(process.argv[1], { timeout: 5000 });
db.exec('BEGIN IMMEDIATE');
process.stdout.write('HELD\\n');
setInterval(() => {}, 1000);
`;

it('refuses with schedule_locked while another process holds the write lock, and goes on once it is killed', async () => {
  const home = mkdtempSync(path.join(tmpdir(), 'lvb-schedule-lock-'));
  const logger = pino({ level: 'silent' });
  const notifier = createNotifier({ voice: () => null, discordText: null, sfxEnabled: false, logger });
  const file = scheduleFilePath(home);
  const scheduler = createScheduler({ file, notifier, logger, lockStaleMs: 300 });
  await scheduler.list(); // creates the database
  const holder = spawn(process.execPath, ['-e', HOLD, scheduleDatabaseFile(file)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    cwd: process.cwd(),
  });
  try {
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    const error = await scheduler.schedule({ text: 'Tea is ready', delay_seconds: 60 }).then(
      () => null,
      (err: unknown) => err as Error & { code?: string },
    );
    expect(error?.code).toBe('schedule_locked');
    expect(error?.message).toContain(scheduleDatabaseFile(file));
    expect(readScheduleRows(file)).toEqual([]);
    holder.kill('SIGKILL');
    await new Promise((r) => holder.once('exit', r));
    const entry = await scheduler.schedule({ text: 'Tea is ready', delay_seconds: 60 });
    expect(readScheduleRows(file).map((e) => e.id)).toEqual([entry.id]);
  } finally {
    holder.kill('SIGKILL');
    await scheduler.stop();
    notifier.webhook.close();
    rmSync(home, { recursive: true, force: true });
  }
}, 20_000);
