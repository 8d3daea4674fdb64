// Gives back the memory that start-up and bursts of requests leave behind, once the core is quiet.
//
// Measured (docs/performance.md): after start-up the idle core held ~180 MB RSS, of which 32 MB was
// V8's young generation, grown to two 16 MB semi-spaces by module loading and then never shrunk
// (V8 shrinks it only after a GC at a low allocation rate, and an idle process runs no GC), and
// ~40 MB old space that was already garbage. V8's memory reducer only starts after a full GC, which
// an idle core never triggers. One memory-reducing ("last resort") full GC, run when nothing has
// happened for a while and no call is up, returns both (about 100 ms, once per quiet period).
// There is no public API for it, so `gc` is taken from a fresh vm context after enabling
// --expose-gc (the flag applies to contexts created after it is set; the main context is unchanged).
//
// V8's own memory reducer is kept out of it: every full GC that shrinks the heap notifies the
// reducer, which then runs two more full GCs 8 s later (--memory-reducer-gc-count=2,
// --gc-memory-reducer-start-delay-ms=8000, both fixed at start-up). After our GC they find nothing
// left to free, but they cost about 120 ms of CPU and, measured, landed in a call the owner started
// within those seconds (docs/performance.md). The reducer is notified only while incremental marking
// is enabled, so the trim turns it off for its own synchronous GC (which never marks incrementally)
// and back on at once; every other GC notifies the reducer as before.
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

export interface TrimReport {
  rssBeforeMb: number;
  rssAfterMb: number;
  ms: number;
}

export interface IdleMemoryTrimOptions {
  /** Quiet time after the last activity before trimming. */
  quietMs: number;
  /** False while trimming would stall something that matters (a call's 20 ms audio). */
  mayTrim: () => boolean;
  onTrim?: (report: TrimReport) => void;
}

export class IdleMemoryTrim {
  readonly #o: IdleMemoryTrimOptions;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(options: IdleMemoryTrimOptions) {
    this.#o = options;
  }

  /** Something happened (start-up done, a request, a call ended): trim once it has been quiet for quietMs. */
  poke(): void {
    if (this.#closed) return;
    if (this.#timer) {
      this.#timer.refresh();
      return;
    }
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
    const gc = memoryReducingGc();
    if (!gc) return;
    const before = process.memoryUsage.rss();
    const started = performance.now();
    v8.setFlagsFromString('--no-incremental-marking');
    try {
      gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    } finally {
      v8.setFlagsFromString('--incremental-marking');
    }
    this.#o.onTrim?.({ rssBeforeMb: before / 1048576, rssAfterMb: process.memoryUsage.rss() / 1048576, ms: performance.now() - started });
  }
}
