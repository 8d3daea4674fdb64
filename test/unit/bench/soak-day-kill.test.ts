// The day soak's reminders across its kill -9 (bench/lib/soak-day-kill.ts, issue #55 item 5): the
// plan puts one reminder per mode in the gap and one per mode just after the restart, the restart
// waits for the gap's to be due, and the tally classes every reminder by when it actually fell due
// and counts a loss or a repeat at the receivers where it happened; words the killed core still held
// are told apart from the running core's losses (heldAtKill, bench/lib/soak-call.ts).
import { describe, expect, it } from 'vitest';
import {
  AFTER_RESTART_WINDOW_MS,
  killGapPlan,
  killGapTally,
  RESTART_AFTER_LAST_DUE_MS,
  restartNotBefore,
  type CountedReminder,
} from '../../../bench/lib/soak-day-kill.ts';
import { firstAudioHeard, heldAtKill } from '../../../bench/lib/soak-call.ts';
import { REMINDER_MODES } from '../../../bench/lib/soak-day-load.ts';

describe('killGapPlan', () => {
  const plan = killGapPlan();

  it('one reminder per mode due in the gap and one per mode due after the restart, with their own tags', () => {
    for (const window of ['killGap', 'afterRestart'] as const)
      expect(
        plan
          .filter((r) => r.window === window)
          .map((r) => r.mode)
          .sort(),
      ).toEqual([...REMINDER_MODES].sort());
    expect(new Set(plan.map((r) => r.tag)).size).toBe(plan.length);
    // The receivers count soakday-r<n> and soakday-k<n> tags; the regular reminders use the r ones.
    for (const r of plan) expect(r.tag).toMatch(/^soakday-k\d+$/);
  });

  it('every gap reminder falls due before any after-restart one, all within the after-restart window', () => {
    const gap = plan.filter((r) => r.window === 'killGap').map((r) => r.offsetMs);
    const after = plan.filter((r) => r.window === 'afterRestart').map((r) => r.offsetMs);
    expect(Math.min(...gap)).toBeGreaterThan(0);
    expect(Math.max(...gap) + RESTART_AFTER_LAST_DUE_MS).toBeLessThan(Math.min(...after));
    expect(Math.max(...after)).toBeLessThan(AFTER_RESTART_WINDOW_MS);
  });
});

describe('restartNotBefore', () => {
  it('waits for the last gap reminder scheduled, not for the after-restart ones', () => {
    const scheduled = [
      { window: 'killGap' as const, dueAt: 1500 },
      { window: 'killGap' as const, dueAt: 3000 },
      { window: 'afterRestart' as const, dueAt: 20_000 },
      { dueAt: 40_000 },
    ];
    expect(restartNotBefore(scheduled)).toBe(3000 + RESTART_AFTER_LAST_DUE_MS);
  });

  it('restarts at once when no gap reminder was accepted', () => {
    expect(restartNotBefore([{ window: 'afterRestart', dueAt: 20_000 }])).toBe(0);
  });
});

