// CPU time and resident memory of another process, read from /proc (Linux), and the small
// statistics the latency benchmark prints. Reading /proc from the parent keeps the measured core
// process free of any measuring code.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

let clockTicks: number | null = null;

/** Kernel clock ticks per second (utime/stime unit); 100 on practically every Linux. */
export function ticksPerSecond(): number {
  if (clockTicks === null) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

export interface ProcSample {
  /** performance.now() of the reading, ms. */
  at: number;
  /** user + system CPU time of the whole process (all threads), ms; 10 ms resolution. */
  cpuMs: number;
  rssMb: number;
  /** Peak RSS so far (VmHWM), MB. */
  peakRssMb: number;
}

/** One reading of a live process; null when it is gone. */
export function readProc(pid: number): ProcSample | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after "(comm)": state is field 3, utime 14, stime 15 (1-based, man 5 proc).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return {
      at: performance.now(),
      cpuMs: (ticks * 1000) / ticksPerSecond(),
      rssMb: kb('VmRSS') / 1024,
      peakRssMb: kb('VmHWM') / 1024,
    };
  } catch {
    return null;
  }
}

/**
 * Whether the readings (oldest first) end with `quietMs` in which the process used at most
 * `budgetMs` of CPU (10 ms ticks: 20 ms is two ticks of housekeeping).
 */
export function quietFor(readings: readonly ProcSample[], quietMs: number, budgetMs: number): boolean {
  const last = readings.at(-1);
  if (!last) return false;
  const from = readings.findLast((r) => last.at - r.at >= quietMs);
  return from !== undefined && last.cpuMs - from.cpuMs <= budgetMs;
}

/**
 * Waits until `pid` has been quiet (quietFor) or `maxMs` passed; returns the ms waited. An idle core
 * started without --expose-gc gets one more GC from V8's memory reducer about 8-9 s after start-up
 * (≈ 130 ms of CPU, RSS down ≈ 7 MB): an idle baseline must not catch it.
 */
export async function untilQuiet(
  pid: number,
  options: { quietMs?: number; budgetMs?: number; maxMs?: number } = {},
): Promise<number> {
  const { quietMs = 2000, budgetMs = 20, maxMs = 15_000 } = options;
  const readings: ProcSample[] = [];
  const from = performance.now();
  for (;;) {
    const reading = readProc(pid);
    if (!reading) return performance.now() - from;
    readings.push(reading);
    if (quietFor(readings, quietMs, budgetMs) || reading.at - from >= maxMs) return reading.at - from;
    await sleep(250);
  }
}

/** CPU used between two readings as % of one core. */
export function cpuPercent(from: ProcSample, to: ProcSample): number {
  return (100 * (to.cpuMs - from.cpuMs)) / (to.at - from.at);
}

/** Readings taken at least this far apart make one window (the sampler reads every second). */
export const CPU_WINDOW_MS = 10_000;

/**
 * CPU % of one core in consecutive windows of `windowMs` from `from` to `to`, cut at the readings
 * taken in between (`readings`, in time order). A last window shorter than half a window is left
 * out (a few 10 ms ticks would make it a noisy figure). The worst window is the call's worst case
 * beside its average.
 */
export function cpuWindows(
  from: ProcSample,
  readings: readonly ProcSample[],
  to: ProcSample,
  windowMs = CPU_WINDOW_MS,
): number[] {
  const windows: number[] = [];
  let start = from;
  for (const reading of readings) {
    if (reading.at <= from.at || reading.at >= to.at) continue;
    // 1 s readings drift by a few ms: a window ends at the first reading within 0.5 s of its length.
    if (reading.at - start.at >= windowMs - 500) {
      windows.push(cpuPercent(start, reading));
      start = reading;
    }
  }
  if (to.at - start.at >= windowMs / 2) windows.push(cpuPercent(start, to));
  return windows;
}

export interface Percentiles {
  count: number;
  p50_ms: number | null;
  p95_ms: number | null;
  p99_ms: number | null;
  max_ms: number | null;
}

/** Nearest-rank percentiles of a sample list (same rank rule as the core's histograms). */
export function percentiles(values: readonly number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => (sorted.length ? sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]! : null);
  return {
    count: sorted.length,
    p50_ms: at(0.5),
    p95_ms: at(0.95),
    p99_ms: at(0.99),
    max_ms: sorted.length ? sorted[sorted.length - 1]! : null,
  };
}

export function round(value: number | null, digits = 2): number | null {
  if (value === null || !Number.isFinite(value)) return null;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
