// What the day soak measures of the core process, from outside it: every 5 s /proc (CPU, RSS, open
// fds, child processes) and /health (heap, active resources: process.getActiveResourcesInfo() in the
// core, its round trip), the model sockets open at the fake; and at each quiet point (the end of a
// long quiet stretch, the model parked) the same once more. Then per-window rows and the "flat
// means flat" checks (issue #55).
import { get } from 'node:http';
import { z } from 'zod';
import { readProc } from './latency-proc.ts';
import { childProcesses, openFds } from './proc-fds.ts';
import { readMemorySplit, type MemorySplit } from './smaps-split.ts';

export interface DaySample {
  /** ms since the call began. */
  t: number;
  /** The core's process (a kill -9 mid-call restarts it: a new pid, its CPU and fds counted afresh). */
  pid?: number;
  cpuMs: number;
  rssMb: number;
  heapMb: number | null;
  fds: number;
  activeResources: number | null;
  activeByKind: Record<string, number>;
  children: number;
  healthRoundTripMs: number | null;
  modelSocketsOpen: number;
  /** The call's state at /health (connected, reconnecting, parked) and its reason: where a lost word fell. */
  bridge?: string | null;
  /** Once a minute: where the RSS is (smaps-split.ts). */
  memory?: MemorySplit | null;
}

const healthSchema = z.object({
  bridge: z.object({ state: z.string(), reason: z.string().nullish() }).optional(),
  memory: z.object({ heap_used_mb: z.number() }),
  diagnostics: z.object({ active_resources: z.record(z.string(), z.number()) }).optional(),
});

/**
 * GET /health on a connection of its own that closes after the answer. The sampler asks every 5 s and
 * Node's server keeps an idle connection 5 s: over `fetch`'s keep-alive pool the sampler's own socket
 * was sometimes still open in the core at a quiet point and sometimes not. The soak's other clients
 * (/events, MCP, frames, the CLI) still count; `quietPointSockets` names them (run 12).
 */
function askHealth(base: string, token: string): Promise<unknown> {
  return new Promise((resolve) => {
    const request = get(
      `${base}/health`,
      { agent: false, headers: { authorization: `Bearer ${token}`, connection: 'close' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          try {
            resolve(JSON.parse(text));
          } catch {
            resolve(null);
          }
        });
        res.on('error', () => resolve(null));
      },
    );
    request.on('error', () => resolve(null));
    request.setTimeout(10_000, () => request.destroy());
  });
}

export async function sampleCore(
  pid: number,
  base: string,
  token: string,
  started: number,
  modelSocketsOpen: number,
  withMemorySplit = false,
): Promise<DaySample | null> {
  const proc = readProc(pid);
  if (!proc) return null;
  // Counted before the harness's own /health request opens a socket in the core.
  const fds = openFds(pid);
  const asked = performance.now();
  const parsed = healthSchema.safeParse(await askHealth(base, token));
  const health = parsed.success ? parsed.data : null;
  const roundTrip = health ? performance.now() - asked : null;
  const byKind = health?.diagnostics?.active_resources ?? {};
  return {
    t: Math.round(proc.at - started),
    pid,
    cpuMs: proc.cpuMs,
    rssMb: Math.round(proc.rssMb * 10) / 10,
    heapMb: health?.memory.heap_used_mb ?? null,
    fds,
    activeResources: health?.diagnostics ? Object.values(byKind).reduce((a, b) => a + b, 0) : null,
    activeByKind: byKind,
    children: childProcesses(pid),
    healthRoundTripMs: roundTrip === null ? null : Math.round(roundTrip * 10) / 10,
    modelSocketsOpen,
    bridge: health?.bridge
      ? `${health.bridge.state}${health.bridge.reason ? `: ${health.bridge.reason.slice(0, 120)}` : ''}`
      : null,
    ...(withMemorySplit ? { memory: readMemorySplit(pid) } : {}),
  };
}

