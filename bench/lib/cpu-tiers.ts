// Where a process's CPU time goes, by what was running: the kernel, a native library, or JavaScript
// in one of V8's tiers. Input is `perf script -F tid,ip,sym,dso` of a `perf record -g -e cpu-clock`
// of a Node process started with `--perf-basic-prof` (V8 then names its generated code
// `JS:<marker><function> <url>:<line>:<column>` in /tmp/perf-<pid>.map; the marker is the tier).
//
// Why not V8's own `--cpu-prof`: its sampler interrupts the main thread on a wall-clock interval
// and records where it is when it next runs, so a thread that was descheduled inside a system call
// (a UDP send that woke another process) is counted as busy there for as long as it waited.
// `cpu-clock` samples only time the process spent on a CPU, in every thread, kernel included.

/** One sample: its frames, leaf first, each `symbol (dso)` as perf prints them. */
export interface PerfSample {
  tid: number;
  frames: string[];
}

/**
 * V8's perf map (/tmp/perf-<pid>.map: `start size name` per line, appended as code is made). When
 * V8 frees code its address range is reused, and the map then holds every name the range had;
 * perf itself resolves such an address to one of them, often a function long gone (start-up code
 * such as a schema validator blamed for a call's per-packet work). The latest entry covering an
 * address is the code that lived there last, the right answer for samples of a steady call.
 */
interface PerfMapEntry {
  start: number;
  end: number;
  name: string;
  /** Line number in the map: a later entry is newer code. */
  order: number;
}

export class PerfMap {
  /** Sorted by start address. */
  readonly #entries: PerfMapEntry[] = [];
  #maxSize = 0;

  constructor(text: string) {
    for (const line of text.split('\n')) {
      const match = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
      if (!match) continue;
      const start = parseInt(match[1]!, 16);
      const size = parseInt(match[2]!, 16);
      this.#entries.push({ start, end: start + size, name: match[3]!, order: this.#entries.length });
      this.#maxSize = Math.max(this.#maxSize, size);
    }
    this.#entries.sort((a, b) => a.start - b.start);
  }

  /** The name of the code that was last at `address`, or null. */
  resolve(address: number): string | null {
    // Past the last entry starting at or before the address, then back over every entry that could
    // still reach it (none is longer than the longest).
    let lo = 0;
    let hi = this.#entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.#entries[mid]!.start <= address) lo = mid + 1;
      else hi = mid;
    }
    let best: PerfMapEntry | null = null;
    for (let i = lo - 1; i >= 0 && this.#entries[i]!.start + this.#maxSize > address; i--) {
      const entry = this.#entries[i]!;
      if (address < entry.end && (!best || entry.order > best.order)) best = entry;
    }
    return best?.name ?? null;
  }
}

/**
 * Parses `perf script -F tid,ip,sym,dso` output (with call chains): a header line per sample, then
 * one tab-indented frame per line. With `map`, frames in V8's generated code are named by it
 * (latest entry wins) instead of by perf.
 */
export function parsePerfScript(text: string, map?: PerfMap): PerfSample[] {
  const samples: PerfSample[] = [];
  let current: PerfSample | null = null;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (!line.startsWith('\t')) {
      const tid = Number(/(\d+)/.exec(line)?.[1] ?? NaN);
      current = { tid, frames: [] };
      samples.push(current);
      continue;
    }
    // "\t    7f5c2412147f JS:*parseSource node:internal/...:85:22 (/tmp/perf-1.map)"
    const match = /^\s*([0-9a-f]+) (.*)$/.exec(line);
    if (!match || !current) continue;
    let frame = match[2]!;
    const dso = /\((\/tmp\/perf-\d+\.map)\)$/.exec(frame);
    if (map && dso) frame = `${map.resolve(parseInt(match[1]!, 16)) ?? '[unknown]'} (${dso[1]})`;
    current.frames.push(frame);
  }
  return samples.filter((s) => s.frames.length > 0);
}

export type CpuTier =
  | 'JS, optimized (TurboFan)'
  | 'JS, optimized (Maglev)'
  | 'JS, baseline (Sparkplug)'
  | 'JS, interpreted (Ignition)'
  | 'Node/V8 runtime, no JS on the stack'
  | 'kernel'
  | 'Opus (native)'
  | 'DAVE (native)'
  | 'OpenSSL'
  | 'libc';

const TIER_OF_MARKER: Record<string, CpuTier> = {
  '*': 'JS, optimized (TurboFan)',
  '+': 'JS, optimized (Maglev)',
  '^': 'JS, baseline (Sparkplug)',
  '~': 'JS, interpreted (Ignition)',
};

/** The nearest JavaScript frame: the function whose work this sample is, with V8's builtins and runtime it called. */
export function nearestJsFrame(sample: PerfSample): string | null {
  return sample.frames.find((f) => f.startsWith('JS:')) ?? null;
}

/**
 * What the sample's CPU time went to. Native libraries and the kernel count as themselves; anything
 * else in the node binary (V8's builtins such as inline-cache handlers, its runtime, Node's C++)
 * counts for the tier of the JavaScript function that called it, since that is the code whose tier
 * decides how much of such work there is.
 */
