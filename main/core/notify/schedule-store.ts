// The schedule file: `<agent home>/voice-users/notifications-schedule.jsonl`, one JSON record per
// line, readable by any tool. The file is also the journal: every change APPENDS the entry's whole
// new record as one line (fdatasync'd before the change is acknowledged), and the LAST line for an
// id wins. So a change costs one small append, not a rewrite, and nothing runs while nothing
// changes. Rules:
//   1. one line per change, appended under a cross-process lock (`<file>.lock`, a symlink whose
//      target is the owner's pid; a lock whose process is gone is taken over at once), so the app, the
//      headless runner and the CLI can share the file. A crash mid-append leaves at most a torn last
//      line, which the next locker cuts off: every acknowledged change is a whole line on disk;
//   2. an in-memory index (by id, by fire time, a min-heap of due times) answers reads; before each
//      change the store catches up with the file (size/mtime/inode compared; appended bytes read
//      incrementally, anything else reloads), and fs.watch notices other programs' edits while idle
//      (a stat every 60 s as a safety net; every 2 s where fs.watch is unavailable);
//   3. compaction rewrites the file (temp file + fsync + rename + directory fsync) with one line per
//      live entry when superseded lines outnumber live ones, dropping finished entries past their
//      retention; the rewrite is written in chunks so the event loop keeps running;
//   4. reading tolerates damage from anything else (an older writer, a full disk, a hand edit): bad
//      lines other than a torn tail are set aside in `<file>.rejected` and the file is rewritten clean.
import { closeSync, fdatasyncSync, fstatSync, ftruncateSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { appendFile, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { ScheduleState } from '../api-types.ts';
import { removeStaleTemps, replaceFileSync, rewriteTempPath, syncDir } from './schedule-files.ts';
import { ScheduleIndex, type Page, type PageQuery } from './schedule-index.ts';
import { acquireScheduleLock, DEFAULT_LOCK_WAIT_MS, removeLockDir, touchLock } from './schedule-lock.ts';
import { ScheduleFileWatch } from './schedule-watch.ts';
import { IdempotentReplay, parseScheduleLine, readScheduleFile, serializeSchedule, type IdempotencyKey, type StoredNotification } from './schedule-record.ts';

// The file format and the in-memory index live beside the store; what other code imported from here
// is still exported from here.
export { pidAlive } from './schedule-lock.ts';
export { dueAt, IdempotentReplay, parseScheduleText, scheduleFilePath, serializeSchedule, SCHEDULE_FILE_NAME, storedNotificationSchema, type IdempotencyKey, type ReadResult, type StoredNotification } from './schedule-record.ts';
export { encodeCursor, InvalidCursorError, type Page, type PageQuery } from './schedule-index.ts';

interface FileIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
}

/** A change: the records to append (whole new versions) and the caller's answer. */
export interface Change<T> {
  value: T;
  write: StoredNotification[];
}

export interface ScheduleStoreOptions {
  file: string;
  logger: Logger;
  /** A lock whose holder is alive but has not finished after this long is taken over. Default 10 s. */
  lockStaleMs?: number;
  /** A lock held by a live process longer than this refuses the change, naming the holder (ScheduleLockedError). */
  lockWaitMs?: number;
  /** Called after another program's edits were read in: the changed records, or 'reloaded'. */
  onExternalChange?: (change: StoredNotification[] | 'reloaded') => void;
  /** Compact once superseded lines exceed max(this, live entries). Default 1000. */
  compactMinGarbage?: number;
  /**
   * Periodic check for external edits (a stat, no read). Given: this interval, fs.watch or not.
   * Default: 2000 ms where fs.watch is unavailable or failed, 60 s as a safety net beside a working
   * fs.watch (inotify sees other programs' appends and renames at once; the stat covers the odd
   * filesystem whose watch stays silent), so an idle store wakes once a minute, not every 2 s.
   */
  statIntervalMs?: number;
}

export class ScheduleStore {
  readonly file: string;
  readonly #log: Logger;
  readonly #lockFile: string;
  readonly #lockTiming: { staleMs: number; waitMs: number };
  readonly #compactMinGarbage: number;
  #onExternalChange: ScheduleStoreOptions['onExternalChange'];
  readonly #index = new ScheduleIndex();
  /** Valid lines in the file (live + superseded), to decide when to compact. */
  #lines = 0;

  #fd: number | null = null;
  #known: FileIdentity | null = null;
  #mutex: Promise<unknown> = Promise.resolve();
  readonly #watch: ScheduleFileWatch;
  #compactQueued = false;
  #pruneIf: ((e: StoredNotification) => boolean) | null = null;

  constructor(options: ScheduleStoreOptions) {
    this.file = options.file;
    this.#log = options.logger;
    this.#lockFile = `${this.file}.lock`;
    const staleMs = options.lockStaleMs ?? 10_000;
    this.#lockTiming = { staleMs, waitMs: Math.min(options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS, staleMs * 3) };
    this.#compactMinGarbage = options.compactMinGarbage ?? 1000;
    this.#watch = new ScheduleFileWatch({ file: this.file, log: this.#log, statIntervalMs: options.statIntervalMs, unchanged: () => this.#sameAsKnown(), refresh: () => this.refresh() });
    this.#onExternalChange = options.onExternalChange;
  }

  // ---- reads (memory only: the index) ----

  get(id: string): StoredNotification | undefined {
    return this.#index.get(id);
  }

  get size(): number {
    return this.#index.size;
  }

  /** Entries scheduled or being delivered (what the cap counts). */
  get pendingCount(): number {
    return this.#index.pendingCount;
  }

  counts(): Partial<Record<ScheduleState, number>> {
    return this.#index.counts();
  }

  values(): IterableIterator<StoredNotification> {
    return this.#index.values();
  }

  /** Entries in list order from the cursor, filtered by state. */
  page(query: PageQuery): Page {
    return this.#index.page(query);
  }

  /** The scheduled entry due first (due time ≤ anything else), or undefined. */
  peekDue(): StoredNotification | undefined {
    return this.#index.peekDue();
  }

  /** Remove and return the first due entry if it is due at `now`. */
  takeDue(now: number): StoredNotification | undefined {
    return this.#index.takeDue(now);
  }

  /** Put an entry taken with takeDue back (it was not started). */
  putBack(e: StoredNotification): void {
    this.#index.putBack(e);
  }

  // ---- lifecycle ----

  /** Read the file (repairing damage) and build the index. Call once before anything else. */
  async load(): Promise<void> {
    await this.#locked(() => {
      removeStaleTemps(this.file, this.#log);
      this.#reload('load');
    });
  }

  /** Notice edits made by other programs: fs.watch on the folder plus a cheap periodic stat. */
  watch(): void {
    this.#watch.start();
  }

  async close(): Promise<void> {
    this.#watch.close();
    await this.#mutex.catch(() => undefined);
    this.#closeFd();
  }

  /** Read in other programs' edits now (also runs on its own after watch()). */
  refresh(): Promise<void> {
    return this.#locked(() => this.#catchUp());
  }

  /**
   * One change: under both locks the store catches up with the file, `change` decides from the
   * current state (it may throw to refuse), its records are appended and fdatasync'd, and only then
   * applied in memory and the promise resolved.
   */
  transact<T>(change: () => Change<T>, idempotency?: IdempotencyKey): Promise<T> {
    return this.#locked(() => {
      this.#catchUp();
      // A key that already created a live entry within its window: that entry's answer, nothing
      // written (checked under the cross-process lock: two concurrent requests create one entry).
      const prior = idempotency ? this.#index.entryForKey(idempotency.key, idempotency.now) : undefined;
      if (idempotency && prior) throw new IdempotentReplay(prior, prior.idempotency!.request_hash === idempotency.request_hash);
      const { value, write } = change();
      for (const record of write) if (record.idempotency && record.idempotency.entry !== record.id) delete record.idempotency; // a series' copy
      if (idempotency) {
        const created = write[0];
        if (write.length !== 1 || !created || this.#index.has(created.id)) throw new Error('an idempotency key goes with a change that creates exactly one entry');
        created.idempotency = { key: idempotency.key, request_hash: idempotency.request_hash, until: idempotency.now + idempotency.ttlSeconds, entry: created.id };
      }
      if (write.length) {
        this.#append(write);
        for (const record of write) this.#index.apply(record);
        this.#maybeCompact();
      }
      return value;
    });
  }

  /** Rewrite the file with one line per live entry, dropping those `prune` selects. */
  compact(prune?: (e: StoredNotification) => boolean): Promise<number> {
    return this.#locked(async () => {
      this.#catchUp();
      return this.#compactNow(prune ?? this.#pruneIf ?? undefined);
    });
  }

  /** Who is told of other programs' edits once they are read in (replaces the option's listener). */
  setExternalChangeListener(listener: NonNullable<ScheduleStoreOptions['onExternalChange']>): void {
    this.#onExternalChange = listener;
  }

  /** The retention rule applied by every compaction (background or explicit). */
  setPruneRule(prune: (e: StoredNotification) => boolean): void {
    this.#pruneIf = prune;
  }

  /** One change at a time in this process, under the cross-process file lock. */
  #locked<T>(fn: () => T | Promise<T>): Promise<T> {
    const run = this.#mutex.then(async () => {
      await acquireScheduleLock(this.#lockFile, this.#lockTiming, this.#log);
      try {
        return await fn();
      } finally {
        removeLockDir(this.#lockFile);
      }
    });
    this.#mutex = run.catch(() => undefined);
    return run;
  }

  // ---- file I/O (all under the lock) ----

  #openFd(): number {
    if (this.#fd === null) this.#fd = openSync(this.file, 'a+', 0o600);
    return this.#fd;
  }

  #closeFd(): void {
    if (this.#fd !== null) closeSync(this.#fd);
    this.#fd = null;
  }

  #sameAsKnown(): boolean {
    try {
      const st = statSync(this.file);
      return this.#known !== null && st.ino === this.#known.ino && st.size === this.#known.size && st.mtimeMs === this.#known.mtimeMs;
    } catch {
      return this.#known === null;
    }
  }

  /** Bring memory up to date with the file: nothing, the appended tail, or a full reload. */
  #catchUp(): void {
    let st;
    try {
      st = statSync(this.file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      if (this.#known !== null || this.#index.size) this.#reload('file removed');
      return;
    }
    const known = this.#known;
    if (known && st.ino === known.ino && st.size === known.size && st.mtimeMs === known.mtimeMs) return;
    if (known && st.ino === known.ino && st.size > known.size) this.#readTail(known.size, st.size);
    else this.#reload('changed by another program');
  }

  #readTail(from: number, to: number): void {
    const fd = this.#openFd();
    const buffer = Buffer.alloc(to - from);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, from + read);
      if (n === 0) break;
      read += n;
    }
    let text = buffer.subarray(0, read).toString('utf8');
    const lastNl = text.lastIndexOf('\n');
    if (lastNl !== text.length - 1) {
      // A torn tail: its writer stopped mid-line (we hold the lock, so nobody is writing it now).
      ftruncateSync(fd, from + Buffer.byteLength(text.slice(0, lastNl + 1)));
      this.#log.warn({ file: this.file }, 'schedule file ended in a torn line; cut it off');
      text = text.slice(0, lastNl + 1);
    }
    const changed: StoredNotification[] = [];
    const rejected: string[] = [];
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      const record = parseScheduleLine(line);
      if (!record) rejected.push(line);
      else {
        this.#index.apply(record);
        changed.push(record);
      }
    }
    this.#remember();
    if (rejected.length) {
      this.#setAside(rejected);
      this.#rewriteSync(); // leave a clean file behind
    }
    if (changed.length) this.#onExternalChange?.(changed);
  }

  #reload(reason: string): void {
    const parsed = readScheduleFile(this.file);
    this.#index.reset(parsed.entries.values());
    this.#lines = parsed.lines;
    this.#closeFd();
    if (parsed.rejectedLines.length) this.#setAside(parsed.rejectedLines);
    if (parsed.damaged > 0) {
      this.#log.warn({ damaged: parsed.damaged, file: this.file }, 'schedule file had damaged lines; rewriting it clean');
      this.#rewriteSync();
    } else this.#remember();
    if (reason !== 'load') this.#onExternalChange?.('reloaded');
  }

  #remember(): void {
    try {
      const st = fstatSync(this.#openFd());
      this.#known = { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs };
    } catch {
      this.#known = null;
    }
  }

  #append(records: readonly StoredNotification[]): void {
    const fd = this.#openFd();
    const bytes = Buffer.from(records.map((r) => JSON.stringify(r) + '\n').join(''), 'utf8');
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fdatasyncSync(fd);
    this.#lines += records.length;
    this.#remember();
  }

  #setAside(lines: string[]): void {
    appendFile(`${this.file}.rejected`, lines.join('\n') + '\n', { mode: 0o600 }).catch((err: unknown) => this.#log.warn({ err }, 'could not set damaged schedule lines aside'));
  }

  /** Small synchronous clean rewrite (damage repair only). */
  #rewriteSync(): void {
    replaceFileSync(this.file, serializeSchedule(this.#index.ordered()));
    this.#rewritten();
  }

  /** The file was replaced by one line per live entry: reopen and remember it. */
  #rewritten(): void {
    this.#closeFd();
    this.#lines = this.#index.size;
    this.#remember();
  }

  #maybeCompact(): void {
    if (this.#compactQueued) return;
    if (this.#lines - this.#index.size <= Math.max(this.#compactMinGarbage, this.#index.size)) return;
    this.#compactQueued = true;
    setImmediate(() => {
      this.compact()
        .catch((err: unknown) => this.#log.warn({ err }, 'schedule compaction failed; the journal stays as it is'))
        .finally(() => (this.#compactQueued = false));
    });
  }

  async #compactNow(prune?: (e: StoredNotification) => boolean): Promise<number> {
    const order = this.#index.ordered();
    const keep = prune ? order.filter((e) => !prune(e)) : order;
    const dropped = order.length - keep.length;
    const tmp = rewriteTempPath(this.file);
    const handle = await open(tmp, 'w', 0o600);
    try {
      // Chunks keep each synchronous slice short; the lock keeps writers out meanwhile.
      for (let i = 0; i < keep.length; i += 2000) {
        await handle.write(serializeSchedule(keep.slice(i, i + 2000)));
        touchLock(this.#lockFile);
      }
      await handle.sync();
    } catch (err) {
      await handle.close();
      await rm(tmp, { force: true });
      throw err;
    }
    await handle.close();
    await rename(tmp, this.file);
    syncDir(path.dirname(this.file));
    if (dropped) this.#index.reset(keep);
    this.#rewritten();
    if (dropped) this.#log.info({ dropped, kept: keep.length }, 'schedule compacted; finished entries past retention pruned');
    return dropped;
  }
}
