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
import { closeSync, fdatasyncSync, fstatSync, fsyncSync, ftruncateSync, lstatSync, mkdirSync, openSync, readdirSync, readlinkSync, readSync, renameSync, statSync, symlinkSync, unlinkSync, watch, writeSync, type FSWatcher } from 'node:fs';
import { appendFile, open, rename, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { Logger } from 'pino';
import { z } from 'zod';
import { NOTIFY_MODES, SCHEDULE_STATES, type ScheduledNotification, type ScheduleState } from '../api-types.ts';
import { storedRepeatSchema } from './repeat.ts';
import { DEFAULT_LOCK_WAIT_MS, lockHolderPid, pidAlive, removeLockDir, ScheduleLockedError, touchLock } from './schedule-lock.ts';

export { pidAlive } from './schedule-lock.ts';

export const SCHEDULE_FILE_NAME = 'notifications-schedule.jsonl';

/** The schedule file inside an agent home: `<agentHome>/voice-users/notifications-schedule.jsonl`. */
export function scheduleFilePath(agentHome: string): string {
  return path.join(agentHome, 'voice-users', SCHEDULE_FILE_NAME);
}

const claimSchema = z.object({
  /** `<pid>:<scheduler instance>` of the process delivering the entry. */
  owner: z.string(),
  pid: z.number().int(),
  /** Epoch seconds after which an unfinished delivery is considered abandoned. */
  lease_until: z.number(),
});

export const storedNotificationSchema = z.object({
  id: z.string().min(1),
  text: z.string(),
  mode: z.enum(NOTIFY_MODES),
  title: z.string().optional(),
  source: z.string().optional(),
  delay_seconds: z.number(),
  fire_at_epoch: z.number(),
  created_at: z.number(),
  state: z.enum(SCHEDULE_STATES),
  attempts: z.number().int().min(0),
  last_error: z.string().optional(),
  delivered_at: z.number().optional(),
  /** Seconds past fire_at_epoch at which a late entry was delivered (only when beyond the tolerance). */
  late_by_seconds: z.number().optional(),
  /** Epoch seconds of the last state change (pruning clock). */
  updated_at: z.number().optional(),
  /** After an attempt that sent nothing: when the next one is due (fire_at_epoch stays the original time). */
  next_attempt_at: z.number().optional(),
  claim: claimSchema.optional(),
  /** Repeating reminders only: the series' rule (each occurrence is its own entry; see repeat.ts). */
  repeat: storedRepeatSchema.optional(),
  /** The client's `Idempotency-Key` of the POST that created this entry (never shown by the API). */
  idempotency: z
    .object({
      key: z.string(),
      /** sha256 of the request body: a different body under the same key is refused. */
      request_hash: z.string(),
      /** Epoch seconds until which a repeat of the key answers with this entry. */
      until: z.number(),
      /** The entry the key created (a series' later occurrences copy the record, not the key). */
      entry: z.string(),
    })
    .optional(),
});

export type StoredNotification = z.infer<typeof storedNotificationSchema> & ScheduledNotification;

export interface ReadResult {
  entries: StoredNotification[];
  /** Lines that were ignored (torn tail or invalid); the next write drops them from the file. */
  damaged: number;
}

/** Parse file text (last line per id wins). Never throws: damage is counted and returned separately. */
export function parseScheduleText(text: string): ReadResult & { rejectedLines: string[]; lines: number } {
  const lines = text.split('\n');
  const endsClean = text === '' || text.endsWith('\n');
  const byId = new Map<string, StoredNotification>();
  const rejectedLines: string[] = [];
  let damaged = 0;
  let valid = 0;
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const isTail = index === lines.length - 1 && !endsClean;
    const parsed = parseLine(line);
    if (parsed) {
      valid++;
      byId.delete(parsed.id); // re-insert so order follows the last occurrence
      byId.set(parsed.id, parsed);
      return;
    }
    damaged++;
    // A torn tail is an unfinished write: nothing to keep. Anything else is set aside for a human.
    if (!isTail) rejectedLines.push(line);
  });
  return { entries: [...byId.values()], damaged, rejectedLines, lines: valid };
}