export interface CycleLike {
  at: number;
  heard: boolean;
  replies: number;
  strayReplies: number;
  lateReplies: number;
  staleReplies: number;
}

export interface DayWindow {
  fromMin: number;
  toMin: number;
  wordsSent: number;
  wordsHeard: number;
  repliesWhole: number;
  repliesDoubled: number;
  repliesStale: number;
  repliesLate: number;
  remindersDue: number;
  remindersDelivered: number;
  rssMb: { first: number; last: number; max: number };
  heapMbMax: number | null;
  fdsMax: number;
  activeResourcesMax: number | null;
  cpuPercent: number;
  healthRoundTripP99Ms: number | null;
  modelSocketsOpenMax: number;
  childProcessesMax: number;
  /** The window's last memory split (smaps-split.ts), null when none was read in it. */
  memoryMbLast: MemorySplit | null;
  /** A core process began in it (the first window; the kill -9's restart): its CPU includes the start-up. */
  coreStarted: boolean;
}

/**
 * CPU ms the core used from `from` to `to` (samples in order). Across a restart the new process
 * counts from 0 again: its first reading is all it used (run 7 read 0.8 % for a 1.6 % window so).
 */
function cpuBetween(samples: readonly DaySample[], from: DaySample, to: DaySample): number {
  let used = 0;
  let prev = from;
  for (const s of samples) {
    if (s.t <= from.t || s.t > to.t) continue;
    used += s.pid !== prev.pid || s.cpuMs < prev.cpuMs ? s.cpuMs : s.cpuMs - prev.cpuMs;
    prev = s;
  }
  return used;
}

const p99 = (values: number[]): number | null => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)]!;
};

/** One row per `windowMs` of the call; `startedAt` is Date.now() when the call began. */
export function dayWindows(
  samples: readonly DaySample[],
  cycles: readonly CycleLike[],
  reminders: readonly { dueAt: number; delivered: boolean }[],
  startedAt: number,
  windowMs: number,
): DayWindow[] {
  const last = samples.at(-1)?.t ?? 0;
  const rows: DayWindow[] = [];
  for (let from = 0; from < last; from += windowMs) {
    const to = from + windowMs;
    const inWindow = samples.filter((s) => s.t >= from && s.t < to);
    // CPU over the window: from the last reading before it (or its first) to its last.
    const before = samples.filter((s) => s.t < from).at(-1) ?? inWindow[0];
    const end = inWindow.at(-1);
    if (!before || !end) continue;
    const wallMs = end.t - before.t;
    const mine = cycles.filter((c) => c.at - startedAt >= from && c.at - startedAt < to);
    const due = reminders.filter((r) => r.dueAt - startedAt >= from && r.dueAt - startedAt < to);
    const heaps = inWindow.flatMap((s) => (s.heapMb === null ? [] : [s.heapMb]));
    const resources = inWindow.flatMap((s) => (s.activeResources === null ? [] : [s.activeResources]));
    rows.push({
      fromMin: from / 60_000,
      toMin: Math.min(to, last) / 60_000,
      wordsSent: mine.length,
      wordsHeard: mine.filter((c) => c.heard).length,
      repliesWhole: mine.filter((c) => c.replies === 1).length,
      repliesDoubled: mine.filter((c) => c.replies > 1).length,
      repliesStale: mine.reduce((n, c) => n + c.staleReplies, 0),
      repliesLate: mine.reduce((n, c) => n + c.lateReplies, 0),
      remindersDue: due.length,
      remindersDelivered: due.filter((r) => r.delivered).length,
      rssMb: { first: inWindow[0]!.rssMb, last: end.rssMb, max: Math.max(...inWindow.map((s) => s.rssMb)) },
      heapMbMax: heaps.length ? Math.max(...heaps) : null,
      fdsMax: Math.max(...inWindow.map((s) => s.fds)),
      activeResourcesMax: resources.length ? Math.max(...resources) : null,
      cpuPercent: wallMs > 0 ? Math.round((1000 * cpuBetween(samples, before, end)) / wallMs) / 10 : 0,
      healthRoundTripP99Ms: p99(inWindow.flatMap((s) => (s.healthRoundTripMs === null ? [] : [s.healthRoundTripMs]))),
      modelSocketsOpenMax: Math.max(...inWindow.map((s) => s.modelSocketsOpen)),
      childProcessesMax: Math.max(...inWindow.map((s) => s.children)),
      memoryMbLast: inWindow.flatMap((s) => (s.memory ? [s.memory] : [])).at(-1) ?? null,
      coreStarted: from === 0 || inWindow.some((s, i) => s.pid !== (i === 0 ? before : inWindow[i - 1]!).pid),
    });
  }
  return rows;
}

