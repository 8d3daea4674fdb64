import v8 from 'node:v8';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { z } from 'zod';
import { IdleMemoryTrim, RETIRE_REDUCER_BEFORE_UPTIME_S, retireMemoryReducerAtStart, TRIM_MIN_GROWTH_BYTES, type TrimReport } from '../../main/core/idle-memory-trim.ts';

const execFileAsync = promisify(execFile);

describe('IdleMemoryTrim', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  // First in this file: the gc function and the flag are set up once per process, at the first trim.
  it('sets up its gc at the first trim and never changes V8\'s memory reducer at run time (lowering its GC count mid-cycle aborts the process)', () => {
    vi.useFakeTimers();
    const setFlags = vi.spyOn(v8, 'setFlagsFromString');
    const trim = new IdleMemoryTrim({ quietMs: 1000, mayTrim: () => true });
    trim.poke();
    expect(setFlags).not.toHaveBeenCalled(); // nothing before a quiet period has passed
    vi.advanceTimersByTime(1000);
    trim.close();
    const flags = setFlags.mock.calls.map((c) => c[0]);
    setFlags.mockRestore();
    expect(flags).toEqual(['--expose-gc']);
  });

  it('trims once after a quiet period, re-armed by activity, and not while mayTrim says no', () => {
    vi.useFakeTimers();
    const reports: TrimReport[] = [];
    let inCall = false;
    const trim = new IdleMemoryTrim({ quietMs: 5000, mayTrim: () => !inCall, onTrim: (r) => reports.push(r) });
    trim.poke();
    vi.advanceTimersByTime(4000);
    trim.poke(); // a request: the quiet period starts again
    vi.advanceTimersByTime(4000);
    expect(reports).toHaveLength(0);
    vi.advanceTimersByTime(1000);
    expect(reports).toHaveLength(1);
    expect(reports[0]!.rssAfterMb).toBeGreaterThan(0);
    vi.advanceTimersByTime(60_000);
    expect(reports).toHaveLength(1); // nothing runs while nothing happens

    inCall = true;
    trim.poke();
    vi.advanceTimersByTime(5000);
    expect(reports).toHaveLength(1);
    trim.close();
    trim.poke();
    vi.advanceTimersByTime(5000);
    expect(reports).toHaveLength(1);
  });

  it('skips a quiet period after which the heap has not grown since the last trim, and trims again once it has', () => {
    vi.useFakeTimers();
    const reports: TrimReport[] = [];
    const skips: number[] = [];
    const trim = new IdleMemoryTrim({ quietMs: 5000, mayTrim: () => true, onTrim: (r) => reports.push(r), onSkip: (g) => skips.push(g) });
    trim.poke();
    vi.advanceTimersByTime(5000);
    expect(reports).toHaveLength(1); // the first quiet period always trims

    trim.poke(); // a lone request: nothing worth a full GC
    vi.advanceTimersByTime(5000);
    expect(reports).toHaveLength(1);
    expect(skips).toHaveLength(1);
    expect(skips[0]).toBeLessThan(TRIM_MIN_GROWTH_BYTES);

    // A burst that leaves well over the threshold on the heap (held here, as garbage a burst leaves
    // in old space until a full GC): the next quiet period trims.
    const held: object[] = Array.from({ length: 200_000 }, (_, i) => ({ i, s: `entry ${i}` }));
    trim.poke();
    vi.advanceTimersByTime(5000);
    expect(held.length).toBe(200_000);
    expect(reports).toHaveLength(2);
    trim.close();
  });

});

describe('retireMemoryReducerAtStart', () => {
  // The flag is not really set here (the test runner's process is older than the safe window, and
  // its isolates' reducers may be mid-cycle): the spy stands in for V8. The child-process tests below
  // and test/sidecar/headless-idle-gc.test.ts set it for real.
  it('retires the reducer only while the process is too young for a reducer GC to have started, once', () => {
    const setFlags = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => undefined);
    try {
      expect(retireMemoryReducerAtStart(RETIRE_REDUCER_BEFORE_UPTIME_S)).toBe('too-late');
      expect(retireMemoryReducerAtStart(60)).toBe('too-late');
      expect(setFlags).not.toHaveBeenCalled();
      expect(retireMemoryReducerAtStart(0.8)).toBe('retired');
      expect(setFlags.mock.calls).toEqual([['--memory-reducer-gc-count=0']]);
      expect(retireMemoryReducerAtStart(60)).toBe('retired'); // already: nothing more to do
      expect(setFlags).toHaveBeenCalledTimes(1);
    } finally {
      setFlags.mockRestore();
    }
  });
});

describe('IdleMemoryTrim and V8\'s memory reducer', () => {
  // The trim's own GC arms V8's memory reducer, which then runs GCs of its own. The trim used to
  // retire it by lowering --memory-reducer-gc-count at run time; with the reducer mid-cycle that
  // aborted the process at the next full GC (a V8 CHECK, seen in a test run). Now trims and the
  // reducer's GCs interleave, and the process lives on with its data.
  it('trims again while V8\'s memory reducer runs its own GCs: the process lives on, its data intact', { timeout: 30_000 }, async () => {
    const child = fileURLToPath(new URL('../fixtures/memory/trim-then-watch-gc.ts', import.meta.url));
    const { stdout } = await execFileAsync(process.execPath, ['--no-memory-reducer-for-small-heaps', '--trace-memory-reducer', child], { env: { ...process.env, WATCH_MS: '9000' } });
    const lines = stdout.trim().split('\n');
    const seen = z.object({ trims: z.number(), liveCount: z.number(), majorGcsAfterTrim: z.number() }).parse(JSON.parse(lines.at(-1)!));
    expect(seen.trims).toBe(3);
    expect(seen.liveCount).toBe(150_000);
  });

  it('the first trim of a process while the reducer is mid-cycle does not abort it (the run-time flag did), and a late retirement is refused', { timeout: 40_000 }, async () => {
    const child = fileURLToPath(new URL('../fixtures/memory/trim-while-reducer-mid-cycle.ts', import.meta.url));
    const run = await execFileAsync(process.execPath, [child]).catch((err: { code?: number; signal?: string; stderr?: string }) => ({ stdout: '', failed: `exit ${err.code ?? err.signal}: ${(err.stderr ?? '').split('\n').find((l) => l.includes('Check failed')) ?? ''}` }));
    expect('failed' in run ? run.failed : null).toBeNull();
    expect(JSON.parse(run.stdout.trim())).toEqual({ trims: 2, liveCount: 150_000, reducer: 'too-late' });
  });
});

describe('IdleMemoryTrim under steady polling', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('still trims when a client polls more often than the quiet period (at most maxDeferMs later)', () => {
    vi.useFakeTimers();
    const reports: TrimReport[] = [];
    const trim = new IdleMemoryTrim({ quietMs: 5000, maxDeferMs: 30_000, mayTrim: () => true, onTrim: (r) => reports.push(r) });
    // A dashboard polling every 2 s for two minutes.
    for (let t = 0; t < 120_000; t += 2000) {
      trim.poke();
      vi.advanceTimersByTime(2000);
      if (reports.length) break;
    }
    trim.close();
    expect(reports).toHaveLength(1);
  });
});