function parseLine(line: string): StoredNotification | null {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return null;
  }
  const parsed = storedNotificationSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/**
 * Read the file line by line in 1 MiB chunks (no whole-file string, no array of all lines), so
 * loading 100,000 entries keeps its peak memory small. Same rules as parseScheduleText.
 */
function readScheduleFile(file: string): { entries: Map<string, StoredNotification>; damaged: number; rejectedLines: string[]; lines: number } {
  const entries = new Map<string, StoredNotification>();
  const rejectedLines: string[] = [];
  let damaged = 0;
  let lines = 0;
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { entries, damaged, rejectedLines, lines };
    throw err;
  }
  const handle = (line: string): void => {
    if (line.trim() === '') return;
    const record = parseLine(line);
    if (record) {
      lines++;
      entries.delete(record.id); // re-insert so order follows the last occurrence
      entries.set(record.id, record);
    } else {
      damaged++;
      rejectedLines.push(line);
    }
  };
  try {
    const decoder = new StringDecoder('utf8');
    const buffer = Buffer.allocUnsafe(1 << 20);
    let carry = '';
    for (let position = 0; ; ) {
      const n = readSync(fd, buffer, 0, buffer.length, position);
      if (n === 0) break;
      position += n;
      const chunk = carry + decoder.write(buffer.subarray(0, n));
      let start = 0;
      for (let nl = chunk.indexOf('\n'); nl >= 0; nl = chunk.indexOf('\n', start)) {
        handle(chunk.slice(start, nl));
        start = nl + 1;
      }
      carry = chunk.slice(start);
    }
    carry += decoder.end();
    if (carry.trim() !== '') damaged++; // a torn tail: an unfinished write, nothing to keep
  } finally {
    closeSync(fd);
  }
  return { entries, damaged, rejectedLines, lines };
}

export function serializeSchedule(entries: readonly StoredNotification[]): string {
  return entries.map((e) => JSON.stringify(e)).join('\n') + (entries.length ? '\n' : '');
}

/** When the entry is next due: a retry time if one is set, else its fire time. */
export const dueAt = (e: StoredNotification): number => e.next_attempt_at ?? e.fire_at_epoch;
const isPending = (e: StoredNotification | undefined): boolean => e !== undefined && (e.state === 'scheduled' || e.state === 'delivering');

/** List order: fire time, then id. */
function compareOrder(a: StoredNotification, fire: number, id: string): number {
  return a.fire_at_epoch - fire || (a.id < id ? -1 : a.id > id ? 1 : 0);
}

export interface PageQuery {
  limit: number;
  /** Opaque: the `next_cursor` of the previous page. */
  cursor?: string;
  state?: ScheduleState;
}

export interface Page {
  entries: StoredNotification[];
  /** Give it back as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
}

export class InvalidCursorError extends Error {}

export function encodeCursor(e: Pick<StoredNotification, 'fire_at_epoch' | 'id'>): string {
  return Buffer.from(JSON.stringify([e.fire_at_epoch, e.id])).toString('base64url');
}

function decodeCursor(cursor: string): { fire: number; id: string } {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'string') return { fire: value[0], id: value[1] };
  } catch {
    // fall through
  }
  throw new InvalidCursorError('cursor: give back the next_cursor of a previous page');
}

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

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** A rewrite temp file this old is abandoned even if the pid in its name is alive (pid reuse). */
const STALE_TEMP_MS = 3600_000;
/** External-edit check without a working fs.watch. */
const FALLBACK_STAT_MS = 2000;
/** External-edit check beside a working fs.watch (a safety net). */
const WATCHED_STAT_MS = 60_000;

/**
 * An idempotency key for the entry a change creates (POST /schedule's Idempotency-Key): written in
 * the same appended line as the entry, so the key is exactly as durable as the entry, across
 * restarts and processes.
 */
export interface IdempotencyKey {
  key: string;
  request_hash: string;
  /** Epoch seconds: now, and how long the key is remembered. */
  now: number;
  ttlSeconds: number;
}

/** A creation refused because the key already created `entry` (same body) or was used for another body. */
export class IdempotentReplay extends Error {
  readonly entry: StoredNotification;
  readonly sameRequest: boolean;
  constructor(entry: StoredNotification, sameRequest: boolean) {
    super(sameRequest ? `idempotency key already created ${entry.id}` : `idempotency key already used for a different request (${entry.id})`);
    this.name = 'IdempotentReplay';
    this.entry = entry;
    this.sameRequest = sameRequest;
  }
}

export class ScheduleStore {
  readonly file: string;
  readonly #log: Logger;
  readonly #lockDir: string;
  readonly #lockStaleMs: number;
  readonly #lockWaitMs: number;
  readonly #compactMinGarbage: number;
  readonly #statIntervalMs: number | undefined;
  readonly #onExternalChange?: ScheduleStoreOptions['onExternalChange'];