/** Least-squares slope of RSS over time, MB per hour, from the samples at or after `fromMs`. */
export function rssSlopeMbPerHour(samples: readonly Pick<DaySample, 't' | 'rssMb'>[], fromMs: number): number | null {
  const points = samples.filter((s) => s.t >= fromMs);
  if (points.length < 3) return null;
  const n = points.length;
  const mt = points.reduce((a, s) => a + s.t, 0) / n;
  const mr = points.reduce((a, s) => a + s.rssMb, 0) / n;
  const cov = points.reduce((a, s) => a + (s.t - mt) * (s.rssMb - mr), 0);
  const varT = points.reduce((a, s) => a + (s.t - mt) ** 2, 0);
  return varT === 0 ? null : Math.round((cov / varT) * 3_600_000 * 100) / 100;
}

export const FLAT_TARGETS = { rssGrowthMbPerHour: 5, cpuWithinPercentOfFirst: 20 } as const;

export interface FlatChecks {
  rss: {
    pass: boolean;
    rssGrowthMbPerHour: number | null;
    limit: number;
    fromMin: number;
    /**
     * Beside the verdict: the slope over the second half of each process's samples (the worse of
     * the processes). A warm-up longer than the first window shows as a slope after it that this
     * one does not share; a leak shows in both.
     */
    lastHalfMbPerHour: number | null;
    byProcess: { pid: number | undefined; minutes: number; afterFirstWindow: number | null; lastHalf: number | null }[];
  };
  fds: {
    pass: boolean;
    atQuietPoints: number[];
    sidecarClientsAtQuietPoints: number[];
    modelSocketsAtQuietPoints: number[];
  };
  activeResources: {
    pass: boolean;
    atQuietPoints: (number | null)[];
    byKindFirst: Record<string, number>;
    byKindLast: Record<string, number>;
  };
  cpu: {
    pass: boolean;
    firstWindowPercent: number | null;
    windowsPercent: number[];
    limitPercent: number;
    /** The same check over the windows in which no core started, against the first of them. */
    steady: { pass: boolean; firstPercent: number | null; windowsPercent: number[]; fromMin: number[] };
  };
}

/** Samples grouped by the core's process, in order (one group without a kill -9). */
function byProcess<T extends { pid?: number }>(samples: readonly T[]): T[][] {
  const groups = new Map<number | undefined, T[]>();
  for (const s of samples) {
    const group = groups.get(s.pid);
    if (group) group.push(s);
    else groups.set(s.pid, [s]);
  }
  return [...groups.values()];
}

export type RssSlopes = FlatChecks['rss']['byProcess'][number];

/**
 * Each core process's RSS slope after its first window (the first process: after the run's) and
 * over the second half of its samples (from a process two windows long); after a kill -9 the
 * restarted core is another process.
 */
export function rssByProcess(
  samples: readonly Pick<DaySample, 't' | 'pid' | 'rssMb'>[],
  windowMs: number,
): RssSlopes[] {
  return byProcess(samples).map((group, i) => {
    const first = group[0]!.t;
    const last = group.at(-1)!.t;
    return {
      pid: group[0]!.pid,
      minutes: Math.round((last - first) / 6000) / 10,
      afterFirstWindow: rssSlopeMbPerHour(group, i === 0 ? windowMs : first + windowMs),
      // A half shorter than a window is the warm-up itself (a 10-minute run): no figure.
      lastHalf: last - first >= 2 * windowMs ? rssSlopeMbPerHour(group, (first + last) / 2) : null,
    };
  });
}

