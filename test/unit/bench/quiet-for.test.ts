// The latency bench's idle baseline waits for a quiet core (bench/lib/latency-proc.ts quietFor): an
// idle core started without --expose-gc gets a memory-reducer GC 8-9 s after start-up, and a
// baseline window that caught it read 4 % of a core for a core doing nothing.
import { describe, expect, it } from 'vitest';
import { quietFor, type ProcSample } from '../../../bench/lib/latency-proc.ts';

const at = (seconds: number, cpuMs: number): ProcSample => ({ at: seconds * 1000, cpuMs, rssMb: 100, peakRssMb: 110 });

describe('quietFor', () => {
  it('is quiet once the last 2 s used at most the budget', () => {
    expect(quietFor([at(0, 500), at(1, 500), at(2, 510)], 2000, 20)).toBe(true);
  });

  it('is not quiet while a GC burst is inside the last 2 s', () => {
    expect(quietFor([at(0, 500), at(1, 630), at(2, 640)], 2000, 20)).toBe(false);
    expect(quietFor([at(0, 500), at(1, 500), at(2, 630), at(3, 640)], 2000, 20)).toBe(false);
    // The burst ended before the reading 2 s back: quiet since.
    expect(quietFor([at(0, 500), at(1, 630), at(2, 640), at(3, 640)], 2000, 20)).toBe(true);
  });

  it('needs readings spanning the whole quiet time', () => {
    expect(quietFor([at(0, 500), at(1.5, 500)], 2000, 20)).toBe(false);
    expect(quietFor([], 2000, 20)).toBe(false);
  });
});
