// The embedded database at start: created 0600 in the private folder, WAL, migrations once; a damaged
// file set aside (kept) and the last backup restored, or a fresh start; two connections on one home
// take turns (a write waits for the other's transaction); the full check runs once per process start,
// not again for the scheduler's own connection.
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ScheduleStore } from '../../../main/core/notify/schedule-store.ts';
import { DATABASE_FILE, openDatabase, type OpenedDatabase } from '../../../main/core/store/database.ts';
import { MIGRATIONS } from '../../../main/core/store/migrations/index.ts';

let dir: string;
let errors: string[];
const opened: OpenedDatabase[] = [];
const logger = {
  info: () => undefined,
  warn: () => undefined,
  error: (_o: object, msg: string) => void errors.push(msg),
};

function open(over: Partial<Parameters<typeof openDatabase>[0]> = {}): OpenedDatabase {
  const db = openDatabase({ dir, logger, ...over });
  opened.push(db);
  return db;
}

beforeEach(() => {
  dir = path.join(mkdtempSync(path.join(tmpdir(), 'lvb-db-')), 'voice-users');
  errors = [];
});
afterEach(() => {
  for (const db of opened.splice(0)) if (db.db.open) db.close();
  rmSync(path.dirname(dir), { recursive: true, force: true });
});

function addCall(db: OpenedDatabase, id: string): void {
  db.db.prepare('INSERT INTO calls (id, started_at, ended_at) VALUES (?, 1, 2)').run(id);
}

describe('openDatabase', () => {
  it('creates the file 0600 in a 0700 folder, in WAL mode, with the schema migrated once', () => {
    const db = open();
    expect(db.file).toBe(path.join(dir, DATABASE_FILE));
    if (process.platform !== 'win32') {
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(db.file).mode & 0o777).toBe(0o600);
    }
    expect(db.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.at(-1)!.version); // every migration ran
    addCall(db, 'c1');
    db.close();
    const again = open();
    expect(again.db.prepare('SELECT count(*) AS n FROM calls').get()).toEqual({ n: 1 });
    expect(again.recovery).toBeNull();
  });

  it('refuses a database written by a newer schema', () => {
    open().db.pragma('user_version = 99');
    opened[0]!.close();
    expect(() => open()).toThrow(/newer version \(schema 99/);
  });

  it('sets a file that is not a database aside and starts empty, saying so', () => {
    ensureDir();
    writeFileSync(
      path.join(dir, DATABASE_FILE),
      'this is not a database, it is a text file long enough to have a header'.repeat(20),
    );
    const db = open();
    expect(db.recovery?.restoredFrom).toBeNull();
    expect(db.recovery?.damagedFile).toMatch(/\.damaged-/);
    expect(readdirSync(dir).filter((n) => n.includes('.damaged-'))).toHaveLength(1);
    expect(errors.join('\n')).toMatch(/was damaged .* set aside as .*starts with an empty database/);
    expect(db.db.prepare('SELECT count(*) AS n FROM calls').get()).toEqual({ n: 0 });
  });

  it('restores the last backup when a page is damaged, keeping the damaged file', async () => {
    const db = open();
    addCall(db, 'before-backup');
    await db.backup();
    const insert = db.db.prepare(
      "INSERT INTO notes (id, call_id, ts, kind, text) VALUES (?, 'before-backup', 1, 'note', ?)",
    );
    db.db.transaction(() => {
      for (let i = 0; i < 3000; i++) insert.run(`n${i}`, `a note long enough to fill pages ${i} `.repeat(4));
    })();
    db.db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    // Scribble over the middle of the file (b-tree pages), leaving the header intact.
    const fd = openSync(db.file, 'r+');
    writeSync(fd, Buffer.alloc(8192, 0x5a), 0, 8192, 4096 * 10);
    closeSync(fd);
    const back = open();
    expect(back.recovery?.restoredFrom).toBe(`${db.file}.bak`);
    expect(errors.join('\n')).toMatch(/last backup .* restored/);
    expect(back.db.prepare('SELECT id FROM calls').all()).toEqual([{ id: 'before-backup' }]);
    expect(back.db.prepare('SELECT count(*) AS n FROM notes').get()).toEqual({ n: 0 });
    expect(statSync(back.recovery!.damagedFile).size).toBeGreaterThan(8192 * 10);
  });

  it('checks a large file in the background before the backup: damaged, it is marked and the next start recovers', async () => {
    const db = open({ fullCheckMaxBytes: 0 });
    addCall(db, 'backed-up');
    await db.backup();
    const insert = db.db.prepare(
      "INSERT INTO notes (id, call_id, ts, kind, text) VALUES (?, 'backed-up', 1, 'note', ?)",
    );
    db.db.transaction(() => {
      for (let i = 0; i < 3000; i++) insert.run(`n${i}`, `a note long enough to fill pages ${i} `.repeat(4));
    })();
    db.db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const fd = openSync(db.file, 'r+');
    writeSync(fd, Buffer.alloc(8192, 0x5a), 0, 8192, 4096 * 10);
    closeSync(fd);
    // The header and schema are sound: a large file opens at once, its full check comes later.
    const running = open({ fullCheckMaxBytes: 0 });
    expect(running.recovery).toBeNull();
    const backupBefore = statSync(`${db.file}.bak`).mtimeMs;
    await running.backup();
    expect(errors.join('\n')).toMatch(/is damaged .*the backup was not replaced\. Restart the app/);
    expect(statSync(`${db.file}.bak`).mtimeMs).toBe(backupBefore);
    running.close();
    const next = open({ fullCheckMaxBytes: 0 });
    expect(next.recovery).toMatchObject({
      restoredFrom: `${db.file}.bak`,
      problem: expect.stringMatching(/background check found it damaged/),
    });
    expect(next.db.prepare('SELECT id FROM calls').all()).toEqual([{ id: 'backed-up' }]);
  });

  it('serialises two connections on one home: a write waits for the other transaction, then lands', () => {
    const a = open({ busyTimeoutMs: 100 });
    const b = open({ busyTimeoutMs: 100 });
    const hold = a.db.transaction(() => {
      addCall(a, 'from-a');
      expect(() => addCall(b, 'from-b')).toThrow(/database is locked/);
    });
    hold.immediate();
    addCall(b, 'from-b');
    expect(a.db.prepare('SELECT id FROM calls ORDER BY id').all()).toEqual([{ id: 'from-a' }, { id: 'from-b' }]);
  });
});

