// The schedule file: `<agent home>/voice-users/notifications-schedule.jsonl`, one JSON record per
// line. Crash safety comes from three rules:
//   1. every change rewrites the whole file through a temp file + fsync + rename (+ directory
//      fsync), so a reader or a crash sees either the old or the new file, never half of one;
//   2. read-modify-write runs under an in-process mutex AND a cross-process lock (proper-lockfile,
//      `<file>.lock`), so the app, the headless bridge and the CLI can share the file;
//   3. reading tolerates damage from anything else (an older writer, a full disk, a hand edit): a
//      torn last line is ignored, other bad lines are set aside in `<file>.rejected`, and the next
//      write (or `repair()`) leaves a clean file. If an id appears twice, the last line wins.
import { randomBytes } from 'node:crypto';
import { appendFile, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import type { Logger } from 'pino';
import { z } from 'zod';
import { NOTIFY_MODES, type ScheduledNotification } from '../api-types.ts';

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
  state: z.enum(['scheduled', 'delivering', 'delivered', 'failed', 'cancelled']),
  attempts: z.number().int().min(0),
  last_error: z.string().optional(),
  delivered_at: z.number().optional(),
  /** Epoch seconds of the last state change (pruning clock). */
  updated_at: z.number().optional(),
  /** After a failed attempt: when the next one is due (fire_at_epoch stays the original time). */
  next_attempt_at: z.number().optional(),
  claim: claimSchema.optional(),
});

export type StoredNotification = z.infer<typeof storedNotificationSchema> & ScheduledNotification;

export interface ReadResult {
  entries: StoredNotification[];
  /** Lines that were ignored (torn tail or invalid); the next write drops them from the file. */
  damaged: number;
}

/** Parse file text. Never throws: damage is counted and returned separately. */
export function parseScheduleText(text: string): ReadResult & { rejectedLines: string[] } {
  const lines = text.split('\n');
  const endsClean = text === '' || text.endsWith('\n');
  const byId = new Map<string, StoredNotification>();
  const rejectedLines: string[] = [];
  let damaged = 0;
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const isTail = index === lines.length - 1 && !endsClean;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      json = undefined;
    }
    const parsed = storedNotificationSchema.safeParse(json);
    if (parsed.success) {
      byId.delete(parsed.data.id); // re-insert so order follows the last occurrence
      byId.set(parsed.data.id, parsed.data);
      return;
    }
    damaged++;
    // A torn tail is an unfinished write: nothing to keep. Anything else is set aside for a human.
    if (!isTail) rejectedLines.push(line);
  });
  return { entries: [...byId.values()], damaged, rejectedLines };
}

export function serializeSchedule(entries: readonly StoredNotification[]): string {
  return entries.map((e) => JSON.stringify(e)).join('\n') + (entries.length ? '\n' : '');
}

export interface ScheduleStoreOptions {
  file: string;
  logger: Logger;
  /** A lock older than this is taken over (its holder died). proper-lockfile's minimum is 2000. */
  lockStaleMs?: number;
}

export class ScheduleStore {
  readonly file: string;
  readonly #log: Logger;
  readonly #lockStaleMs: number;
  #mutex: Promise<unknown> = Promise.resolve();

  constructor(options: ScheduleStoreOptions) {
    this.file = options.file;
    this.#log = options.logger;
    this.#lockStaleMs = Math.max(2000, options.lockStaleMs ?? 3000);
  }

  /** Lock-free read: rewrites are atomic renames, so a reader always sees one whole version. */
  async read(): Promise<ReadResult> {
    const { entries, damaged } = await this.#readRaw();
    return { entries, damaged };
  }

  /**
   * Read-modify-write under both locks. `change` mutates the array in place (or returns a new one)
   * and returns a value; the file is rewritten when `change` reports a change or damage was found.
   */
  update<T>(change: (entries: StoredNotification[]) => { changed: boolean; value: T; entries?: StoredNotification[] }): Promise<T> {
    const run = this.#mutex.then(() => this.#withFileLock(async () => {
      const { entries, damaged, rejectedLines } = await this.#readRaw();
      const outcome = change(entries);
      if (rejectedLines.length) await this.#setAside(rejectedLines);
      if (outcome.changed || damaged > 0) {
        if (damaged > 0) this.#log.warn({ damaged, file: this.file }, 'schedule file had damaged lines; rewriting it clean');
        await this.#writeAtomic(outcome.entries ?? entries);
      }
      return outcome.value;
    }));
    this.#mutex = run.catch(() => undefined);
    return run;
  }

  async #readRaw(): Promise<ReturnType<typeof parseScheduleText>> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], damaged: 0, rejectedLines: [] };
      throw err;
    }
    return parseScheduleText(text);
  }

  async #withFileLock<T>(fn: () => Promise<T>): Promise<T> {
    await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const release = await lockfile.lock(this.file, {
      realpath: false,
      lockfilePath: `${this.file}.lock`,
      stale: this.#lockStaleMs,
      retries: { retries: 60, factor: 1.3, minTimeout: 10, maxTimeout: 250 },
      onCompromised: (err) => this.#log.warn({ err }, 'schedule file lock was taken over'),
    });
    try {
      return await fn();
    } finally {
      await release().catch((err: unknown) => this.#log.warn({ err }, 'schedule file lock release failed'));
    }
  }

  async #writeAtomic(entries: readonly StoredNotification[]): Promise<void> {
    const tmp = `${this.file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    const handle = await open(tmp, 'w', 0o600);
    try {
      await handle.writeFile(serializeSchedule(entries), 'utf8');
      await handle.sync();
    } catch (err) {
      await handle.close();
      await rm(tmp, { force: true });
      throw err;
    }
    await handle.close();
    await rename(tmp, this.file);
    // Make the rename itself durable.
    const dir = await open(path.dirname(this.file), 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }

  async #setAside(lines: string[]): Promise<void> {
    await appendFile(`${this.file}.rejected`, lines.join('\n') + '\n', { mode: 0o600 });
  }
}