describe('killGapTally', () => {
  const at = 1_000_000;
  const kill = { at, upAt: at + 4000, backAt: at + 12_000 };
  const reminder = (tag: string, over: Partial<CountedReminder>): CountedReminder => ({
    tag,
    mode: 'dm',
    dueAt: at,
    count: 1,
    instead: 0,
    ...over,
  });
  const deliveries = [
    reminder('soakday-r3', { dueAt: at - 2000 }), // the killed core's, before the kill
    reminder('soakday-k0', { mode: 'voice', dueAt: at + 500, window: 'killGap', instead: 1 }),
    reminder('soakday-k1', { dueAt: at + 1000, window: 'killGap' }),
    reminder('soakday-k2', { mode: 'channel', dueAt: at + 1500, window: 'killGap', count: 0 }),
    reminder('soakday-k3', { mode: 'webhook', dueAt: at + 2000, window: 'killGap', count: 2 }),
    reminder('soakday-r4', { mode: 'webhook', dueAt: at + 3000 }), // a regular one that fell in the gap
    reminder('soakday-k4', { dueAt: at + 10_000, window: 'afterRestart' }),
    reminder('soakday-k7', { mode: 'voice', dueAt: at + 20_000, window: 'afterRestart' }),
    reminder('soakday-r5', { dueAt: kill.upAt + AFTER_RESTART_WINDOW_MS + 1 }), // long after
  ];

  it('counts what fell due while the core was down, and after, at the receivers: lost and repeated ones too', () => {
    const tally = killGapTally(kill, deliveries);
    expect(tally.inKillGap).toMatchObject({ due: 5, delivered: 4, lost: 1, duplicated: 1 });
    expect(tally.inKillGap.byMode).toEqual({
      voice: { due: 1, delivered: 1, lost: 0, duplicated: 0 },
      dm: { due: 1, delivered: 1, lost: 0, duplicated: 0 },
      channel: { due: 1, delivered: 0, lost: 1, duplicated: 0 },
      webhook: { due: 2, delivered: 2, lost: 0, duplicated: 1 },
    });
    expect(tally.afterRestart).toMatchObject({ due: 2, delivered: 2, lost: 0, duplicated: 0 });
    expect(tally.afterRestart.byMode.channel.due).toBe(0);
  });

  it('says for each planned reminder when it fell due, relative to the restart and the call', () => {
    const planned = killGapTally(kill, deliveries).planned;
    expect(planned.map((p) => [p.tag, p.fellDue, p.dueAfterKillS])).toEqual([
      ['soakday-k0', 'while the core was down', 0.5],
      ['soakday-k1', 'while the core was down', 1],
      ['soakday-k2', 'while the core was down', 1.5],
      ['soakday-k3', 'while the core was down', 2],
      ['soakday-k4', 'core back, call rejoining', 10],
      ['soakday-k7', 'call back', 20],
    ]);
    expect(planned[0]).toMatchObject({ sentInstead: true, received: 1 });
  });

  it('a restart that never answered: everything due from the kill on counts as due while the core was down', () => {
    const tally = killGapTally({ at, upAt: null, backAt: null }, deliveries);
    expect(tally.inKillGap.due).toBe(8);
    expect(tally.afterRestart.due).toBe(0);
  });
});

describe('heldAtKill', () => {
  // Utterances 0-5 said 10 s apart, the kill at 55 s: 0-2 heard before it, 3 and 4 said and never
  // heard (held in the killed core), 5 said after the restart and lost for some other reason.
  const at = [0, 10_000, 20_000, 30_000, 40_000, 60_000];
  const replies = [
    { k: 0, at: 2000 },
    { k: 1, at: 12_000 },
    { k: 2, at: 50_000 }, // handed over late, after the outage
  ];
  const heard = [true, true, true, false, false, false];

  it('marks the unheard words said after the last one heard before the kill, not those after it', () => {
    expect(heldAtKill(at, replies, heard, 55_000)).toEqual([false, false, false, true, true, false]);
  });

  it('a word lost before a later one was heard was lost by the running core, not the kill', () => {
    const without1 = [replies[0]!, replies[2]!];
    expect(heldAtKill(at, without1, [true, false, true, false, false, false], 55_000)).toEqual([
      false,
      false,
      false,
      true,
      true,
      false,
    ]);
  });

  it('only what the model heard before the kill counts: a reply after it does not move the line', () => {
    const late = [replies[0]!, replies[1]!, { k: 2, at: 56_000 }];
    expect(heldAtKill(at, late, [true, true, false, false, false, false], 55_000)).toEqual([
      false,
      false,
      true,
      true,
      true,
      false,
    ]);
  });
});

describe('firstAudioHeard', () => {
  it('a reply whose first audio came after its socket stalled spoke to nobody (not a second reply)', () => {
    expect(firstAudioHeard(1000, undefined)).toBe(true);
    expect(firstAudioHeard(1000, 1500)).toBe(true);
    expect(firstAudioHeard(1500, 1000)).toBe(false);
    expect(firstAudioHeard(null, undefined)).toBe(false);
  });
});