describe('the integrity check at start', () => {
  it('runs once while a checked connection is open; a file opened afresh or replaced is checked again', () => {
    const a = open();
    expect(a.check).toBe('integrity');
    const b = open();
    expect(b.check).toBe('checked-by-open-connection');
    a.close();
    const c = open(); // b still holds the check
    expect(c.check).toBe('checked-by-open-connection');
    b.close();
    c.close();
    expect(open().check).toBe('integrity');
  });

  it('a large file gets its header and schema read at every open (its full check is the daily one)', () => {
    open().close(); // a file with its schema (an empty new file is checked in full: 0 bytes)
    expect(open({ fullCheckMaxBytes: 0 }).check).toBe('schema');
    expect(open({ fullCheckMaxBytes: 0 }).check).toBe('schema');
  });

  it('a file set aside and restored from the backup is checked in full', async () => {
    const first = open();
    await first.backup();
    first.close();
    writeFileSync(path.join(dir, DATABASE_FILE + '.needs-recovery'), 'page 12: damaged\n');
    const restored = open();
    expect(restored.recovery?.restoredFrom).toBe(path.join(dir, `${DATABASE_FILE}.bak`));
    expect(restored.check).toBe('integrity');
  });

  it("the core at start: the store opens and checks the file, the scheduler's own connection does not check it again", async () => {
    const pragma = vi.spyOn(Database.prototype, 'pragma');
    try {
      const store = open();
      const schedule = new ScheduleStore({
        file: path.join(dir, 'notifications-schedule.jsonl'),
        logger: pino({ level: 'silent' }),
      });
      await schedule.load();
      expect(schedule.size).toBe(0);
      const checks = pragma.mock.calls.filter(([source]) => String(source).startsWith('integrity_check'));
      expect(checks).toHaveLength(1);
      await schedule.close();
      store.close();
    } finally {
      pragma.mockRestore();
    }
  });
});

function ensureDir(): void {
  open().close();
  rmSync(path.join(dir, DATABASE_FILE));
  for (const s of ['-wal', '-shm']) rmSync(path.join(dir, DATABASE_FILE + s), { force: true });
}