  readonly #byId = new Map<string, StoredNotification>();
  /** Idempotency key → id of the entry it created. */
  readonly #byKey = new Map<string, string>();
  /** Every entry by (fire_at_epoch, id): list pages and cursors. */
  #order: StoredNotification[] = [];
  /** Min-heap by due time of scheduled records (the record objects themselves, no extra objects); a record replaced since is skipped lazily. */
  #heap: StoredNotification[] = [];
  readonly #stateCounts = new Map<ScheduleState, number>();
  #pending = 0;
  /** Valid lines in the file (live + superseded), to decide when to compact. */
  #lines = 0;

  #fd: number | null = null;
  #known: FileIdentity | null = null;
  #mutex: Promise<unknown> = Promise.resolve();
  #watcher: FSWatcher | null = null;
  #statTimer: NodeJS.Timeout | null = null;
  #refreshTimer: NodeJS.Timeout | null = null;
  #compactQueued = false;
  #pruneIf: ((e: StoredNotification) => boolean) | null = null;

  constructor(options: ScheduleStoreOptions) {
    this.file = options.file;
    this.#log = options.logger;
    this.#lockDir = `${this.file}.lock`;
    this.#lockStaleMs = options.lockStaleMs ?? 10_000;
    this.#lockWaitMs = Math.min(options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS, this.#lockStaleMs * 3);
    this.#compactMinGarbage = options.compactMinGarbage ?? 1000;
    this.#statIntervalMs = options.statIntervalMs;
    this.#onExternalChange = options.onExternalChange;
  }

  // ---- reads (memory only) ----

  get(id: string): StoredNotification | undefined {
    return this.#byId.get(id);
  }

  get size(): number {
    return this.#byId.size;
  }

  /** Entries scheduled or being delivered (what the cap counts). */
  get pendingCount(): number {
    return this.#pending;
  }

  counts(): Partial<Record<ScheduleState, number>> {
    return Object.fromEntries(this.#stateCounts);
  }

  values(): IterableIterator<StoredNotification> {
    return this.#byId.values();
  }

  /** Entries in list order from the cursor, filtered by state. */
  page(query: PageQuery): Page {
    let index = 0;
    if (query.cursor !== undefined) {
      const { fire, id } = decodeCursor(query.cursor);
      index = this.#upperBound(fire, id);
    }
    const entries: StoredNotification[] = [];
    for (; index < this.#order.length; index++) {
      const e = this.#order[index]!;
      if (query.state && e.state !== query.state) continue;
      if (entries.length === query.limit) return { entries, next_cursor: encodeCursor(entries.at(-1)!) };
      entries.push(e);
    }
    return { entries, next_cursor: null };
  }

  /** The scheduled entry due first (due time ≤ anything else), or undefined. */
  peekDue(): StoredNotification | undefined {
    while (this.#heap.length) {
      const top = this.#heap[0]!;
      if (top.state === 'scheduled' && this.#byId.get(top.id) === top) return top;
      this.#heapPop();
    }
    return undefined;
  }

  /** Remove and return the first due entry if it is due at `now`. */
  takeDue(now: number): StoredNotification | undefined {
    const e = this.peekDue();
    if (!e || dueAt(e) > now) return undefined;
    this.#heapPop();
    return e;
  }

  /** Put an entry taken with takeDue back (it was not started). */
  putBack(e: StoredNotification): void {
    if (e.state === 'scheduled') this.#heapPush(e);
  }

  // ---- lifecycle ----

  /** Read the file (repairing damage) and build the index. Call once before anything else. */
  async load(): Promise<void> {
    await this.#locked(() => {
      this.#removeStaleTemps();
      this.#reload('load');
    });
  }

