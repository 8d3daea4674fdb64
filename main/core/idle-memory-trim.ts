// Gives back the memory that start-up and bursts of requests leave behind, once the core is quiet.
//
// Measured (docs/performance.md): after start-up the idle core held ~180 MB RSS, of which 32 MB was
// V8's young generation, grown to two 16 MB semi-spaces by module loading and then never shrunk
// (V8 shrinks it only after a GC at a low allocation rate, and an idle process runs no GC), and
// ~40 MB old space that was already garbage. V8's memory reducer reclaims it only at a time of its
// own choosing (8 s or more after the heap last grew or a full GC ran; measured: often inside the
// call the owner had just started). One memory-reducing ("last resort") full GC, run when nothing has
// happened for a while and no call is up, returns both (about 100 ms, once per quiet period).
// There is no public API for it, so `gc` is taken from a fresh vm context after enabling
// --expose-gc (the flag applies to contexts created after it is set; the main context is unchanged).
//
// V8's memory reducer is retired once, at start-up (retireMemoryReducerAtStart, the first step of
// the core's openCore; bench/lib/store-core.ts does the same). Armed by any full GC (the trim's own
// included), it runs up to two more incremental full GCs 8-26 s later that find little left to
// free: ~40 ms of CPU on an empty core, ~200 ms with 100,000 schedule entries
// (docs/notifications.md), and often inside the call the owner has just joined (an idle call read
// 0.9-1.25 % of a core against 0.1 % without them). The trim does the same job sooner, once per
// quiet period, never in a call. The reducer is retired by
// --memory-reducer-gc-count=0 (V8 reads it at each step of the reducer), and only while the process
// is younger than the reducer's first possible GC: lowering that count while the reducer is
// mid-cycle (a GC of its own already started) aborts the process at the next full GC (V8 checks
// started_gcs <= MaxNumberOfGCs() in MemoryReducer::NotifyMarkCompact; it killed a core whose first
// trim lowered it at that moment). With the count at 0 from before its first GC, the reducer's timer
// goes straight to "done" and it never starts one.
// A quiet period after which the heap has not grown since the last trim (a lone request) is
// skipped: a full GC of a large heap costs ~100 ms for nothing to give back.
//
// Nothing runs per tick: a single unref'd timer is (re)armed by activity and fires once.
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

type GcFunction = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

let exposedGc: GcFunction | null | undefined;

function memoryReducingGc(): GcFunction | null {
  if (exposedGc === undefined) {
    try {
      v8.setFlagsFromString('--expose-gc');
      const gc: unknown = runInNewContext('gc');
      exposedGc = typeof gc === 'function' ? (gc as GcFunction) : null;
    } catch {
      exposedGc = null;
    }
  }
  return exposedGc;
}

/**
 * V8's memory reducer starts its first GC no sooner than 8 s (kLongDelayMs, and
 * --gc-memory-reducer-start-delay-ms) after the full GC or the garbage hint that armed it, both after
 * the process started. So a process younger than this cannot have a reducer mid-cycle; 2 s of margin.
 */
export const RETIRE_REDUCER_BEFORE_UPTIME_S = 6;

export type ReducerRetirement = 'retired' | 'too-late' | 'unsupported';

let reducerRetired = false;

/**
 * Stops V8's memory reducer from ever starting a GC of its own, if that is still safe (see the
 * file's comment). Flags are per process, so this holds for every isolate in it; calling again is a
 * no-op. `uptimeS` is for tests.
 */
export function retireMemoryReducerAtStart(uptimeS = process.uptime()): ReducerRetirement {
  if (reducerRetired) return 'retired';
  if (uptimeS >= RETIRE_REDUCER_BEFORE_UPTIME_S) return 'too-late';
  try {
    v8.setFlagsFromString('--memory-reducer-gc-count=0');
  } catch {
    return 'unsupported';
  }
  reducerRetired = true;
  return 'retired';
}

/** Heap growth (committed or in use) since the last trim below which a quiet period is not trimmed. */
export const TRIM_MIN_GROWTH_BYTES = 4 * 1024 * 1024;

interface HeapMark {
  committed: number;
  used: number;
}

function heapMark(): HeapMark {
  const h = v8.getHeapStatistics();
  return { committed: h.total_heap_size, used: h.used_heap_size };
}

export interface TrimReport {
  rssBeforeMb: number;
  rssAfterMb: number;
  ms: number;
}

export interface IdleMemoryTrimOptions {
  /** Quiet time after the last activity before trimming. */
  quietMs: number;
  /**
   * Longest activity can put a trim off (default 6 × quietMs): a client that polls more often than
   * quietMs (a dashboard, a monitor) must not keep a burst's memory allocated for ever. When it
   * passes, the trim runs if the heap grew enough since the last one (polling alone does not).
   */
  maxDeferMs?: number;
  /** False while trimming would stall something that matters (a call's 20 ms audio). */
  mayTrim: () => boolean;
  onTrim?: (report: TrimReport) => void;
  /** A quiet period passed with too little heap growth since the last trim to be worth a GC. */
  onSkip?: (growthBytes: number) => void;
}

export class IdleMemoryTrim {
  readonly #o: IdleMemoryTrimOptions;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  /** The heap right after the last trim; null before the first. */
  #afterLast: HeapMark | null = null;
  /** When the pending timer was first armed (Date.now()). */
  #pendingSince = 0;

  constructor(options: IdleMemoryTrimOptions) {
    this.#o = options;
  }

  /** Something happened (start-up done, a request, a call ended): trim once it has been quiet for quietMs. */
  poke(): void {
    if (this.#closed) return;
    const now = Date.now();
    if (this.#timer) {
      // Put off by activity, but no further than maxDeferMs after it was first armed.
      if (now + this.#o.quietMs - this.#pendingSince <= (this.#o.maxDeferMs ?? this.#o.quietMs * 6)) this.#timer.refresh();
      return;
    }
    this.#pendingSince = now;
    this.#timer = setTimeout(() => this.#fire(), this.#o.quietMs);
    this.#timer.unref();
  }

  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #fire(): void {
    this.#timer = null;
    // In a call: skip; the call's end pokes again.
    if (this.#closed || !this.#o.mayTrim()) return;
    if (this.#afterLast) {
      const now = heapMark();
      const growth = Math.max(now.committed - this.#afterLast.committed, now.used - this.#afterLast.used);
      if (growth < TRIM_MIN_GROWTH_BYTES) {
        this.#o.onSkip?.(growth);
        return;
      }
    }
    const gc = memoryReducingGc();
    if (!gc) return;
    const before = process.memoryUsage.rss();
    const started = performance.now();
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    this.#afterLast = heapMark();
    this.#o.onTrim?.({ rssBeforeMb: before / 1048576, rssAfterMb: process.memoryUsage.rss() / 1048576, ms: performance.now() - started });
  }
}