export function classifySample(sample: PerfSample): CpuTier {
  const leaf = sample.frames[0]!;
  if (leaf.includes('[kernel.kallsyms]')) return 'kernel';
  if (leaf.includes('opus.node')) return 'Opus (native)';
  if (/davey[^ ]*\.node/.test(leaf)) return 'DAVE (native)';
  if (/^(ossl_|aes|gcm_|EVP_|CRYPTO_|OPENSSL_)/i.test(leaf)) return 'OpenSSL';
  if (/\/lib(c|m|stdc\+\+|pthread)[.-]/.test(leaf)) return 'libc';
  const js = nearestJsFrame(sample);
  if (!js) return 'Node/V8 runtime, no JS on the stack';
  return TIER_OF_MARKER[js[3]!] ?? 'JS, interpreted (Ignition)';
}

/** Where a JavaScript function lives: our core's area, a package, or a part of Node. */
export function originOf(jsFrame: string): string {
  const ours = /\/(?:dist\/)?main\/(core\/[\w-]+)/.exec(jsFrame);
  if (ours) return `ours: ${ours[1]}`;
  const pkg = /node_modules\/((?:@[\w.-]+\/)?[\w.-]+)/.exec(jsFrame);
  if (pkg) return pkg[1]!;
  const node = /node:(?:internal\/)?([\w]+)/.exec(jsFrame);
  if (node) return `node: ${node[1]}`;
  return 'other';
}

/**
 * What woke the core's main thread for the work a sample is part of: the event-loop callback at the
 * root of its stack. A call's wake-ups cost more than their work on these machines
 * (bench/wakeup-cost.ts), so this says which of them to look at. Samples of other threads (V8's
 * compiler and GC helpers, libuv's pool) are counted apart.
 */
export type WakeSource =
  | 'UDP receive (speaker packets, voice keepalives)'
  | 'socket read (model sockets, Discord gateways, sidecar)'
  | 'timers'
  | 'setImmediate'
  | 'event loop, no callback (polling, waking)'
  | 'other threads (V8 compiler and GC, libuv pool)';

export function wakeSourceOf(sample: PerfSample, mainTid: number): WakeSource {
  if (sample.tid !== mainTid) return 'other threads (V8 compiler and GC, libuv pool)';
  // Frames are leaf first: the first match is the callback nearest the work.
  for (const frame of sample.frames) {
    if (frame.startsWith('node::UDPWrap::OnRecv')) return 'UDP receive (speaker packets, voice keepalives)';
    if (frame.startsWith('node::LibuvStreamWrap::OnUvRead') || frame.startsWith('node::TLSWrap::'))
      return 'socket read (model sockets, Discord gateways, sidecar)';
    if (frame.startsWith('node::Environment::RunTimers')) return 'timers';
    if (frame.startsWith('node::Environment::CheckImmediate')) return 'setImmediate';
  }
  return 'event loop, no callback (polling, waking)';
}

/** The callback a timer ran: the JavaScript frame that Node's `listOnTimeout` called, without its file path. */
export function timerCallbackOf(sample: PerfSample): string | null {
  const at = sample.frames.findIndex((f) => f.startsWith('JS:') && f.includes('listOnTimeout'));
  if (at <= 0) return null;
  const callback = sample.frames
    .slice(0, at)
    .reverse()
    .find((f) => f.startsWith('JS:'));
  return callback ? shortFunctionName(callback) : null;
}

function shortFunctionName(jsFrame: string): string {
  return jsFrame.replace(/ \([^)]*\)$/, '').replace(/file:\/\/\/[^ ]*?\/(dist\/main\/|node_modules\/)/, '');
}

export interface TierReport {
  samples: number;
  /** Share of the samples per tier, %, largest first. */
  byTier: [CpuTier, number][];
  /** Samples spent in (or called from) JavaScript that was not optimized, % of all samples, by origin. */
  unoptimizedByOrigin: [string, number][];
  /** The same by function, the largest `top`. */
  unoptimizedByFunction: [string, number][];
  /** Share of all samples by what woke the main thread for them (given the main thread's id). */
  byWakeSource: [WakeSource, number][];
  /** Timer samples by the callback the timer ran, % of all samples, the largest `top`. */
  timersByCallback: [string, number][];
}

const UNOPTIMIZED: ReadonlySet<CpuTier> = new Set(['JS, baseline (Sparkplug)', 'JS, interpreted (Ignition)']);

/** `mainTid`: the core's main thread (its pid); the wake-up tables need it. */
export function tierReport(samples: readonly PerfSample[], mainTid: number, top = 25): TierReport {
  const tiers = new Map<CpuTier, number>();
  const origins = new Map<string, number>();
  const functions = new Map<string, number>();
  const wakeSources = new Map<WakeSource, number>();
  const timerCallbacks = new Map<string, number>();
  const add = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1);
  for (const sample of samples) {
    const source = wakeSourceOf(sample, mainTid);
    add(wakeSources, source);
    if (source === 'timers')
      add(
        timerCallbacks,
        timerCallbackOf(sample) ?? '(no callback on the stack: the timer list itself, or a stack perf cut short)',
      );
    const tier = classifySample(sample);
    add(tiers, tier);
    if (!UNOPTIMIZED.has(tier)) continue;
    const js = nearestJsFrame(sample)!;
    add(origins, originOf(js));
    add(functions, shortFunctionName(js));
  }
  const percent = <K>(map: Map<K, number>, limit = Infinity): [K, number][] =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([k, v]) => [k, (100 * v) / samples.length]);
  return {
    samples: samples.length,
    byTier: percent(tiers),
    unoptimizedByOrigin: percent(origins),
    unoptimizedByFunction: percent(functions, top),
    byWakeSource: percent(wakeSources),
    timersByCallback: percent(timerCallbacks, top),
  };
}
