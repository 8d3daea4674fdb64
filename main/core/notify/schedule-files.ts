// Durable file steps of the schedule store's rewrites: a temp file beside the schedule, written and
// fdatasync'd, renamed over it (atomic: a reader or a crash sees the old file or the new one, never a
// mix) and the directory fsync'd; and the clean-up of temp files a killed rewrite left behind.
import { randomBytes } from 'node:crypto';
import { closeSync, fdatasyncSync, fsyncSync, lstatSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { pidAlive } from './schedule-lock.ts';

/** A rewrite temp file this old is abandoned even if the pid in its name is alive (pid reuse). */
const STALE_TEMP_MS = 3600_000;

/** `<file>.tmp-<pid>-<hex>`: a fresh temp file name for a rewrite of `file`. */
export function rewriteTempPath(file: string): string {
  return `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
}

export function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Write `text` to a temp file, fdatasync it and rename it over `file` durably (small rewrites only). */
export function replaceFileSync(file: string, text: string): void {
  const tmp = rewriteTempPath(file);
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, text);
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  syncDir(path.dirname(file));
}

/**
 * Temp files of a rewrite that never finished (`<file>.tmp-<pid>-<hex>`: the process was killed
 * mid-compaction) are removed when the store opens. The caller holds the lock, and a rewrite runs
 * under it, so no live rewrite is writing one now; still, a file is only removed when the pid in its
 * name is gone, or is alive but the file is older than an hour (the pid was reused) — never a fresh
 * one of a live process.
 */
export function removeStaleTemps(file: string, log: Logger): void {
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.tmp-`;
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
      const stale = !pidAlive(Number(m[1])) || Date.now() - st.mtimeMs > STALE_TEMP_MS;
      if (!stale) continue;
      unlinkSync(full);
      removed++;
      bytes += st.size;
    } catch (err) {
      log.warn({ err, file: full }, 'could not remove a stale schedule temp file');
    }
  }
  if (removed) log.info({ removed, bytes }, 'removed temp files of an interrupted schedule rewrite');
}
