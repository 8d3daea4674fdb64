import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import v8 from 'node:v8';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { IdleMemoryTrim, TRIM_MIN_GROWTH_BYTES, type TrimReport } from '../../main/core/idle-memory-trim.ts';

const execFileAsync = promisify(execFile);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory()
      ? sourceFiles(path.join(dir, d.name))
      : /\.[cm]?[jt]s$/.test(d.name)
        ? [path.join(dir, d.name)]
        : [],
  );
}

describe('IdleMemoryTrim', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('never sets a V8 flag at run time (lowering one at the wrong moment aborted the process), in the trim or anywhere in main/', () => {
    vi.useFakeTimers();
    const setFlags = vi.spyOn(v8, 'setFlagsFromString');
    const trim = new IdleMemoryTrim({ quietMs: 1000, mayTrim: () => true, gc: () => undefined });
    trim.poke();
    vi.advanceTimersByTime(1000);
    trim.close();
    new IdleMemoryTrim({ quietMs: 1000, mayTrim: () => true }).poke(); // the default gc lookup too
    expect(setFlags).not.toHaveBeenCalled();
    setFlags.mockRestore();
    const main = fileURLToPath(new URL('../../main', import.meta.url));
    const setters = sourceFiles(main).filter((f) => readFileSync(f, 'utf8').includes('setFlagsFromString'));
    expect(setters.map((f) => path.relative(main, f))).toEqual([]);
  });

  it('does nothing in a process not started with --expose-gc (no gc to call)', () => {
    vi.useFakeTimers();
    const reports: TrimReport[] = [];
    const trim = new IdleMemoryTrim({ quietMs: 1000, mayTrim: () => true, onTrim: (r) => reports.push(r), gc: null });
    expect(trim.available).toBe(false);
    trim.poke();
    vi.advanceTimersByTime(10_000);
    trim.close();
    expect(reports).toEqual([]);
  });

  it('trims once after a quiet period, re-armed by activity, and not while mayTrim says no', () => {
    vi.useFakeTimers();
    const reports: TrimReport[] = [];
    let gcs = 0;
    let inCall = false;
    const trim = new IdleMemoryTrim({
      quietMs: 5000,
      mayTrim: () => !inCall,
      onTrim: (r) => reports.push(r),
      gc: () => gcs++,
    });
    trim.poke();
    vi.advanceTimersByTime(4000);
    trim.poke(); // a request: the quiet period starts again
    vi.advanceTimersByTime(4000);
    expect(reports).toHaveLength(0);
    vi.advanceTimersByTime(1000);
    expect(reports).toHaveLength(1);
    expect(gcs).toBe(1);
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
    expect(gcs).toBe(1);
  });

  it('skips a quiet period after which the heap has not grown since the last trim, and trims again once it has', () => {
    vi.useFakeTimers();
    const reports: TrimReport[] = [];
    const skips: number[] = [];
    const trim = new IdleMemoryTrim({
      quietMs: 5000,
      mayTrim: () => true,
      onTrim: (r) => reports.push(r),
      onSkip: (g) => skips.push(g),
      gc: () => undefined,
    });
    trim.poke();
    vi.advanceTimersByTime(5000);
    expect(reports).toHaveLength(1); // the first quiet period always trims

    trim.poke(); // a lone request: nothing worth a full GC
    vi.advanceTimersByTime(5000);
    expect(reports).toHaveLength(1);
    expect(skips).toHaveLength(1);
    expect(skips[0]).toBeLessThan(TRIM_MIN_GROWTH_BYTES);

    // A burst that leaves well over the threshold on the heap: the next quiet period trims.
    const held: object[] = Array.from({ length: 200_000 }, (_, i) => ({ i, s: `entry ${i}` }));
    trim.poke();
    vi.advanceTimersByTime(5000);
    expect(held.length).toBe(200_000);
    expect(reports).toHaveLength(2);
    trim.close();
  });
});

describe("IdleMemoryTrim in a process started with --expose-gc, beside V8's memory reducer", () => {
  // The trim's own GC arms V8's memory reducer, which then runs GCs of its own; nothing retires it
  // any more (that took a run-time flag). Trims and the reducer's GCs interleave, and the process
  // lives on with its data.
  it(
    "trims again while V8's memory reducer runs its own GCs: the process lives on, its data intact",
    { timeout: 30_000 },
    async () => {
      const child = fileURLToPath(new URL('../fixtures/memory/trim-then-watch-gc.ts', import.meta.url));
      const { stdout } = await execFileAsync(
        process.execPath,
        ['--expose-gc', '--no-memory-reducer-for-small-heaps', '--trace-memory-reducer', child],
        { env: { ...process.env, WATCH_MS: '9000' } },
      );
      const lines = stdout.trim().split('\n');
      const seen = z
        .object({ trims: z.number(), skips: z.number(), liveCount: z.number(), majorGcsAfterTrim: z.number() })
        .parse(JSON.parse(lines.at(-1)!));
      // Every quiet period ends in a trim, or in a skip when V8's own GCs already returned the burst.
      expect(seen.trims + seen.skips).toBe(3);
      expect(seen.trims).toBeGreaterThanOrEqual(1);
      expect(seen.liveCount).toBe(150_000);
    },
  );

  it(
    'the first trim of a process while the reducer is mid-cycle leaves it running (the old run-time flag aborted it there)',
    { timeout: 40_000 },
    async () => {
      const child = fileURLToPath(new URL('../fixtures/memory/trim-while-reducer-mid-cycle.ts', import.meta.url));
      const run = await execFileAsync(process.execPath, ['--expose-gc', child]).catch(
        (err: { code?: number; signal?: string; stderr?: string }) => ({
          stdout: '',
          failed: `exit ${err.code ?? err.signal}: ${(err.stderr ?? '').split('\n').find((l) => l.includes('Check failed')) ?? ''}`,
        }),
      );
      expect('failed' in run ? run.failed : null).toBeNull();
      expect(JSON.parse(run.stdout.trim())).toEqual({ trims: 2, liveCount: 150_000 });
    },
  );
});

describe('IdleMemoryTrim under steady polling', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('still trims when a client polls more often than the quiet period (at most maxDeferMs later)', () => {
    vi.useFakeTimers();
    const reports: TrimReport[] = [];
    const trim = new IdleMemoryTrim({
      quietMs: 5000,
      maxDeferMs: 30_000,
      mayTrim: () => true,
      onTrim: (r) => reports.push(r),
      gc: () => undefined,
    });
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
