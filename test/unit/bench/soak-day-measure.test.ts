// The day soak's verdicts (bench/lib/soak-day-measure.ts): a leak it is meant to catch must fail
// the check, a flat run must pass it, and the per-window rows must count what happened in them.
import { describe, expect, it } from 'vitest';
import {
  dayWindows,
  flatChecks,
  rssSlopeMbPerHour,
  type DaySample,
  type QuietPoint,
} from '../../../bench/lib/soak-day-measure.ts';

const MIN = 60_000;

function sample(t: number, over: Partial<DaySample> = {}): DaySample {
  return {
    t,
    cpuMs: t / 100,
    rssMb: 150,
    heapMb: 40,
    fds: 30,
    activeResources: 20,
    activeByKind: { Timeout: 5 },
    children: 0,
    healthRoundTripMs: 2,
    modelSocketsOpen: 1,
    ...over,
  };
}

/** A quiet point: a sample, and the soak's own client connections into the sidecar then. */
const quietAt = (t: number, over: Partial<DaySample> = {}, sidecarClients = 0): QuietPoint => ({
  ...sample(t, over),
  sidecarClients,
});

const series = (minutes: number, over: (t: number) => Partial<DaySample> = () => ({})): DaySample[] =>
  Array.from({ length: (minutes * MIN) / 5000 + 1 }, (_, i) => sample(i * 5000, over(i * 5000)));

describe('day soak flat checks', () => {
  it('passes a flat run: RSS level, the same fds and resources at every quiet point, CPU steady', () => {
    const samples = series(30);
    const windows = dayWindows(samples, [], [], 0, 10 * MIN);
    const flat = flatChecks(samples, [quietAt(5 * MIN), quietAt(15 * MIN), quietAt(25 * MIN)], windows, 10 * MIN);
    expect(windows).toHaveLength(3);
    expect(windows.map((w) => w.cpuPercent)).toEqual([1, 1, 1]);
    expect(flat.rss).toMatchObject({ pass: true, rssGrowthMbPerHour: 0 });
    expect(flat.fds.pass && flat.activeResources.pass && flat.cpu.pass).toBe(true);
  });

  it('fails RSS growing 12 MB per hour after the first window', () => {
    const samples = series(30, (t) => ({ rssMb: 150 + (12 * t) / (60 * MIN) }));
    expect(rssSlopeMbPerHour(samples, 10 * MIN)).toBeCloseTo(12, 1);
    expect(flatChecks(samples, [], dayWindows(samples, [], [], 0, 10 * MIN), 10 * MIN).rss.pass).toBe(false);
  });

  it("beside the verdict, each process's second half: a warm-up that levels off reads flat there, a leak does not", () => {
    // 12 MB over the first 25 minutes, then level, in a 60-minute run.
    const warmUp = series(60, (t) => ({ rssMb: 150 + 12 * Math.min(1, t / (25 * MIN)) }));
    const warm = flatChecks(warmUp, [], dayWindows(warmUp, [], [], 0, 10 * MIN), 10 * MIN).rss;
    expect(warm.pass).toBe(false);
    expect(warm.lastHalfMbPerHour).toBeCloseTo(0, 5);
    const leak = series(60, (t) => ({ rssMb: 150 + (12 * t) / (60 * MIN) }));
    const leaking = flatChecks(leak, [], dayWindows(leak, [], [], 0, 10 * MIN), 10 * MIN).rss;
    expect(leaking.lastHalfMbPerHour).toBeCloseTo(12, 1);
    expect(leaking.byProcess).toEqual([
      {
        pid: undefined,
        minutes: expect.any(Number),
        afterFirstWindow: leaking.rssGrowthMbPerHour,
        lastHalf: leaking.lastHalfMbPerHour,
      },
    ]);
  });

  it('fails one more fd, or one more timer, at a later quiet point', () => {
    const samples = series(30);
    const windows = dayWindows(samples, [], [], 0, 10 * MIN);
    expect(flatChecks(samples, [quietAt(5 * MIN), quietAt(15 * MIN, { fds: 31 })], windows, 10 * MIN).fds).toEqual({
      pass: false,
      atQuietPoints: [29, 30],
      sidecarClientsAtQuietPoints: [0, 0],
      modelSocketsAtQuietPoints: [1, 1],
    });
    expect(
      flatChecks(samples, [quietAt(5 * MIN), quietAt(15 * MIN, { activeResources: 21 })], windows, 10 * MIN)
        .activeResources.pass,
    ).toBe(false);
  });

  it('counts the core’s own fds: a client’s connection into the sidecar is not the core’s, one more of its own is', () => {
    const samples = series(30);
    const windows = dayWindows(samples, [], [], 0, 10 * MIN);
    // The MCP agent's session and the /events stream open at one quiet point, one of them at the next.
    const clients = [
      quietAt(5 * MIN, { fds: 32, activeResources: 22 }, 2),
      quietAt(15 * MIN, { fds: 31, activeResources: 21 }, 1),
    ];
    const flat = flatChecks(samples, clients, windows, 10 * MIN);
    expect(flat.fds).toEqual({
      pass: true,
      atQuietPoints: [29, 29],
      sidecarClientsAtQuietPoints: [2, 1],
      modelSocketsAtQuietPoints: [1, 1],
    });
    expect(flat.activeResources).toMatchObject({ pass: true, atQuietPoints: [19, 19] });
    const leak = [clients[0]!, quietAt(15 * MIN, { fds: 32, activeResources: 22 }, 1)];
    expect(flatChecks(samples, leak, windows, 10 * MIN).fds.pass).toBe(false);
    expect(flatChecks(samples, leak, windows, 10 * MIN).activeResources.pass).toBe(false);
  });

  it('a model parked at one quiet point and kept awake at the next (a reminder came) is not a leaked socket', () => {
    const samples = series(30);
    const windows = dayWindows(samples, [], [], 0, 10 * MIN);
    const parked = quietAt(5 * MIN, { fds: 29, activeResources: 19, modelSocketsOpen: 0 });
    const awake = quietAt(15 * MIN, { fds: 30, activeResources: 20, modelSocketsOpen: 1 });
    const flat = flatChecks(samples, [parked, awake], windows, 10 * MIN);
    expect(flat.fds).toMatchObject({ pass: true, atQuietPoints: [29, 29], modelSocketsAtQuietPoints: [0, 1] });
    expect(flat.activeResources.pass).toBe(true);
    // One more fd of the core's own beside the awake model still fails.
    const leak = quietAt(15 * MIN, { fds: 31, activeResources: 20, modelSocketsOpen: 1 });
    expect(flatChecks(samples, [parked, leak], windows, 10 * MIN).fds.pass).toBe(false);
  });

  it('fails a window whose CPU is more than 20 % above the first', () => {
    const samples = series(30, (t) => ({ cpuMs: t < 20 * MIN ? t / 100 : (20 * MIN) / 100 + (t - 20 * MIN) / 70 }));
    const flat = flatChecks(samples, [quietAt(0)], dayWindows(samples, [], [], 0, 10 * MIN), 10 * MIN);
    expect(flat.cpu.pass).toBe(false);
  });

  it('counts words, doubled replies and reminders in the window they fell in', () => {
    const samples = series(20);
    const cycles = [
      { at: 1 * MIN, heard: true, replies: 1, strayReplies: 0, lateReplies: 0, staleReplies: 0 },
      { at: 12 * MIN, heard: false, replies: 0, strayReplies: 0, lateReplies: 0, staleReplies: 0 },
      { at: 13 * MIN, heard: true, replies: 2, strayReplies: 1, lateReplies: 1, staleReplies: 1 },
    ];
    const windows = dayWindows(
      samples,
      cycles,
      [
        { dueAt: 2 * MIN, delivered: true },
        { dueAt: 11 * MIN, delivered: false },
      ],
      0,
      10 * MIN,
    );
    expect(
      windows.map((w) => [
        w.wordsSent,
        w.wordsHeard,
        w.repliesDoubled,
        w.repliesStale,
        w.repliesLate,
        w.remindersDue,
        w.remindersDelivered,
      ]),
    ).toEqual([
      [1, 1, 0, 0, 0, 1, 1],
      [2, 1, 1, 1, 1, 1, 0],
    ]);
  });
});

