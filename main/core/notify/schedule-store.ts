// The schedule on the core's embedded database (store/database.ts; table `schedule`, migration 002):
// one row per entry holding its whole record, the columns the queries need generated from it. Rules:
//   1. every change is one SQLite transaction (BEGIN IMMEDIATE: one writer at a time across the app,
//      the headless runner and the CLI), committed with `synchronous = FULL` on this connection —
//      the WAL is fsync'd before the change is acknowledged, as the JSONL journal's fdatasync was. A
//      process killed mid-change leaves the change out entirely (SQLite rolls it back);
//   2. reads are queries, answered from indexes (list order, due queue, series, idempotency key) and
//      the trigger-kept `schedule_counts`; nothing of the schedule is held in memory but the ids this
//      process has taken off the due queue and not yet claimed or put back;
//   3. other processes' commits are noticed while idle by a folder watch (schedule-watch.ts) and read
//      in by change number (`schedule_meta.rev`, stamped on every row written), and before each
//      change inside its transaction;
//   4. a write that waits longer than `busyTimeoutMs` for another process's transaction is refused
//      with `schedule_locked`, naming the wait (a stuck writer, not a normal change, which takes ms).
// A release-0.3.5 home's `notifications-schedule.jsonl` is imported once at load (schedule-import.ts).
import path from 'node:path';
import type { Logger } from 'pino';
import type { ScheduleState } from '../api-types.ts';
import { CodedError } from '../contracts/coded-error.ts';
import {
  DATABASE_FILE,
  DEFAULT_BUSY_TIMEOUT_MS,
  openDatabase,
  type OpenedDatabase,
  type SqliteDatabase,
  type SqliteStatement,
} from '../store/database.ts';
import { decodeCursor, encodeCursor, type Page, type PageQuery } from './schedule-cursor.ts';
import { importLegacySchedule } from './schedule-import.ts';
import {
  IdempotentReplay,
  storedNotificationSchema,
  type IdempotencyKey,
  type StoredNotification,
} from './schedule-record.ts';
import { ScheduleFileWatch } from './schedule-watch.ts';

export {
  dueAt,
  IdempotentReplay,
  scheduleFilePath,
  SCHEDULE_FILE_NAME,
  storedNotificationSchema,
  type IdempotencyKey,
  type StoredNotification,
} from './schedule-record.ts';
export { encodeCursor, InvalidCursorError, type Page, type PageQuery } from './schedule-cursor.ts';

/** A change: the records to write (whole new versions) and the caller's answer. */
export interface Change<T> {
  value: T;
  write: StoredNotification[];
}

export interface ScheduleStoreOptions {
  /** Release 0.3.5's schedule file: its folder holds the database; the file itself is imported once. */
  file: string;
  logger: Logger;
  /** A change waits this long for another process's transaction before it is refused (ScheduleLockedError). Default 2 s. */
  busyTimeoutMs?: number;
  /** Called after other processes' changes were read in: the changed records, or 'reloaded' (too many to list). */
  onExternalChange?: (change: StoredNotification[] | 'reloaded') => void;
  /** Periodic check for other processes' commits (one row read). Default 60 s beside a working fs.watch, 2 s without. */
  statIntervalMs?: number;
}

/** The database stayed write-locked by another process longer than a change may wait. */
export class ScheduleLockedError extends CodedError<'schedule_locked'> {
  constructor(file: string, waitedMs: number) {
    super(
      'schedule_locked',
      `the schedule database ${file} is locked by another process (a transaction still open after ${Math.round(waitedMs)} ms); stop that process or wait for it to finish`,
    );
  }
}

const FINISHED = "('delivered', 'failed', 'cancelled', 'expired')";
/** More changed rows than this since the last look: listeners are told 'reloaded'. */
const MAX_LISTED_CHANGES = 1000;
const NO_CURSOR = { fire: -Number.MAX_VALUE, id: '' };

