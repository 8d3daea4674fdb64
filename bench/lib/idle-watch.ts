// What an idle core process does, counted from outside: its garbage collections (the `GC <kind> <ms>
// <flags> <at>` lines bench/lib/store-core.ts prints with --report-gc, from Node's perf_hooks 'gc'
// entries) and its main thread's wake-ups (voluntary context switches in /proc: each time the
// event loop slept and something woke it: a timer, a socket, a task V8 posted). Counts, unlike a
// CPU percentage, do not depend on how loaded the machine is.
//
// V8's memory reducer: after a full GC (module loading always causes one, and so does loading a
// large schedule) it waits until the allocation rate is low, then runs two full GCs 0.5 s apart
// that give back what start-up and requests left (V8's src/heap/memory-reducer.cc; 30-150 s after
// the last request on this machine, the second up to tens of seconds after the first under load),
// and is done until the heap has grown by
// 10 MB. Those GCs are that process's one "settling" pass; an idle core is settled once the pass
// is over (docs/performance.md, "Idle: what it costs and when").
import { readFileSync } from 'node:fs';
import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import type { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

/** perf_hooks constants (node:perf_hooks `constants`): kind of a major GC, flag of the memory reducer's GCs. */
export const GC_MAJOR = 4;
export const GC_FLAG_ALL_EXTERNAL_MEMORY = 32;

export interface GcEvent {
  kind: number;
  ms: number;
  flags: number;
  /** When the bench saw it (performance.now() of this process). */
  seenAt: number;
}

/**
 * In the measured process: print `GC <kind> <ms> <flags> <at>` to `out` for every GC (Node's
 * documented perf_hooks 'gc' entries; the observer runs only when a GC has happened).
 */
export function reportGcTo(out: Writable): void {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const { kind, flags } = (e as PerformanceEntry & { detail: { kind: number; flags: number } }).detail;
      out.write(`GC ${kind} ${e.duration.toFixed(2)} ${flags} ${e.startTime.toFixed(0)}\n`);
    }
  }).observe({ entryTypes: ['gc'] });
}

/** GC events read from a measured process's stdout (reportGcTo). */
export class GcLog {
  readonly events: GcEvent[] = [];
  #pending = '';

  constructor(stdout: Readable) {
    stdout.on('data', (d: Buffer) => {
      this.#pending += d.toString();
      for (let nl = this.#pending.indexOf('\n'); nl >= 0; nl = this.#pending.indexOf('\n')) {
        const m = /^GC (\d+) ([\d.]+) (\d+) /.exec(this.#pending.slice(0, nl + 1));
        this.#pending = this.#pending.slice(nl + 1);
        if (m)
          this.events.push({ kind: Number(m[1]), ms: Number(m[2]), flags: Number(m[3]), seenAt: performance.now() });
      }
    });
  }

  /** Events seen since `from` (performance.now()). */
  since(from: number): GcEvent[] {
    return this.events.filter((e) => e.seenAt >= from);
  }
}

export const isMajor = (e: GcEvent): boolean => (e.kind & GC_MAJOR) !== 0;
export const isReducerGc = (e: GcEvent): boolean => isMajor(e) && (e.flags & GC_FLAG_ALL_EXTERNAL_MEMORY) !== 0;

/** Voluntary context switches of a process's main thread (its event loop's wake-ups); null when gone. */
export function mainThreadWakeups(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8');
    return Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? NaN);
  } catch {
    return null;
  }
}

export interface Settled {
  /** Whether the memory reducer's pass was seen and over (false: maxMs passed first). */
  settled: boolean;
  /** Since `from`, ms. */
  waitedMs: number;
  /** The pass: major GCs from `from` to settling, and their summed pause (the main thread's share). */
  majorGcs: number;
  majorGcMs: number;
}

/** V8's memory reducer runs this many full GCs per pass (memory_reducer_gc_count; after the first it always runs another). */
export const REDUCER_GCS_PER_PASS = 2;

/**
 * Waits until the reducer's pass is over: both its GCs seen (the second waits for a low allocation
 * rate again: 0.5 s at best, tens of seconds on a loaded machine) and no full GC for `quietMs`; or
 * `maxMs` passed (settled: false).
 */
export async function untilSettled(
  log: GcLog,
  from: number,
  options: { quietMs?: number; maxMs?: number } = {},
): Promise<Settled> {
  const { quietMs = 3000, maxMs = 240_000 } = options;
  for (;;) {
    const majors = log.since(from).filter(isMajor);
    const now = performance.now();
    const over = majors.filter(isReducerGc).length >= REDUCER_GCS_PER_PASS && now - majors.at(-1)!.seenAt >= quietMs;
    if (over || now - from >= maxMs) {
      return {
        settled: over,
        waitedMs: now - from,
        majorGcs: majors.length,
        majorGcMs: majors.reduce((s, e) => s + e.ms, 0),
      };
    }
    await sleep(250);
  }
}