describe('day soak figures across a kill -9 (the restarted core is a new process)', () => {
  // 20 minutes at 1 % of a core; killed at 10 min, the new process counting its CPU from 0.
  const killed = (t: number): Partial<DaySample> =>
    t < 10 * MIN ? { pid: 100, cpuMs: t / 100 } : { pid: 200, cpuMs: (t - 10 * MIN) / 100, fds: 29 };
  const samples = series(20, killed);

  it('a window adds the CPU of both processes instead of the difference of their counters', () => {
    const windows = dayWindows(samples, [], [], 0, 20 * MIN);
    expect(windows[0]!.cpuPercent).toBeCloseTo(1, 1);
  });

  it('beside the verdict, the CPU of the windows no core started in, against the first of them', () => {
    // 40 minutes, killed at 25: the first window and the restart's (20-30) cost more (start-up).
    const start = (t: number): Partial<DaySample> =>
      t < 25 * MIN
        ? { pid: 100, cpuMs: t / 100 + Math.min(t, MIN) / 10 }
        : { pid: 200, cpuMs: (t - 25 * MIN) / 100 + Math.min(t - 25 * MIN, MIN) / 10 };
    const run = series(40, start);
    const windows = dayWindows(run, [], [], 0, 10 * MIN);
    expect(windows.map((w) => w.coreStarted)).toEqual([true, false, true, false]);
    const flat = flatChecks(run, [], windows, 10 * MIN);
    expect(flat.cpu.pass).toBe(false); // the verdict stays the first window's
    expect(flat.cpu.steady).toMatchObject({ pass: true, fromMin: [10, 30] });
    expect(flat.cpu.steady.windowsPercent).toEqual([1, 1]);
    // A steady window that grows fails it too.
    const growing = series(40, (t) => ({ ...start(t), cpuMs: start(t).cpuMs! + Math.max(0, t - 30 * MIN) / 50 }));
    expect(flatChecks(growing, [], dayWindows(growing, [], [], 0, 10 * MIN), 10 * MIN).cpu.steady.pass).toBe(false);
  });

  it('compares each quiet point with those of its own process', () => {
    const quiet = [
      quietAt(4 * MIN, { pid: 100 }),
      quietAt(8 * MIN, { pid: 100 }),
      quietAt(14 * MIN, { pid: 200, fds: 29 }),
      quietAt(18 * MIN, { pid: 200, fds: 29 }),
    ];
    const flat = flatChecks(samples, quiet, dayWindows(samples, [], [], 0, 10 * MIN), 10 * MIN);
    expect(flat.fds).toEqual({
      pass: true,
      atQuietPoints: [29, 29, 28, 28],
      sidecarClientsAtQuietPoints: [0, 0, 0, 0],
      modelSocketsAtQuietPoints: [1, 1, 1, 1],
    });
    const leak = [...quiet.slice(0, 3), quietAt(18 * MIN, { pid: 200, fds: 30 })];
    expect(flatChecks(samples, leak, [], 10 * MIN).fds.pass).toBe(false);
  });
});
