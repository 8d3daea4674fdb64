// Counts heap bytes allocated per call of a hot-path step, for the unit tests and the benchmark.
//
// Method: force a full GC, read heapUsed + arrayBuffers (typed-array backing stores live outside the
// JS heap), run the step `frames` times, read again. The difference is what the step allocated,
// provided no GC ran in between to free it, which v8.GCProfiler tells us synchronously: a window in
// which a GC ran is discarded and retried. The median of several clean windows is reported, so a
// one-off (lazy JIT data) cannot pass for a per-frame cost, while a real per-frame allocation shows
// up in every window. The meter itself is checked against steps known to allocate.
import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

function usedBytes(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

export interface AllocationReport {
  bytesPerFrame: number;
  /** Clean windows measured (no GC inside). */
  windows: number;
  /** Windows thrown away because a GC ran inside them. */
  discarded: number;
}

/**
 * Median heap bytes allocated per call of `step` over clean windows of `frames` calls, minus the
 * meter's own cost (the memoryUsage() result object, measured with an empty step).
 */
export function measureAllocationsPerFrame(step: (frame: number) => void, options: { warmupFrames?: number; frames?: number; windows?: number } = {}): AllocationReport {
  const frames = options.frames ?? 5000;
  const overhead = rawWindows(() => undefined, { ...options, frames }).bytesPerFrame;
  const report = rawWindows(step, { ...options, frames });
  return { ...report, bytesPerFrame: Math.max(0, report.bytesPerFrame - overhead) };
}

function rawWindows(step: (frame: number) => void, options: { warmupFrames?: number; frames?: number; windows?: number }): AllocationReport {
  const warmup = options.warmupFrames ?? 2000;
  const frames = options.frames ?? 5000;
  const wanted = options.windows ?? 5;
  let f = 0;
  for (let i = 0; i < warmup; i++) step(f++);
  const perFrame: number[] = [];
  let discarded = 0;
  while (perFrame.length < wanted && discarded < 50) {
    gc();
    const profiler = new v8.GCProfiler();
    profiler.start();
    const before = usedBytes();
    for (let i = 0; i < frames; i++) step(f++);
    const after = usedBytes();
    const gcs = profiler.stop().statistics.length;
    if (gcs > 0) {
      discarded++;
      continue;
    }
    perFrame.push(Math.max(0, after - before) / frames);
  }
  perFrame.sort((a, b) => a - b);
  return { bytesPerFrame: perFrame[Math.floor(perFrame.length / 2)] ?? Number.NaN, windows: perFrame.length, discarded };
}