  /**
   * Temp files of a rewrite that never finished (`<file>.tmp-<pid>-<hex>`: the process was killed
   * mid-compaction) are removed when the store opens. We hold the lock, and a rewrite runs under it,
   * so no live rewrite is writing one now; still, a file is only removed when the pid in its name is
   * gone, or is alive but the file is older than an hour (the pid was reused) — never a fresh one of
   * a live process.
   */
  #removeStaleTemps(): void {
    const dir = path.dirname(this.file);
    const prefix = `${path.basename(this.file)}.tmp-`;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    let removed = 0;
    let bytes = 0;
    for (const name of names) {
      if (!name.startsWith(prefix)) continue;
      const m = /^(\d+)-[0-9a-f]+$/.exec(name.slice(prefix.length));
      if (!m) continue;
      const full = path.join(dir, name);
      try {
        const st = lstatSync(full);
        if (!st.isFile()) continue;
        const pid = Number(m[1]);
        const stale = !pidAlive(pid) || Date.now() - st.mtimeMs > STALE_TEMP_MS;
        if (!stale) continue;
        unlinkSync(full);
        removed++;
        bytes += st.size;
      } catch (err) {
        this.#log.warn({ err, file: full }, 'could not remove a stale schedule temp file');
      }
    }
    if (removed) this.#log.info({ removed, bytes }, 'removed temp files of an interrupted schedule rewrite');
  }