/** The worse (higher) of the slopes known. */
export function worstSlope(values: readonly (number | null)[]): number | null {
  const known = values.filter((v): v is number => v !== null);
  return known.length ? Math.max(...known) : null;
}

/** A quiet point: the sample, and how many of the core's fds and handles are the soak's clients' connections. */
export type QuietPoint = DaySample & { sidecarClients: number };

/** Every quiet point of the same process reads the same. */
const sameWithin = (quiet: readonly QuietPoint[], value: (s: QuietPoint) => number | null): boolean =>
  quiet.length > 0 &&
  byProcess(quiet).every((group) => group.every((s) => value(s) !== null && value(s) === value(group[0]!)));

/**
 * "Flat means flat": RSS slope after the first window, fds and active resources equal at every quiet
 * point, CPU per window near the first. After a kill -9 the restarted core is another process: its
 * quiet points are compared with its own, and its RSS slope taken after its own first window (the
 * worse of the two slopes is the figure).
 */
export function flatChecks(
  samples: readonly DaySample[],
  quiet: readonly QuietPoint[],
  windows: readonly DayWindow[],
  windowMs: number,
): FlatChecks {
  const processes = rssByProcess(samples, windowMs);
  const slope = worstSlope(processes.map((p) => p.afterFirstWindow));
  // What the core holds of its own at rest: its clients' connections into the sidecar open and close
  // when the client says, and its model socket is there when a reminder, a /say or a wake kept the
  // model from parking in that quiet stretch (1) and not when it parked (0). Both are reported beside.
  const others = (s: QuietPoint) => s.sidecarClients + s.modelSocketsOpen;
  const ownFds = (s: QuietPoint) => s.fds - others(s);
  const ownResources = (s: QuietPoint) => (s.activeResources === null ? null : s.activeResources - others(s));
  const fds = quiet.map(ownFds);
  const resources = quiet.map(ownResources);
  const cpu = windows.map((w) => w.cpuPercent);
  const first = cpu[0] ?? null;
  const limit = FLAT_TARGETS.cpuWithinPercentOfFirst;
  const near = (values: number[], base: number | null) =>
    base !== null && base > 0 && values.every((c) => Math.abs(c - base) <= (base * limit) / 100);
  const steady = windows.filter((w) => !w.coreStarted);
  return {
    rss: {
      pass: slope !== null && slope <= FLAT_TARGETS.rssGrowthMbPerHour,
      rssGrowthMbPerHour: slope,
      limit: FLAT_TARGETS.rssGrowthMbPerHour,
      fromMin: windowMs / 60_000,
      lastHalfMbPerHour: worstSlope(processes.map((p) => p.lastHalf)),
      byProcess: processes,
    },
    fds: {
      pass: sameWithin(quiet, ownFds),
      atQuietPoints: fds,
      sidecarClientsAtQuietPoints: quiet.map((s) => s.sidecarClients),
      modelSocketsAtQuietPoints: quiet.map((s) => s.modelSocketsOpen),
    },
    activeResources: {
      pass: sameWithin(quiet, ownResources),
      atQuietPoints: resources,
      byKindFirst: quiet[0]?.activeByKind ?? {},
      byKindLast: quiet.at(-1)?.activeByKind ?? {},
    },
    cpu: {
      pass: near(cpu, first),
      firstWindowPercent: first,
      windowsPercent: cpu,
      limitPercent: limit,
      steady: {
        pass: near(
          steady.map((w) => w.cpuPercent),
          steady[0]?.cpuPercent ?? null,
        ),
        firstPercent: steady[0]?.cpuPercent ?? null,
        windowsPercent: steady.map((w) => w.cpuPercent),
        fromMin: steady.map((w) => w.fromMin),
      },
    },
  };
}
