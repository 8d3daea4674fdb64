// The core's one embedded database (docs/storage.md): `<agent home>/voice-users/live-voice-bridge.sqlite`,
// SQLite through better-sqlite3, in WAL mode, readable only by the user (0600 in the private folder).
// At open: the numbered migrations run (migrations/index.ts, `PRAGMA user_version`), after an
// `integrity_check`. A damaged file is never written to: it is set aside as `….damaged-<time>` and
// the core starts from the last good backup (`….bak`, written daily by `backup()`), or fresh when
// there is none, and says so (the log at error level and `recovery`). Two processes on one home are
// serialised by SQLite's own locks: a write waits up to `busyTimeoutMs` for the other's transaction.
import { chmodSync, copyFileSync, existsSync, openSync, closeSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ensurePrivateDir } from '../private-dir.ts';
import { MIGRATIONS, type Migration } from './migrations/index.ts';

export type SqliteDatabase = Database.Database;
export type SqliteStatement = Database.Statement<unknown[]>;

export const DATABASE_FILE = 'live-voice-bridge.sqlite';
/** How long a write waits for another process's transaction (the schedule lock waits as long). */
export const DEFAULT_BUSY_TIMEOUT_MS = 2000;

export interface DatabaseRecovery {
  /** What was wrong with the file. */
  problem: string;
  /** Where the damaged file now is (kept for the user). */
  damagedFile: string;
  /** The backup the database was restored from, or null when it started empty. */
  restoredFrom: string | null;
}

/** What the store logs through (a pino logger fits). */
export interface StoreLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface OpenDatabaseOptions {
  /** The private folder: `<agent home>/voice-users`. */
  dir: string;
  logger: StoreLog;
  file?: string;
  migrations?: readonly Migration[];
  busyTimeoutMs?: number;
}

export interface OpenedDatabase {
  db: SqliteDatabase;
  file: string;
  /** Set when the file was damaged at start and set aside. */
  recovery: DatabaseRecovery | null;
  /** Copy the database to `<file>.bak` (online, in steps), replacing the previous backup once complete. */
  backup(): Promise<void>;
  close(): void;
}

/** The file is not a database SQLite can trust. */
export class DatabaseDamagedError extends Error {
  readonly code = 'database_damaged';
}

function isDamage(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^SQLITE_(CORRUPT|NOTADB)/.test(code);
}

function makePrivate(file: string): void {
  if (process.platform === 'win32') return;
  for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
}

/** Open, check and configure one connection; throws DatabaseDamagedError when the file is damaged. */
function connect(file: string, busyTimeoutMs: number): SqliteDatabase {
  // Created 0600 before SQLite opens it (SQLite would create it with the umask's mode).
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  let db: SqliteDatabase | undefined;
  try {
    db = new Database(file, { timeout: busyTimeoutMs });
    const check = db.pragma('integrity_check', { simple: false }) as Array<{ integrity_check: string }>;
    const verdict = check.map((r) => r.integrity_check);
    if (verdict.length !== 1 || verdict[0] !== 'ok') throw new DatabaseDamagedError(`integrity_check: ${verdict.slice(0, 3).join('; ')}`);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    makePrivate(file);
    return db;
  } catch (err) {
    db?.close();
    if (err instanceof DatabaseDamagedError) throw err;
    if (isDamage(err)) throw new DatabaseDamagedError((err as Error).message);
    throw err;
  }
}

/** Run the migrations not yet applied, each in its own transaction. */
export function migrate(db: SqliteDatabase, migrations: readonly Migration[] = MIGRATIONS): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  const newest = migrations.at(-1)?.version ?? 0;
  if (current > newest) throw new Error(`the database was written by a newer version (schema ${current}; this one knows up to ${newest}): update the app`);
  let applied = 0;
  for (const m of migrations) {
    if (m.version <= current) continue;
    // Checked again under the write lock: another process (the CLI, the scheduler's own connection)
    // may have applied it since.
    const ran = db.transaction(() => {
      if ((db.pragma('user_version', { simple: true }) as number) >= m.version) return false;
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
      return true;
    }).immediate();
    if (ran) applied += 1;
  }
  return applied;
}

function setAside(file: string): string {
  const damaged = `${file}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  renameSync(file, damaged);
  for (const suffix of ['-wal', '-shm']) if (existsSync(file + suffix)) renameSync(file + suffix, damaged + suffix);
  return damaged;
}

/** Set a damaged file aside, then open the last good backup, or a new empty file. */
function recover(file: string, problem: string, busyTimeoutMs: number, logger: OpenDatabaseOptions['logger']): { db: SqliteDatabase; recovery: DatabaseRecovery } {
  const damagedFile = setAside(file);
  const backup = `${file}.bak`;
  if (existsSync(backup)) {
    copyFileSync(backup, file);
    try {
      const db = connect(file, busyTimeoutMs);
      const at = statSync(backup).mtime.toISOString();
      logger.error({ damagedFile, backup, backupTime: at, problem }, `the database ${file} was damaged (${problem}); it was set aside as ${damagedFile} and the last backup (${at}) restored: notes since then are only in the damaged file`);
      return { db, recovery: { problem, damagedFile, restoredFrom: backup } };
    } catch (err) {
      if (!(err instanceof DatabaseDamagedError)) throw err;
      rmSync(file, { force: true });
    }
  }
  const db = connect(file, busyTimeoutMs);
  logger.error({ damagedFile, problem }, `the database ${file} was damaged (${problem}) and there is no good backup; it was set aside as ${damagedFile} and the core starts with an empty database`);
  return { db, recovery: { problem, damagedFile, restoredFrom: null } };
}

export function openDatabase(options: OpenDatabaseOptions): OpenedDatabase {
  ensurePrivateDir(options.dir);
  const file = path.join(options.dir, options.file ?? DATABASE_FILE);
  const busy = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  let db: SqliteDatabase;
  let recovery: DatabaseRecovery | null = null;
  try {
    db = connect(file, busy);
  } catch (err) {
    if (!(err instanceof DatabaseDamagedError)) throw err;
    ({ db, recovery } = recover(file, err.message, busy, options.logger));
  }
  const applied = migrate(db, options.migrations);
  if (applied) options.logger.info({ file, applied, version: db.pragma('user_version', { simple: true }) }, 'database schema migrated');
  return {
    db,
    file,
    recovery,
    async backup() {
      const tmp = `${file}.bak.tmp`;
      await db.backup(tmp);
      makePrivate(tmp);
      renameSync(tmp, `${file}.bak`);
    },
    close: () => db.close(),
  };
}
