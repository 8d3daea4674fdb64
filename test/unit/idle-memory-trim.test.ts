import { afterEach, describe, expect, it, vi } from 'vitest';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { z } from 'zod';
import { IdleMemoryTrim, type TrimReport } from '../../main/core/idle-memory-trim.ts';

const execFileAsync = promisify(execFile);

describe('IdleMemoryTrim', () => {
  afterEach(() => {
    vi.useRealTimers();
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
});

describe('IdleMemoryTrim and V8\'s memory reducer', () => {
  // Each full GC that shrinks the heap arms V8's memory reducer: 8 s later it runs two more full GCs
  // (about 120 ms of CPU in the core), which found nothing after the trim and landed in a call the
  // owner had started meanwhile. The trim's own GC must not arm it.
  it('does not wake V8\'s memory reducer in the 9 s after a trim, nor run a full GC', { timeout: 30_000 }, async () => {
    const child = fileURLToPath(new URL('../fixtures/memory/trim-then-watch-gc.ts', import.meta.url));
    const { stdout } = await execFileAsync(process.execPath, ['--no-memory-reducer-for-small-heaps', '--trace-memory-reducer', child], { env: { ...process.env, WATCH_MS: '9000' } });
    const lines = stdout.trim().split('\n');
    const seen = z.object({ trimmed: z.literal(true), liveCount: z.number(), majorGcsAfterTrim: z.number() }).parse(JSON.parse(lines.at(-1)!));
    expect(lines.filter((line) => line.includes('Memory reducer:'))).toEqual([]);
    expect(seen.majorGcsAfterTrim).toBe(0);
  });
});
