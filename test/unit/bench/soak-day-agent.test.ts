// The day soak's agent waits on the soak's seeded random (bench/lib/soak-day-agent.ts): the same
// seed gives the same schedule, within ± 20 % of the mean.
import { describe, expect, it } from 'vitest';
import { jittered } from '../../../bench/lib/soak-day-agent.ts';

describe('day soak agent schedule', () => {
  it('waits the mean ± 20 %, from the random it is given', () => {
    expect(jittered(20, () => 0)).toBe(16_000);
    expect(jittered(20, () => 0.5)).toBe(20_000);
    expect(jittered(20, () => 0.999)).toBeLessThan(24_000);
  });
});
