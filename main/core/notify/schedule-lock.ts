// Who holds the schedule file's lock, for an error that says so at once. The lock is a symlink
// whose target is the holder's pid; a live holder that keeps it longer than a normal change takes
// (milliseconds) is reported by pid and command line instead of being waited on for half a minute.
import { lstatSync, lutimesSync, mkdirSync, readFileSync, readlinkSync, rmdirSync, symlinkSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { CodedError } from '../contracts/coded-error.ts';

/** How long a change waits for a lock held by a live process before it is refused. Default 2 s. */
export const DEFAULT_LOCK_WAIT_MS = 2000;

export class ScheduleLockedError extends CodedError<'schedule_locked'> {
  readonly lockFile: string;
  readonly holderPid: number | null;
  constructor(lockFile: string, holderPid: number | null, waitedMs: number) {
    const who = holderPid === null ? 'another process' : `process ${holderPid}${describeProcess(holderPid)}`;
    super('schedule_locked', `the schedule file is locked by ${who} (lock ${lockFile}, still held after ${Math.round(waitedMs)} ms); stop that process or wait for it to finish`);
    this.lockFile = lockFile;
    this.holderPid = holderPid;
  }
}

/** The pid a symlink lock names, or null (an older directory lock, or gone). */
export function lockHolderPid(lockFile: string): number | null {
  try {
    const pid = Number(readlinkSync(lockFile));
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** ` (node main/cli.ts schedule …)` from /proc on Linux; empty elsewhere. */
function describeProcess(pid: number): string {
  try {
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ').slice(0, 120);
    return command ? ` (${command})` : '';
  } catch {
    return '';
  }
}

/** Whether a process exists (EPERM: it does, owned by someone else). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function removeLockDir(lockDir: string): void {
  try {
    unlinkSync(lockDir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EISDIR' || code === 'EPERM') rmdirSync(lockDir); // an older writer's directory lock, taken over
    else if (code !== 'ENOENT') throw err;
  }
}

/** Keep a lock fresh during a long compaction (best effort). */
export function touchLock(lockDir: string): void {
  try {
    const now = new Date();
    lutimesSync(lockDir, now, now);
  } catch {
    // best effort: a long compaction keeps its lock fresh
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface LockTiming {
  /** A lock whose holder is alive but has not finished after this long is taken over. */
  staleMs: number;
  /** A lock held by a live process longer than this refuses the change (ScheduleLockedError). */
  waitMs: number;
}

/**
 * Take the cross-process lock `lockFile` (beside the schedule file): a symlink whose target is our
 * pid, made in one atomic syscall (readlink tells who holds it). A lock whose process is gone, or
 * older than `staleMs`, is taken over at once; a live holder is waited for up to `waitMs`.
 */
export async function acquireScheduleLock(lockFile: string, timing: LockTiming, log: Logger): Promise<void> {
  mkdirSync(path.dirname(lockFile), { recursive: true, mode: 0o700 });
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      symlinkSync(String(process.pid), lockFile);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (lockAbandoned(lockFile, timing.staleMs)) {
      log.warn({ lock: lockFile }, 'schedule file lock left by a stopped process; taking it over');
      removeLockDir(lockFile);
      continue;
    }
    if (Date.now() - started > timing.waitMs) throw new ScheduleLockedError(lockFile, lockHolderPid(lockFile), Date.now() - started);
    await sleep(Math.min(2 * 2 ** attempt, 50));
  }
}

function lockAbandoned(lockFile: string, staleMs: number): boolean {
  try {
    const stat = lstatSync(lockFile);
    let pid = NaN;
    try {
      pid = Number(readlinkSync(lockFile));
    } catch {
      // A directory: an older writer's lock (proper-lockfile); judged by its age.
    }
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !pidAlive(pid)) return true;
    return Date.now() - stat.mtimeMs > staleMs;
  } catch {
    return false; // gone already: the next attempt decides
  }
}
