// Reminders across the day soak's kill -9 (issue #55 item 5: "the schedule delivers what was due
// exactly once across a restart"). Right before the kill the soak schedules one reminder per mode
// due while the core is down and one per mode due just after it is back (killGapPlan); the restart
// waits until the last of the first kind is due, so they fall due in the gap whatever the machine's
// speed (a restart that takes a couple of seconds, as a person or a service manager restarting it
// does). Afterwards every reminder of the run is classed by when it actually fell due (killGapTally):
// while the core was down (the kill → the restarted core's sidecar answered), or in the half minute
// after, and counted at the receivers as exactly once.
import type { ReminderMode } from './soak-day-load.ts';

export type KillWindow = 'killGap' | 'afterRestart';

export interface PlannedReminder {
  tag: string;
  mode: ReminderMode;
  window: KillWindow;
  /** Due this long after it is scheduled (the kill follows the scheduling at once). */
  offsetMs: number;
}

/**
 * Due 0.5-2 s after the kill: the killed core armed their timers and never fired them. Voice first,
 * so that it is the oldest overdue entry the restarted core finds (no call yet: it goes by DM
 * instead, which its outcome says).
 */
const KILL_GAP_MS: Record<ReminderMode, number> = { voice: 500, dm: 1000, channel: 1500, webhook: 2000 };
/**
 * Due 10-20 s after the kill: the core back (its sidecar answers ~2-5 s after its start) and the call
 * rejoining or back (run 6 had the model socket again 11.9 s after the kill). Voice last, so that it
 * is most likely spoken in the call itself.
 */
const AFTER_RESTART_MS: Record<ReminderMode, number> = { dm: 10_000, channel: 13_000, webhook: 16_000, voice: 20_000 };
/** The restart waits this long after the last kill-gap reminder is due. */
export const RESTART_AFTER_LAST_DUE_MS = 500;
/** "Just after the restart": due within this long of the restarted core's sidecar answering. */
export const AFTER_RESTART_WINDOW_MS = 30_000;

/** One reminder per mode due in the kill gap, one per mode due just after the restart; tags soakday-k0… */
export function killGapPlan(): PlannedReminder[] {
  const plan = (window: KillWindow, offsets: Record<ReminderMode, number>) =>
    Object.entries(offsets).map(([mode, offsetMs]) => ({ mode: mode as ReminderMode, window, offsetMs }));
  return [...plan('killGap', KILL_GAP_MS), ...plan('afterRestart', AFTER_RESTART_MS)].map((r, i) => ({
    ...r,
    tag: `soakday-k${i}`,
  }));
}

/** When the restart may begin (Date.now()): once the last kill-gap reminder of those scheduled is due. */
export function restartNotBefore(scheduled: readonly { window?: KillWindow; dueAt: number }[]): number {
  const gap = scheduled.filter((r) => r.window === 'killGap').map((r) => r.dueAt);
  return gap.length ? Math.max(...gap) + RESTART_AFTER_LAST_DUE_MS : 0;
}

/** Date.now() of the kill, of the restarted core's sidecar answering, and of the call's model socket again. */
export interface KillTimes {
  at: number;
  upAt: number | null;
  backAt: number | null;
}

/** An accepted reminder as counted at the receivers (`instead`: a voice reminder that went by DM, channel or webhook). */
export interface CountedReminder {
  tag: string;
  mode: ReminderMode;
  dueAt: number;
  count: number;
  instead: number;
  window?: KillWindow;
}

export interface KillGapCounts {
  due: number;
  delivered: number;
  lost: number;
  duplicated: number;
}

const counts = (list: readonly CountedReminder[]): KillGapCounts => ({
  due: list.length,
  delivered: list.filter((d) => d.count > 0).length,
  lost: list.filter((d) => d.count === 0).length,
  duplicated: list.reduce((n, d) => n + Math.max(0, d.count - 1), 0),
});

/**
 * Every accepted reminder (planned or not) classed by when it fell due: `inKillGap` from the kill
 * until the restarted core answered (a restart that never answered: from the kill on), `afterRestart`
 * in the AFTER_RESTART_WINDOW_MS after that. Per mode too, so a mode missing from either is seen.
 */
export function killGapTally(kill: KillTimes, deliveries: readonly CountedReminder[]) {
  const up = kill.upAt ?? Infinity;
  const inGap = deliveries.filter((d) => d.dueAt >= kill.at && d.dueAt < up);
  const after = deliveries.filter((d) => d.dueAt >= up && d.dueAt < up + AFTER_RESTART_WINDOW_MS);
  const byMode = (list: readonly CountedReminder[]) =>
    Object.fromEntries(
      (['voice', 'dm', 'channel', 'webhook'] as const).map((mode) => [
        mode,
        counts(list.filter((d) => d.mode === mode)),
      ]),
    );
  const fellDue = (d: CountedReminder): string =>
    d.dueAt < kill.at
      ? 'before the kill'
      : d.dueAt < up
        ? 'while the core was down'
        : kill.backAt === null || d.dueAt < kill.backAt
          ? 'core back, call rejoining'
          : 'call back';
  return {
    inKillGap: { ...counts(inGap), byMode: byMode(inGap) },
    afterRestart: { ...counts(after), byMode: byMode(after) },
    planned: deliveries
      .filter((d) => d.window)
      .map((d) => ({
        tag: d.tag,
        mode: d.mode,
        planned: d.window!,
        fellDue: fellDue(d),
        dueAfterKillS: Math.round((d.dueAt - kill.at) / 100) / 10,
        received: d.count,
        sentInstead: d.instead > 0,
      })),
  };
}
