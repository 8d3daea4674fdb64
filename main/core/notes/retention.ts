// Retention for what grows with use: call notes in the database (kept N days and at most M MB,
// oldest deleted first, from every table and the index: notes-store.ts `pruneNotes`), the
// schedule's `.rejected` lines and delegate logs (kept N days; `.rejected` also cut to its newest
// part beyond a size bound). Runs at start-up and daily, then backs the database up; never touches
// the call in progress.
import { closeSync, openSync, readdirSync, readSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const DEFAULT_NOTES_RETENTION_DAYS = 90;
export const DEFAULT_NOTES_MAX_MB = 500;
/** `.rejected` is for a human to look at: its newest 5 MB are plenty. */
export const REJECTED_MAX_BYTES = 5 * 1024 * 1024;

export interface PruneResult {
  deleted: string[];
  /** Bytes left in the folder's matching files. */
  bytes: number;
}

interface FileInfo {
  name: string;
  file: string;
  size: number;
  mtimeMs: number;
}

function listFiles(dir: string, suffix: string): FileInfo[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: FileInfo[] = [];
  for (const name of names) {
    if (!name.endsWith(suffix)) continue;
    const file = path.join(dir, name);
    try {
      const st = statSync(file);
      if (st.isFile()) out.push({ name, file, size: st.size, mtimeMs: st.mtimeMs });
    } catch {
      // vanished meanwhile
    }
  }
  return out;
}

function remove(file: string): boolean {
  try {
    unlinkSync(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Delete `*<suffix>` files in `dir` last written more than `maxAgeDays` ago, then the oldest ones
 * until the rest fit in `maxBytes`. `keep` protects files in use (the current call).
 */
export function pruneFolder(
  dir: string,
  options: { suffix: string; maxAgeDays: number; maxBytes?: number; nowMs?: number; keep?: (file: string) => boolean },
): PruneResult {
  const now = options.nowMs ?? Date.now();
  const cutoff = now - options.maxAgeDays * 86_400_000;
  const keep = options.keep ?? (() => false);
  const deleted: string[] = [];
  const left: FileInfo[] = [];
  for (const f of listFiles(dir, options.suffix)) {
    if (f.mtimeMs < cutoff && !keep(f.file) && remove(f.file)) deleted.push(f.name);
    else left.push(f);
  }
  let bytes = left.reduce((sum, f) => sum + f.size, 0);
  if (options.maxBytes !== undefined && bytes > options.maxBytes) {
    left.sort((a, b) => a.mtimeMs - b.mtimeMs);
    for (const f of left) {
      if (bytes <= options.maxBytes) break;
      if (keep(f.file) || !remove(f.file)) continue;
      deleted.push(f.name);
      bytes -= f.size;
    }
  }
  return { deleted, bytes };
}

/** A single append-only file: deleted when untouched for `maxAgeDays`, else cut to its newest `maxBytes` (whole lines). */
export function pruneAppendLog(
  file: string,
  options: { maxAgeDays: number; maxBytes: number; nowMs?: number },
): 'deleted' | 'trimmed' | 'kept' {
  let st;
  try {
    st = statSync(file);
  } catch {
    return 'kept';
  }
  if (st.mtimeMs < (options.nowMs ?? Date.now()) - options.maxAgeDays * 86_400_000)
    return remove(file) ? 'deleted' : 'kept';
  if (st.size <= options.maxBytes) return 'kept';
  const fd = openSync(file, 'r');
  const tail = Buffer.alloc(options.maxBytes);
  try {
    readSync(fd, tail, 0, options.maxBytes, st.size - options.maxBytes);
  } finally {
    closeSync(fd);
  }
  const firstNl = tail.indexOf(0x0a);
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, tail.subarray(firstNl + 1), { mode: 0o600 });
  renameSync(tmp, file);
  return 'trimmed';
}

export interface RetentionPlan {
  maxAgeDays: number;
  /** Prune the notes (the call in progress is kept): notes-store.ts `pruneNotes`. */
  pruneNotes: (maxAgeDays: number) => { callsDeleted: number; notesDeleted: number; bytes: number };
  /** Copy the database to its backup after the pass (database.ts `backup`). */
  backup?: () => Promise<void>;
  /** The schedule file; its `.rejected` sibling is pruned. */
  scheduleFile: string;
  delegateLogDir: string;
  /** Forget finished delegate sessions older than this many seconds. */
  pruneDelegates?: (maxAgeSeconds: number) => number;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

/** Prune now, then daily. Returns a stop function. */
export function startRetention(plan: RetentionPlan): () => void {
  const run = (): void => {
    try {
      const notes = plan.pruneNotes(plan.maxAgeDays);
      const rejected = pruneAppendLog(`${plan.scheduleFile}.rejected`, {
        maxAgeDays: plan.maxAgeDays,
        maxBytes: REJECTED_MAX_BYTES,
      });
      const delegateLogs = pruneFolder(plan.delegateLogDir, { suffix: '.log', maxAgeDays: plan.maxAgeDays });
      const sessions = plan.pruneDelegates?.(plan.maxAgeDays * 86_400) ?? 0;
      if (notes.callsDeleted || rejected !== 'kept' || delegateLogs.deleted.length || sessions) {
        plan.log.info(
          {
            callsDeleted: notes.callsDeleted,
            notesDeleted: notes.notesDeleted,
            notesBytes: notes.bytes,
            rejected,
            delegateLogsDeleted: delegateLogs.deleted.length,
            delegateSessionsForgotten: sessions,
          },
          'retention: pruned old data',
        );
      }
    } catch (err) {
      plan.log.warn({ err }, 'retention pass failed; will try again tomorrow');
    }
    plan.backup?.().catch((err: unknown) => plan.log.warn({ err }, 'database backup failed; will try again tomorrow'));
  };
  run();
  const timer = setInterval(run, 86_400_000);
  timer.unref();
  return () => clearInterval(timer);
}
