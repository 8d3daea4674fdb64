// A home written by release 0.3.5 (test/fixtures/homes/release-0.3.5: its schedule file written by
// that release's own ScheduleStore) starts on the database: every entry is imported once, in one
// transaction, with the counts logged; the old file stays byte for byte as a backup; a second start
// imports nothing (changes made since stand); the torn last line is skipped and counted; the entries
// go on as before (an idempotency key still answers, a dead claim is failed, never re-sent).
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { NotifyRequest, NotifyResult } from '../../../main/core/api-types.ts';
import { ManualClock } from '../../../main/core/contracts/clock.ts';
import { IdempotentReplay, scheduleFilePath } from '../../../main/core/notify/schedule-store.ts';
import { createScheduler, type Scheduler } from '../../../main/core/notify/scheduler.ts';
import { captureLogger } from '../../integration/gemini/helpers.ts';
import { readScheduleRows, scheduleDatabaseFile } from '../../helpers/schedule-db.ts';

const FIXTURE = path.resolve(import.meta.dirname, '../../fixtures/homes/release-0.3.5');
const T0 = Date.UTC(2026, 10, 20, 9, 0, 0);
let home: string;
let file: string;
const running: Scheduler[] = [];
const sent: string[] = [];
const notifier = {
  async deliver(req: NotifyRequest): Promise<NotifyResult> {
    sent.push(req.text);
    return { id: 'x', status: 'ok', channel: 'dm', results: { dm: { status: 'ok' } }, notified_at: T0 / 1000 };
  },
};

beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), 'lvb-schedule-import-'));
  cpSync(FIXTURE, home, { recursive: true });
  file = scheduleFilePath(home);
  sent.length = 0;
});
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
  rmSync(home, { recursive: true, force: true });
});

function start(): { scheduler: Scheduler; lines: string[] } {
  const { logger, lines } = captureLogger();
  const scheduler = createScheduler({ file, notifier, logger, clock: new ManualClock(T0) });
  running.push(scheduler);
  return { scheduler, lines };
}

it('imports every entry of the old file once, logs the counts and keeps the file as it was', async () => {
  const before = readFileSync(file);
  const { scheduler, lines } = start();
  const page = await scheduler.list({ limit: 1000 });
  const states = Object.fromEntries(page.entries.map((e) => [e.id, e.state]));
  expect(states).toEqual({
    'n-0000000000a1': 'delivered',
    'n-0000000000b2': 'scheduled',
    'n-0000000000c3': 'cancelled',
    'n-0000000000d4': 'expired',
    'n-0000000000e5': 'failed',
    'n-0000000000f6': 'delivered',
    'n-0000000000f7': 'scheduled',
    'n-0000000000a8': 'scheduled',
    'n-0000000000b9': 'failed', // its process was killed mid-delivery: "may have been delivered", never re-sent
  });
  expect(page.total).toBe(9);
  const b2 = page.entries.find((e) => e.id === 'n-0000000000b2')!;
  expect(b2).toMatchObject({
    attempts: 1,
    next_attempt_at: T0 / 1000 + 660,
    last_error: 'not accepted (webhook: HTTP 429); retry in 60 s',
  });
  expect(page.entries.find((e) => e.id === 'n-0000000000f7')!.repeat).toMatchObject({
    series: 'n-0000000000f6',
    cron: '30 9 * * *',
  });
  const log = lines.map(
    (l) => JSON.parse(l) as { msg: string; entries?: number; lines?: number; skippedLines?: number; states?: object },
  );
  expect(log.find((l) => l.msg.startsWith('imported 9 scheduled notifications'))).toMatchObject({
    entries: 9,
    lines: 15,
    skippedLines: 1,
    states: { delivered: 2, scheduled: 3, cancelled: 1, expired: 1, failed: 1, delivering: 1 },
  });
  expect(readFileSync(file).equals(before)).toBe(true);
  expect(sent).toEqual([]);

  // The client's Idempotency-Key still answers with the entry it created.
  const replay = await scheduler
    .schedule(
      { text: 'pick up the parcel', delay_seconds: 60 },
      { key: 'client-key-1', request_hash: 'a'.repeat(64), now: T0 / 1000, ttlSeconds: 60 },
    )
    .catch((err: unknown) => err);
  expect(replay).toBeInstanceOf(IdempotentReplay);
  expect((replay as IdempotentReplay).entry.id).toBe('n-0000000000a8');
});

it('a second start imports nothing: what changed since stands', async () => {
  const first = start();
  await first.scheduler.cancel('n-0000000000a8');
  await first.scheduler.stop();
  running.length = 0;
  const second = start();
  expect((await second.scheduler.list({ limit: 1000 })).entries.find((e) => e.id === 'n-0000000000a8')!.state).toBe(
    'cancelled',
  );
  expect(second.lines.some((l) => l.includes('imported'))).toBe(false);
  const db = new Database(scheduleDatabaseFile(file), { readonly: true });
  expect(db.prepare("SELECT count(*) AS n FROM imports WHERE source = 'schedule-jsonl'").get()).toEqual({ n: 1 });
  db.close();
  expect(readScheduleRows(file)).toHaveLength(9);
});
