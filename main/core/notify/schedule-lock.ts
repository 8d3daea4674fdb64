// Who holds the schedule file's lock, for an error that says so at once. The lock is a symlink
// whose target is the holder's pid; a live holder that keeps it longer than a normal change takes
// (milliseconds) is reported by pid and command line instead of being waited on for half a minute.
import { lutimesSync, readFileSync, readlinkSync, rmdirSync, unlinkSync } from 'node:fs';

/** How long a change waits for a lock held by a live process before it is refused. Default 2 s. */
export const DEFAULT_LOCK_WAIT_MS = 2000;

export class ScheduleLockedError extends Error {
  readonly code = 'schedule_locked';
  readonly lockFile: string;
  readonly holderPid: number | null;
  constructor(lockFile: string, holderPid: number | null, waitedMs: number) {
    const who = holderPid === null ? 'another process' : `process ${holderPid}${describeProcess(holderPid)}`;
    super(`the schedule file is locked by ${who} (lock ${lockFile}, still held after ${Math.round(waitedMs)} ms); stop that process or wait for it to finish`);
    this.name = 'ScheduleLockedError';
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