const SQL = {
  get: 'SELECT record FROM schedule WHERE id = ?',
  upsert:
    'INSERT INTO schedule (id, rev, record) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET rev = excluded.rev, record = excluded.record',
  bumpRev: 'UPDATE schedule_meta SET rev = rev + 1 RETURNING rev',
  rev: 'SELECT rev FROM schedule_meta',
  changedSince: `SELECT record FROM schedule WHERE rev > ? ORDER BY rev LIMIT ${MAX_LISTED_CHANGES + 1}`,
  counts: 'SELECT state, n FROM schedule_counts WHERE n > 0',
  all: 'SELECT record FROM schedule ORDER BY fire_at, id',
  page: 'SELECT record FROM schedule WHERE (fire_at, id) > (?, ?) ORDER BY fire_at, id LIMIT ?',
  pageInState:
    'SELECT record FROM schedule WHERE state = ? AND (fire_at, id) > (?, ?) ORDER BY state, fire_at, id LIMIT ?',
  // The partial index walks the due queue in order (due time, then rowid: the order the entries were
  // created in, kept by the upsert); named, since the planner would otherwise pick the state index
  // and sort every scheduled row for each look at the next due entry.
  due: "SELECT record FROM schedule INDEXED BY schedule_due WHERE state = 'scheduled' ORDER BY due_at, rowid LIMIT ?",
  delivering: "SELECT record FROM schedule WHERE state = 'delivering'",
  byKey: 'SELECT record FROM schedule WHERE idempotency_key = ?',
  seriesScheduled: "SELECT record FROM schedule WHERE series = ? AND state = 'scheduled' ORDER BY fire_at, id",
  seriesLater: 'SELECT 1 FROM schedule WHERE series = ? AND fire_at > ? LIMIT 1',
  prune: `DELETE FROM schedule WHERE state IN ${FINISHED} AND updated_at < ?`,
} as const;
type Statements = { [K in keyof typeof SQL]: SqliteStatement };

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

export class ScheduleStore {
  readonly file: string;
  readonly #log: Logger;
  readonly #busyTimeoutMs: number;
  #onExternalChange: ScheduleStoreOptions['onExternalChange'];
  readonly #watch: ScheduleFileWatch;
  #database: OpenedDatabase | null = null;
  #sql: Statements | null = null;
  /** The last change number this process has seen (its own or read in). */
  #seenRev = 0;
  /** Opened after close() for a late write; closed again at the next turn of the event loop. */
  #temporary = false;
  /** Ids taken off the due queue by takeDue and not yet put back or written. */
  readonly #taken = new Set<string>();