  /** Notice edits made by other programs: fs.watch on the folder plus a cheap periodic stat. */
  watch(): void {
    if (this.#watcher || this.#statTimer) return;
    const base = path.basename(this.file);
    try {
      this.#watcher = watch(path.dirname(this.file), { persistent: false }, (_event, name) => {
        if (name === null || name === base) this.#queueRefresh(50);
      });
      this.#watcher.on('error', (err) => {
        this.#log.debug({ err }, 'schedule folder watch failed; checking every 2 s instead');
        this.#watcher?.close();
        this.#watcher = null;
        this.#startStatTimer(this.#statIntervalMs ?? FALLBACK_STAT_MS);
      });
    } catch (err) {
      this.#log.debug({ err }, 'fs.watch unavailable; checking every 2 s instead');
      this.#watcher = null;
    }
    this.#startStatTimer(this.#statIntervalMs ?? (this.#watcher ? WATCHED_STAT_MS : FALLBACK_STAT_MS));
  }

  #startStatTimer(intervalMs: number): void {
    if (this.#statTimer) clearInterval(this.#statTimer);
    this.#statTimer = setInterval(() => {
      if (!this.#sameAsKnown()) this.#queueRefresh(0);
    }, intervalMs);
    this.#statTimer.unref();
  }

  async close(): Promise<void> {
    this.#watcher?.close();
    this.#watcher = null;
    if (this.#statTimer) clearInterval(this.#statTimer);
    if (this.#refreshTimer) clearTimeout(this.#refreshTimer);
    this.#statTimer = this.#refreshTimer = null;
    await this.#mutex.catch(() => undefined);
    if (this.#fd !== null) closeSync(this.#fd);
    this.#fd = null;
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
      const prior = idempotency ? this.#entryForKey(idempotency.key, idempotency.now) : undefined;
      if (idempotency && prior) throw new IdempotentReplay(prior, prior.idempotency!.request_hash === idempotency.request_hash);
      const { value, write } = change();
      for (const record of write) if (record.idempotency && record.idempotency.entry !== record.id) delete record.idempotency; // a series' copy
      if (idempotency) {
        const created = write[0];
        if (write.length !== 1 || !created || this.#byId.has(created.id)) throw new Error('an idempotency key goes with a change that creates exactly one entry');
        created.idempotency = { key: idempotency.key, request_hash: idempotency.request_hash, until: idempotency.now + idempotency.ttlSeconds, entry: created.id };
      }
      if (write.length) {
        this.#append(write);
        for (const record of write) this.#apply(record);
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

  /** The retention rule applied by every compaction (background or explicit). */
  setPruneRule(prune: (e: StoredNotification) => boolean): void {
    this.#pruneIf = prune;
  }

  // ---- locking ----

  #locked<T>(fn: () => T | Promise<T>): Promise<T> {
    const run = this.#mutex.then(async () => {
      await this.#acquireFileLock();
      try {
        return await fn();
      } finally {
        this.#releaseFileLock();
      }
    });
    this.#mutex = run.catch(() => undefined);
    return run;
  }

  async #acquireFileLock(): Promise<void> {
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      try {
        // One atomic syscall: a symlink whose target is our pid (readlink tells who holds it).
        symlinkSync(String(process.pid), this.#lockDir);
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      if (this.#lockAbandoned()) {
        this.#log.warn({ lock: this.#lockDir }, 'schedule file lock left by a stopped process; taking it over');
        removeLockDir(this.#lockDir);
        continue;
      }
      if (Date.now() - started > this.#lockWaitMs) throw new ScheduleLockedError(this.#lockDir, lockHolderPid(this.#lockDir), Date.now() - started);
      await sleep(Math.min(2 * 2 ** attempt, 50));
    }
  }

  #lockAbandoned(): boolean {
    try {
      const stat = lstatSync(this.#lockDir);
      let pid = NaN;
      try {
        pid = Number(readlinkSync(this.#lockDir));
      } catch {
        // A directory: an older writer's lock (proper-lockfile); judged by its age.
      }
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !pidAlive(pid)) return true;
      return Date.now() - stat.mtimeMs > this.#lockStaleMs;
    } catch {
      return false; // gone already: the next mkdir decides
    }
  }

  #releaseFileLock(): void {
    removeLockDir(this.#lockDir);
  }

  // ---- file I/O (all under the lock) ----

  #openFd(): number {
    if (this.#fd === null) this.#fd = openSync(this.file, 'a+', 0o600);
    return this.#fd;
  }

  #sameAsKnown(): boolean {
    try {
      const st = statSync(this.file);
      return this.#known !== null && st.ino === this.#known.ino && st.size === this.#known.size && st.mtimeMs === this.#known.mtimeMs;
    } catch {
      return this.#known === null;
    }
  }

  #queueRefresh(delayMs: number): void {
    if (this.#refreshTimer) return;
    this.#refreshTimer = setTimeout(() => {
      this.#refreshTimer = null;
      if (this.#sameAsKnown()) return;
      this.refresh().catch((err: unknown) => this.#log.warn({ err }, 'reading external schedule edits failed'));
    }, delayMs);
    this.#refreshTimer.unref();
  }

  /** Bring memory up to date with the file: nothing, the appended tail, or a full reload. */
  #catchUp(): void {
    let st;
    try {
      st = statSync(this.file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      if (this.#known !== null || this.#byId.size) this.#reload('file removed');
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
      const record = parseLine(line);
      if (!record) rejected.push(line);
      else {
        this.#apply(record);
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
    this.#resetIndex(parsed.entries.values());
    this.#lines = parsed.lines;
    if (this.#fd !== null) closeSync(this.#fd);
    this.#fd = null;
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
    const tmp = `${this.file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeSync(fd, serializeSchedule(this.#order));
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.#swapIn(tmp);
  }

  #swapIn(tmp: string): void {
    // rename is atomic: a reader or a crash sees the old file or the new one, never a mix.
    renameSyncDurable(tmp, this.file);
    if (this.#fd !== null) closeSync(this.#fd);
    this.#fd = null;
    this.#lines = this.#byId.size;
    this.#remember();
  }

  #maybeCompact(): void {
    if (this.#compactQueued) return;
    if (this.#lines - this.#byId.size <= Math.max(this.#compactMinGarbage, this.#byId.size)) return;
    this.#compactQueued = true;
    setImmediate(() => {
      this.compact()
        .catch((err: unknown) => this.#log.warn({ err }, 'schedule compaction failed; the journal stays as it is'))
        .finally(() => (this.#compactQueued = false));
    });
  }

  async #compactNow(prune?: (e: StoredNotification) => boolean): Promise<number> {
    const keep = prune ? this.#order.filter((e) => !prune(e)) : this.#order;
    const dropped = this.#order.length - keep.length;
    const tmp = `${this.file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    const handle = await open(tmp, 'w', 0o600);
    try {
      // Chunks keep each synchronous slice short; the lock keeps writers out meanwhile.
      for (let i = 0; i < keep.length; i += 2000) {
        await handle.write(serializeSchedule(keep.slice(i, i + 2000)));
        touchLock(this.#lockDir);
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
    if (dropped) this.#resetIndex(keep);
    if (this.#fd !== null) closeSync(this.#fd);
    this.#fd = null;
    this.#lines = this.#byId.size;
    this.#remember();
    if (dropped) this.#log.info({ dropped, kept: keep.length }, 'schedule compacted; finished entries past retention pruned');
    return dropped;
  }

  // ---- the index ----

  /** The entry a still-valid idempotency key created, if any. */
  #entryForKey(key: string, now: number): StoredNotification | undefined {
    const id = this.#byKey.get(key);
    const e = id === undefined ? undefined : this.#byId.get(id);
    return e?.idempotency?.key === key && e.idempotency.entry === e.id && e.idempotency.until > now ? e : undefined;
  }

  #indexKey(e: StoredNotification): void {
    if (e.idempotency && e.idempotency.entry === e.id) this.#byKey.set(e.idempotency.key, e.id);
  }

  #resetIndex(entries: Iterable<StoredNotification>): void {
    this.#byId.clear();
    this.#byKey.clear();
    this.#stateCounts.clear();
    this.#pending = 0;
    for (const e of entries) {
      this.#byId.set(e.id, e);
      this.#indexKey(e);
      this.#count(e, 1);
    }
    this.#order = [...this.#byId.values()].sort((a, b) => compareOrder(a, b.fire_at_epoch, b.id));
    this.#heap = this.#order.filter((e) => e.state === 'scheduled').sort((a, b) => dueAt(a) - dueAt(b)); // a sorted array is a valid min-heap
  }

  #count(e: StoredNotification, sign: 1 | -1): void {
    this.#stateCounts.set(e.state, (this.#stateCounts.get(e.state) ?? 0) + sign);
    if (isPending(e)) this.#pending += sign;
  }

  #apply(record: StoredNotification): void {
    const previous = this.#byId.get(record.id);
    this.#byId.set(record.id, record);
    this.#indexKey(record);
    if (previous) {
      this.#count(previous, -1);
      const at = this.#indexOf(previous);
      if (at >= 0 && previous.fire_at_epoch === record.fire_at_epoch) this.#order[at] = record;
      else {
        if (at >= 0) this.#order.splice(at, 1);
        this.#order.splice(this.#upperBound(record.fire_at_epoch, record.id), 0, record);
      }
    } else this.#order.splice(this.#upperBound(record.fire_at_epoch, record.id), 0, record);
    this.#count(record, 1);
    if (record.state === 'scheduled') this.#heapPush(record);
    // Stale heap items are skipped lazily; rebuild when they dominate.
    if (this.#heap.length > 2 * (this.#stateCounts.get('scheduled') ?? 0) + 1024) {
      this.#heap = this.#order.filter((e) => e.state === 'scheduled').sort((a, b) => dueAt(a) - dueAt(b));
    }
  }

  /** First index whose (fire, id) is greater than the given key. */
  #upperBound(fire: number, id: string): number {
    let lo = 0;
    let hi = this.#order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareOrder(this.#order[mid]!, fire, id) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #indexOf(e: StoredNotification): number {
    const at = this.#upperBound(e.fire_at_epoch, e.id) - 1;
    return at >= 0 && this.#order[at]!.id === e.id ? at : -1;
  }

  #heapPush(item: StoredNotification): void {
    const heap = this.#heap;
    heap.push(item);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (dueAt(heap[parent]!) <= dueAt(heap[i]!)) break;
      [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
      i = parent;
    }
  }

  #heapPop(): void {
    const heap = this.#heap;
    const last = heap.pop();
    if (!heap.length || !last) return;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < heap.length && dueAt(heap[l]!) < dueAt(heap[min]!)) min = l;
      if (r < heap.length && dueAt(heap[r]!) < dueAt(heap[min]!)) min = r;
      if (min === i) return;
      [heap[min], heap[i]] = [heap[i]!, heap[min]!];
      i = min;
    }
  }
}

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function renameSyncDurable(from: string, to: string): void {
  renameSync(from, to);
  syncDir(path.dirname(to));
}
