// Gives back the memory that start-up and bursts of requests leave behind, once the core is quiet.
//
// After start-up an idle core holds garbage in old space and a young generation grown by module
// loading, and an idle process runs no GC that would return them (V8 shrinks the young generation
// only after a GC at a low allocation rate; its memory reducer starts only after a full GC). One
// full GC when nothing has happened for a while and no call is up returns them, once per quiet
// period (docs/performance.md, "Memory").
//
// Opt-in, documented means only: `gc` is the function Node exposes when the process is STARTED with
// --expose-gc (Node's doc/api/cli.md; allowed in NODE_OPTIONS since Node 22.3), called as Node
// documents it, `globalThis.gc()`. The launchers do not pass it (main/core/core-node-flags.ts: the
// young-generation cap does most of the job; docs/performance.md, "Memory without internals"), so
// this runs for whoever adds it, e.g. NODE_OPTIONS=--expose-gc. Nothing here sets a
// V8 flag at run time: doing that (node:v8's flag setter) at the wrong moment once aborted the
// process (a V8 CHECK in its memory reducer), and internal flags may change with any V8. Without
// the flag the trim does nothing; V8's own memory reducer then returns memory when it decides.
// A quiet period after which the heap has not grown since the last trim (a lone request) is
// skipped: a full GC of a large heap costs ~100 ms for nothing to give back.
//
// Nothing runs per tick: a single unref'd timer is (re)armed by activity and fires once.
import v8 from 'node:v8';

/** The gc function of a process started with --expose-gc, or null. */
export function exposedGc(): (() => void) | null {
  const gc: unknown = (globalThis as { gc?: unknown }).gc;
  return typeof gc === 'function' ? () => (gc as () => void)() : null;
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
  /** The GC to run; default: exposedGc() (null: the trim does nothing). For tests. */
  gc?: (() => void) | null;
}

export class IdleMemoryTrim {
  readonly #o: IdleMemoryTrimOptions;
  readonly #gc: (() => void) | null;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  /** The heap right after the last trim; null before the first. */
  #afterLast: HeapMark | null = null;
  /** When the pending timer was first armed (Date.now()). */
  #pendingSince = 0;

  constructor(options: IdleMemoryTrimOptions) {
    this.#o = options;
    this.#gc = options.gc === undefined ? exposedGc() : options.gc;
  }

  /** Whether trims can run: the process was started with --expose-gc (or a gc was given). */
  get available(): boolean {
    return this.#gc !== null;
  }

  /** Something happened (start-up done, a request, a call ended): trim once it has been quiet for quietMs. */
  poke(): void {
    if (this.#closed || !this.#gc) return;
    const now = Date.now();
    if (this.#timer) {
      // Put off by activity, but no further than maxDeferMs after it was first armed.
      if (now + this.#o.quietMs - this.#pendingSince <= (this.#o.maxDeferMs ?? this.#o.quietMs * 6))
        this.#timer.refresh();
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
    if (this.#closed || !this.#gc || !this.#o.mayTrim()) return;
    if (this.#afterLast) {
      const now = heapMark();
      const growth = Math.max(now.committed - this.#afterLast.committed, now.used - this.#afterLast.used);
      if (growth < TRIM_MIN_GROWTH_BYTES) {
        this.#o.onSkip?.(growth);
        return;
      }
    }
    const before = process.memoryUsage.rss();
    const started = performance.now();
    this.#gc();
    this.#afterLast = heapMark();
    this.#o.onTrim?.({
      rssBeforeMb: before / 1048576,
      rssAfterMb: process.memoryUsage.rss() / 1048576,
      ms: performance.now() - started,
    });
  }
}
