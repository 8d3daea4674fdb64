// The core's one embedded database (docs/storage.md): `<agent home>/voice-users/live-voice-bridge.sqlite`,
// SQLite through better-sqlite3, in WAL mode, readable only by the user (0600 in the private folder).
// At open: the numbered migrations run (migrations/index.ts, `PRAGMA user_version`), after an
// `integrity_check` (a file over FULL_CHECK_MAX_BYTES gets a header and schema check at open, to
// keep start-up under a second with a year of calls, and its full check daily in a worker thread,
// integrity-worker.ts, before the backup; a failed one marks the file so the next start recovers),
// once per process start (a second connection opened while a checked one is open reuses its
// verdict: the scheduler's own). A damaged file is never written to: it is set aside as `….damaged-<time>` and
// the core starts from the last good backup (`….bak`, written daily by `backup()`), or fresh when
// there is none, and says so (the log at error level and `recovery`). Two processes on one home are
// serialised by SQLite's own locks: a write waits up to `busyTimeoutMs` for the other's transaction.
import {
  chmodSync,
  copyFileSync,
  existsSync,
  openSync,
  closeSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { CodedError } from '../contracts/coded-error.ts';
import { ensurePrivateDir } from '../private-dir.ts';
import { checkInWorker } from './integrity-worker.ts';
import { MIGRATIONS, type Migration } from './migrations/index.ts';

export type SqliteDatabase = Database.Database;
export type SqliteStatement = Database.Statement<unknown[]>;

export const DATABASE_FILE = 'live-voice-bridge.sqlite';
/** How long a write waits for another process's transaction (the schedule lock waits as long). */
export const DEFAULT_BUSY_TIMEOUT_MS = 2000;
/** Up to this size the full `integrity_check` runs at open (about 0.1 s per 6 MB on the bench machine). */
export const FULL_CHECK_MAX_BYTES = 64 * 1024 * 1024;
/** Written beside the database when the background check found it damaged: the next start recovers. */
export const NEEDS_RECOVERY_SUFFIX = '.needs-recovery';

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
  /** Files up to this size get the full check at open (default FULL_CHECK_MAX_BYTES). */
  fullCheckMaxBytes?: number;
}

/** How the file was checked at open: in full, header and schema only (a large file), or not again. */
export type OpenCheck = 'integrity' | 'schema' | 'checked-by-open-connection';

export interface OpenedDatabase {
  db: SqliteDatabase;
  file: string;
  /** How this open checked the file (`checked-by-open-connection`: another connection of this process checked it). */
  check: OpenCheck;
  /** Set when the file was damaged at start and set aside. */
  recovery: DatabaseRecovery | null;
  /**
   * Check the whole file in a worker thread (the event loop keeps running), then copy it to
   * `<file>.bak` (online, in steps), replacing the previous backup once complete. A damaged file is
   * never backed up: it is marked, and the next start recovers (set aside, last backup restored).
   */
  backup(options?: { skipIfNewerThanMs?: number }): Promise<void>;
  close(): void;
}

/** The file is not a database SQLite can trust. */
export class DatabaseDamagedError extends CodedError<'database_damaged'> {
  constructor(message: string) {
    super('database_damaged', message);
  }
}

function isDamage(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^SQLITE_(CORRUPT|NOTADB)/.test(code);
}

function makePrivate(file: string): void {
  if (process.platform === 'win32') return;
  for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
}

/**
 * Files (by device and inode) this process holds a connection to whose open checked them in full,
 * and how many such connections are open. The core opens the file twice at start (the store, then
 * the scheduler's own connection): the second open finds it checked moments ago by a connection
 * still open and does not read the whole file again. A file replaced since (set aside, a backup
 * restored: another inode), or opened again after every connection closed, is checked again.
 */
const checkedOpen = new Map<string, number>();
const fileKey = (file: string): string => {
  const st = statSync(file);
  return `${st.dev}:${st.ino}`;
};

