// The latency bench's worst-case CPU figure: the call cut into consecutive 10 s windows at the
// core's 1 s /proc readings. A wrong cut (a window counted twice, readings outside the call, a
// stub of a last window) would print a worst case that no 10 s of the call had.
import { describe, expect, it } from 'vitest';
import { cpuWindows, type ProcSample } from '../../../bench/lib/latency-proc.ts';

/** A reading at `atS` seconds after the process had used `cpuMs` of CPU. */
const reading = (atS: number, cpuMs: number): ProcSample => ({ at: atS * 1000, cpuMs, rssMb: 100, peakRssMb: 100 });

describe('cpuWindows', () => {
  it('cuts the call at the readings into 10 s windows, each its own CPU %', () => {
    // 1 s readings drift by a few ms; 300 ms of CPU in the first 10 s, 500 in the second.
    const readings = Array.from({ length: 21 }, (_, i) =>
      reading(100 + i * 1.003, i <= 10 ? i * 30 : 300 + (i - 10) * 50),
    );
    const windows = cpuWindows(reading(100, 0), readings, reading(120, 800));
    expect(windows).toHaveLength(2);
    expect(windows[0]).toBeCloseTo((100 * 300) / 10_030, 6);
    expect(windows[1]).toBeCloseTo((100 * 500) / (20_000 - 10_030), 6);
  });

  it('ignores readings before and after the call and leaves out a last stub under half a window', () => {
    const readings = [
      reading(95, 0),
      ...Array.from({ length: 13 }, (_, i) => reading(100 + i, i * 20)),
      reading(130, 999),
    ];
    const windows = cpuWindows(reading(100, 0), readings, reading(112, 240));
    expect(windows).toEqual([2]); // 20 ms of CPU a second; the 2 s stub after it is left out
  });

  it('keeps a last window of at least half a window', () => {
    const windows = cpuWindows(reading(0, 0), [reading(10, 100), reading(12, 150)], reading(16, 220));
    expect(windows).toEqual([1, 2]);
  });
});
