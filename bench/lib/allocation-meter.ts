// Counts heap bytes allocated per call of a hot-path step, for the unit tests and the benchmark.
//
// Method: force a full GC, read heapUsed + arrayBuffers (typed-array backing stores live outside the
// JS heap), run the step N times, read again. The difference is what the step allocated, provided no
// GC ran in between to free it, which v8.GCProfiler tells us synchronously: a window in which a GC
// ran is discarded and retried. Windows of N and 2N calls are compared so once-per-window costs
// cancel; the smallest over several pairs is reported: a per-call allocation is in every window, while
// a one-off one (V8 installing code that a background compiler finished, which a loaded machine can
// delay into the measured windows: a full test run once read 4.9 bytes/frame for a step that reads 0
// alone) inflates only the window it lands in. The meter itself is checked (in the unit tests)
// against a step known to allocate one small object per call.
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
 * Heap bytes allocated per call of `step` (the smallest of several measurements, see above), as the slope between a window of `frames` calls
 * and one of 2 x `frames` calls: costs that occur once per window (the meter's own memoryUsage()
 * object, whatever V8 re-creates lazily after the forced GC) cancel, a per-frame cost does not.
 * A window with a GC inside is discarded and the size halved, so heavy allocators still get a number.
 */
export function measureAllocationsPerFrame(
  step: (frame: number) => void,
  options: { warmupFrames?: number; frames?: number; windows?: number } = {},
): AllocationReport {
  let frames = options.frames ?? 5000;
  const wanted = options.windows ?? 5;
  let f = 0;
  for (let i = 0, n = options.warmupFrames ?? 2000; i < n; i++) step(f++);
  const perFrame: number[] = [];
  let discarded = 0;
  while (perFrame.length < wanted && discarded < 40) {
    const single = windowBytes(() => step(f++), frames);
    const double = single === null ? null : windowBytes(() => step(f++), 2 * frames);
    if (single === null || double === null) {
      discarded++;
      frames = Math.max(10, Math.floor(frames / 2));
      continue;
    }
    perFrame.push(Math.max(0, double - single) / frames);
  }
  return { bytesPerFrame: perFrame.length ? Math.min(...perFrame) : Number.NaN, windows: perFrame.length, discarded };
}

/** Bytes allocated by `frames` calls, or null when a GC ran inside the window. */
function windowBytes(call: () => void, frames: number): number | null {
  gc();
  const profiler = new v8.GCProfiler();
  profiler.start();
  const before = usedBytes();
  for (let i = 0; i < frames; i++) call();
  const after = usedBytes();
  return profiler.stop().statistics.length > 0 ? null : after - before;
}
