import { afterEach, describe, expect, it, vi } from 'vitest';
import { IdleMemoryTrim, type TrimReport } from '../../main/core/idle-memory-trim.ts';

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