  constructor(options: ScheduleStoreOptions) {
    this.file = options.file;
    this.#log = options.logger;
    this.#busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
    this.#onExternalChange = options.onExternalChange;
    this.#watch = new ScheduleFileWatch({
      file: this.databaseFile,
      log: this.#log,
      statIntervalMs: options.statIntervalMs,
      unchanged: () => this.#unchanged(),
      refresh: () => this.refresh(),
    });
  }

  /** Where the rows live: the core's database beside the old file. */
  get databaseFile(): string {
    return path.join(path.dirname(this.file), DATABASE_FILE);
  }

  // ---- reads (queries) ----

  get(id: string): StoredNotification | undefined {
    return this.#one(this.#q().get.get(id));
  }

  get size(): number {
    return Object.values(this.counts()).reduce((a, n) => a + n, 0);
  }

  /** Entries scheduled or being delivered (what the cap counts). */
  get pendingCount(): number {
    const c = this.counts();
    return (c.scheduled ?? 0) + (c.delivering ?? 0);
  }

  counts(): Partial<Record<ScheduleState, number>> {
    const rows = this.#q().counts.all() as Array<{ state: ScheduleState; n: number }>;
    return Object.fromEntries(rows.map((r) => [r.state, r.n]));
  }

  /** Every entry in list order (a full scan: for tools and tests, not the hot paths). */
  *values(): IterableIterator<StoredNotification> {
    for (const row of this.#q().all.iterate()) {
      const e = this.#one(row);
      if (e) yield e;
    }
  }

  /** Entries in list order after the cursor, filtered by state. */
  page(query: PageQuery): Page {
    const after = query.cursor === undefined ? NO_CURSOR : decodeCursor(query.cursor);
    const q = this.#q();
    const rows = query.state
      ? q.pageInState.all(query.state, after.fire, after.id, query.limit + 1)
      : q.page.all(after.fire, after.id, query.limit + 1);
    const entries = this.#many(rows);
    if (entries.length <= query.limit) return { entries, next_cursor: null };
    entries.length = query.limit;
    return { entries, next_cursor: encodeCursor(entries.at(-1)!) };
  }

  /** The scheduled entry due first (not taken), or undefined. */
  peekDue(): StoredNotification | undefined {
    const rows = this.#q().due.all(this.#taken.size + 1);
    return this.#many(rows).find((e) => !this.#taken.has(e.id));
  }

  /** Take the first due entry off the queue if it is due at `now` (until written or put back). */
  takeDue(now: number): StoredNotification | undefined {
    const e = this.peekDue();
    if (!e || (e.next_attempt_at ?? e.fire_at_epoch) > now) return undefined;
    this.#taken.add(e.id);
    return e;
  }

  /** Put an entry taken with takeDue back on the queue (it was not started). */
  putBack(e: StoredNotification): void {
    this.#taken.delete(e.id);
  }

  /** Entries being delivered (claims), for the recovery of abandoned ones. */
  delivering(): StoredNotification[] {
    return this.#many(this.#q().delivering.all());
  }

  /** A series' occurrences still scheduled, by fire time. */
  seriesScheduled(series: string): StoredNotification[] {
    return this.#many(this.#q().seriesScheduled.all(series));
  }

  /** Whether the series has a member (any state) due after `fireAt`. */
  seriesHasLater(series: string, fireAt: number): boolean {
    return this.#q().seriesLater.get(series, fireAt) !== undefined;
  }

  // ---- lifecycle ----

  /** Open the database (migrating it), import a release-0.3.5 schedule file once. Call before anything else. */
  async load(): Promise<void> {
    this.#temporary = false;
    if (this.#database) return;
    const database = this.#connect();
    try {
      const counts = importLegacySchedule(database.db, this.file, (records) => this.#write(records, this.#bumpRev()));
      if (counts)
        this.#log.info(
          { file: this.file, database: database.file, ...counts },
          `imported ${counts.entries} scheduled notifications from ${this.file} into the database; the file is kept as a backup until you remove it`,
        );
    } catch (err) {
      this.#log.error(
        { err, file: this.file },
        'could not import the old schedule file; nothing of it was imported (it is retried at the next start)',
      );
    }
    this.#seenRev = this.#rev();
  }

  /** Notice other processes' commits while idle: fs.watch on the folder plus a cheap periodic check. */
  watch(): void {
    this.#watch.start();
  }

  async close(): Promise<void> {
    this.#temporary = false;
    this.#watch.close();
    this.#database?.close();
    this.#database = this.#sql = null;
    this.#taken.clear();
  }

  /** Read in other processes' changes now (also runs on its own after watch()). */
  async refresh(): Promise<void> {
    if (!this.#database || this.#temporary) return;
    const changed = this.#database.db.transaction(() => this.#changesSince())();
    this.#tell(changed);
  }

  /**
   * One change, in one transaction: other processes' changes are read in, `change` decides from the
   * current state (it may throw to refuse: nothing is written), its records are written and
   * committed (fsync'd), and only then is the promise resolved.
   */
  transact<T>(change: () => Change<T>, idempotency?: IdempotencyKey): Promise<T> {
    return new Promise((resolve) => resolve(this.#transactNow(change, idempotency)));
  }

  /** Delete finished entries last changed before `cutoff` (epoch seconds). Returns how many. */
  async prune(cutoff: number): Promise<number> {
    const dropped = this.#q().prune.run(cutoff).changes;
    if (dropped) this.#log.info({ dropped }, 'finished scheduled notifications past retention pruned');
    return dropped;
  }

  /** Who is told of other processes' changes once they are read in (replaces the option's listener). */
  setExternalChangeListener(listener: NonNullable<ScheduleStoreOptions['onExternalChange']>): void {
    this.#onExternalChange = listener;
  }

  #transactNow<T>(change: () => Change<T>, idempotency?: IdempotencyKey): T {
    const db = this.#db();
    let external: StoredNotification[] | 'reloaded' = [];
    let written: StoredNotification[] = [];
    let rev = 0;
    const run = db.transaction(() => {
      external = this.#changesSince();
      // A key that already created a live entry within its window: that entry's answer, nothing
      // written (checked inside the write transaction: two concurrent requests create one entry).
      const prior = idempotency ? this.#entryForKey(idempotency.key, idempotency.now) : undefined;
      if (idempotency && prior)
        throw new IdempotentReplay(prior, prior.idempotency!.request_hash === idempotency.request_hash);
      const { value, write } = change();
      for (const record of write)
        if (record.idempotency && record.idempotency.entry !== record.id) delete record.idempotency; // a series' copy
      if (idempotency) {
        const created = write[0];
        if (write.length !== 1 || !created || this.get(created.id))
          throw new Error('an idempotency key goes with a change that creates exactly one entry');
        created.idempotency = {
          key: idempotency.key,
          request_hash: idempotency.request_hash,
          until: idempotency.now + idempotency.ttlSeconds,
          entry: created.id,
        };
      }
      if (write.length) {
        rev = this.#bumpRev();
        this.#write(write, rev);
      }
      written = write;
      return value;
    });
    try {
      const value = run.immediate();
      if (rev) this.#seenRev = rev;
      for (const record of written) this.#taken.delete(record.id);
      return value;
    } catch (err) {
      if (isBusy(err)) throw new ScheduleLockedError(this.databaseFile, this.#busyTimeoutMs);
      throw err;
    } finally {
      this.#tell(external);
    }
  }

  #write(records: readonly StoredNotification[], rev: number): void {
    const upsert = this.#q().upsert;
    for (const r of records) upsert.run(r.id, rev, JSON.stringify(r));
  }

  #bumpRev(): number {
    return (this.#q().bumpRev.get() as { rev: number }).rev;
  }

  #rev(): number {
    return (this.#q().rev.get() as { rev: number }).rev;
  }

  #unchanged(): boolean {
    try {
      return !this.#database || this.#rev() === this.#seenRev;
    } catch {
      return true; // closing, or busy for a moment: the next check looks again
    }
  }

  /** Other processes' changes since the last look (call inside a transaction). */
  #changesSince(): StoredNotification[] | 'reloaded' {
    const rev = this.#rev();
    if (rev === this.#seenRev) return [];
    const rows = this.#q().changedSince.all(this.#seenRev);
    this.#seenRev = rev;
    return rows.length > MAX_LISTED_CHANGES ? 'reloaded' : this.#many(rows);
  }

  #tell(changed: StoredNotification[] | 'reloaded'): void {
    if (changed === 'reloaded' || changed.length) this.#onExternalChange?.(changed);
  }

  #entryForKey(key: string, now: number): StoredNotification | undefined {
    return this.#many(this.#q().byKey.all(key)).find(
      (e) => e.idempotency?.key === key && e.idempotency.entry === e.id && e.idempotency.until > now,
    );
  }

  #connect(): OpenedDatabase {
    const database = openDatabase({
      dir: path.dirname(this.file),
      logger: this.#log,
      busyTimeoutMs: this.#busyTimeoutMs,
    });
    // The schedule's changes are acknowledged only once on disk (the WAL fsync'd at each commit).
    database.db.pragma('synchronous = FULL');
    this.#database = database;
    this.#sql = Object.fromEntries(
      Object.entries(SQL).map(([k, text]) => [k, database.db.prepare<unknown[]>(text)]),
    ) as Statements;
    return database;
  }

  #db(): SqliteDatabase {
    this.#q();
    return this.#database!.db;
  }

  /**
   * The statements. After close(), a delivery that was still in flight may yet record its outcome
   * (the truth of bytes sent): the database is opened for it and closed again right after.
   */
  #q(): Statements {
    if (this.#sql) return this.#sql;
    this.#connect();
    this.#seenRev = this.#rev();
    this.#temporary = true;
    setImmediate(() => {
      if (this.#temporary) void this.close();
    });
    return this.#sql!;
  }

  /** A row read back, validated; a row that does not validate is reported and left out. */
  #one(row: unknown): StoredNotification | undefined {
    if (row === undefined) return undefined;
    const text = (row as { record: string }).record;
    let parsed;
    try {
      parsed = storedNotificationSchema.safeParse(JSON.parse(text));
    } catch {
      parsed = null;
    }
    if (parsed?.success) return parsed.data;
    this.#log.warn({ record: text.slice(0, 200) }, 'a schedule row does not validate; left out');
    return undefined;
  }

  #many(rows: unknown[]): StoredNotification[] {
    const out: StoredNotification[] = [];
    for (const row of rows) {
      const e = this.#one(row);
      if (e) out.push(e);
    }
    return out;
  }
}
