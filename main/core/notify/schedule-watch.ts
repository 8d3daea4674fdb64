// How an idle schedule store notices other processes' commits (the app, the headless runner and the
// CLI share the database): fs.watch on the folder for the database's files (a commit writes the
// `-wal`), plus a cheap periodic check (one row read: the schedule's change counter) as a safety net
// for the odd filesystem whose watch stays silent, or as the only check where fs.watch is
// unavailable. A change seen either way is handed to `refresh` once, shortly after (commits come in
// bursts); a commit that did not touch the schedule (the notes) costs that one row read.
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';

/** External-change check without a working fs.watch. */
export const FALLBACK_STAT_MS = 2000;
/** External-change check beside a working fs.watch (a safety net): an idle store wakes once a minute. */
export const WATCHED_STAT_MS = 60_000;

export interface ScheduleWatchOptions {
  /** The database file (its `-wal` and `-shm` beside it count too). */
  file: string;
  log: Logger;
  /** Given: the check interval whatever fs.watch does; default FALLBACK_STAT_MS or WATCHED_STAT_MS. */
  statIntervalMs?: number;
  /** Whether the schedule is as the store last read or wrote it (its change counter). */
  unchanged: () => boolean;
  /** Read the other processes' changes in. */
  refresh: () => Promise<void>;
}

export class ScheduleFileWatch {
  readonly #o: ScheduleWatchOptions;
  #watcher: FSWatcher | null = null;
  #statTimer: NodeJS.Timeout | null = null;
  #refreshTimer: NodeJS.Timeout | null = null;

  constructor(options: ScheduleWatchOptions) {
    this.#o = options;
  }

  start(): void {
    if (this.#watcher || this.#statTimer) return;
    const { file, log, statIntervalMs } = this.#o;
    const base = path.basename(file);
    try {
      this.#watcher = watch(path.dirname(file), { persistent: false }, (_event, name) => {
        if (name === null || name.startsWith(base)) this.#queueRefresh(50);
      });
      this.#watcher.on('error', (err) => {
        log.debug({ err }, 'schedule folder watch failed; checking every 2 s instead');
        this.#watcher?.close();
        this.#watcher = null;
        this.#startStatTimer(statIntervalMs ?? FALLBACK_STAT_MS);
      });
    } catch (err) {
      log.debug({ err }, 'fs.watch unavailable; checking every 2 s instead');
      this.#watcher = null;
    }
    this.#startStatTimer(statIntervalMs ?? (this.#watcher ? WATCHED_STAT_MS : FALLBACK_STAT_MS));
  }

  close(): void {
    this.#watcher?.close();
    this.#watcher = null;
    if (this.#statTimer) clearInterval(this.#statTimer);
    if (this.#refreshTimer) clearTimeout(this.#refreshTimer);
    this.#statTimer = this.#refreshTimer = null;
  }

  #startStatTimer(intervalMs: number): void {
    if (this.#statTimer) clearInterval(this.#statTimer);
    this.#statTimer = setInterval(() => {
      if (!this.#o.unchanged()) this.#queueRefresh(0);
    }, intervalMs);
    this.#statTimer.unref();
  }

  #queueRefresh(delayMs: number): void {
    if (this.#refreshTimer) return;
    this.#refreshTimer = setTimeout(() => {
      this.#refreshTimer = null;
      if (this.#o.unchanged()) return;
      this.#o
        .refresh()
        .catch((err: unknown) => this.#o.log.warn({ err }, "reading other processes' schedule changes failed"));
    }, delayMs);
    this.#refreshTimer.unref();
  }
}