/** Count one more open connection on `file`'s check; the function that gives it back (once). */
function holdChecked(file: string): () => void {
  const key = fileKey(file);
  checkedOpen.set(key, (checkedOpen.get(key) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (checkedOpen.get(key) ?? 1) - 1;
    if (left > 0) checkedOpen.set(key, left);
    else checkedOpen.delete(key);
  };
}

/** Open, check and configure one connection; throws DatabaseDamagedError when the file is damaged. */
function connect(
  file: string,
  busyTimeoutMs: number,
  fullCheckMaxBytes = FULL_CHECK_MAX_BYTES,
): { db: SqliteDatabase; check: OpenCheck } {
  // Created 0600 before SQLite opens it (SQLite would create it with the umask's mode).
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  let db: SqliteDatabase | undefined;
  let check: OpenCheck = 'schema';
  try {
    const marked = readMarker(file);
    if (marked) throw new DatabaseDamagedError(marked);
    db = new Database(file, { timeout: busyTimeoutMs });
    if (checkedOpen.has(fileKey(file))) {
      check = 'checked-by-open-connection';
    } else if (statSync(file).size <= fullCheckMaxBytes) {
      check = 'integrity';
      const verdict = (db.pragma('integrity_check', { simple: false }) as Array<{ integrity_check: string }>).map(
        (r) => r.integrity_check,
      );
      if (verdict.length !== 1 || verdict[0] !== 'ok')
        throw new DatabaseDamagedError(`integrity_check: ${verdict.slice(0, 3).join('; ')}`);
    } else {
      // Reads the header and the schema pages: a file that is not a database, or a damaged schema, fails here.
      db.prepare('SELECT count(*) FROM sqlite_schema').get();
    }
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    makePrivate(file);
    return { db, check };
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
  if (current > newest)
    throw new Error(
      `the database was written by a newer version (schema ${current}; this one knows up to ${newest}): update the app`,
    );
  let applied = 0;
  for (const m of migrations) {
    if (m.version <= current) continue;
    // Checked again under the write lock: another process (the CLI, the scheduler's own connection)
    // may have applied it since.
    const ran = db
      .transaction(() => {
        if ((db.pragma('user_version', { simple: true }) as number) >= m.version) return false;
        db.exec(m.sql);
        db.pragma(`user_version = ${m.version}`);
        return true;
      })
      .immediate();
    if (ran) applied += 1;
  }
  return applied;
}

function readMarker(file: string): string | null {
  try {
    return `the last background check found it damaged: ${readFileSync(file + NEEDS_RECOVERY_SUFFIX, 'utf8').trim()}`;
  } catch {
    return null;
  }
}

function setAside(file: string): string {
  const damaged = `${file}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  renameSync(file, damaged);
  rmSync(file + NEEDS_RECOVERY_SUFFIX, { force: true });
  for (const suffix of ['-wal', '-shm']) if (existsSync(file + suffix)) renameSync(file + suffix, damaged + suffix);
  return damaged;
}

/** Set a damaged file aside, then open the last good backup, or a new empty file. */
function recover(
  file: string,
  problem: string,
  busyTimeoutMs: number,
  logger: OpenDatabaseOptions['logger'],
): { db: SqliteDatabase; check: OpenCheck; recovery: DatabaseRecovery } {
  const damagedFile = setAside(file);
  const backup = `${file}.bak`;
  if (existsSync(backup)) {
    copyFileSync(backup, file);
    try {
      const opened = connect(file, busyTimeoutMs);
      const at = statSync(backup).mtime.toISOString();
      logger.error(
        { damagedFile, backup, backupTime: at, problem },
        `the database ${file} was damaged (${problem}); it was set aside as ${damagedFile} and the last backup (${at}) restored: notes since then are only in the damaged file`,
      );
      return { ...opened, recovery: { problem, damagedFile, restoredFrom: backup } };
    } catch (err) {
      if (!(err instanceof DatabaseDamagedError)) throw err;
      rmSync(file, { force: true });
    }
  }
  const opened = connect(file, busyTimeoutMs);
  logger.error(
    { damagedFile, problem },
    `the database ${file} was damaged (${problem}) and there is no good backup; it was set aside as ${damagedFile} and the core starts with an empty database`,
  );
  return { ...opened, recovery: { problem, damagedFile, restoredFrom: null } };
}

export function openDatabase(options: OpenDatabaseOptions): OpenedDatabase {
  ensurePrivateDir(options.dir);
  const file = path.join(options.dir, options.file ?? DATABASE_FILE);
  const busy = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  let db: SqliteDatabase;
  let check: OpenCheck;
  let recovery: DatabaseRecovery | null = null;
  try {
    ({ db, check } = connect(file, busy, options.fullCheckMaxBytes));
  } catch (err) {
    if (!(err instanceof DatabaseDamagedError)) throw err;
    ({ db, check, recovery } = recover(file, err.message, busy, options.logger));
  }
  // Held only by a connection whose open checked the file (or found it checked): a large file's
  // header check never stands in for a full one.
  const release = check === 'schema' ? () => undefined : holdChecked(file);
  let applied: number;
  try {
    applied = migrate(db, options.migrations);
  } catch (err) {
    release();
    db.close();
    throw err;
  }
  if (applied)
    options.logger.info(
      { file, applied, version: db.pragma('user_version', { simple: true }) },
      'database schema migrated',
    );
  return {
    db,
    file,
    check,
    recovery,
    async backup(backupOptions = {}) {
      const age = existsSync(`${file}.bak`) ? Date.now() - statSync(`${file}.bak`).mtimeMs : Infinity;
      if (backupOptions.skipIfNewerThanMs !== undefined && age < backupOptions.skipIfNewerThanMs) return;
      const problem = await checkInWorker(file);
      if (problem) {
        writeFileSync(file + NEEDS_RECOVERY_SUFFIX, problem + '\n', { mode: 0o600 });
        options.logger.error(
          { file, problem },
          `the database ${file} is damaged (${problem}); the backup was not replaced. Restart the app: it sets the file aside and restores the last backup`,
        );
        return;
      }
      const tmp = `${file}.bak.tmp`;
      await db.backup(tmp);
      makePrivate(tmp);
      renameSync(tmp, `${file}.bak`);
    },
    close: () => {
      release();
      db.close();
    },
  };
}
