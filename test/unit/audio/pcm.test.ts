import { describe, expect, it } from 'vitest';
import { LIMITER_KNEE, roundClipInto, softLimit, softLimitInto, toInt16 } from '../../../main/core/audio/pcm.ts';

// The array helpers repeat the limits as literals (see pcm.ts for why); they must agree with the scalar versions.
const values = Float64Array.from({ length: 4001 }, (_, i) => (i - 2000) * 40.37);

describe('s16 edges', () => {
  it('rounds and clips instead of wrapping', () => {
    expect(toInt16(32_767.4)).toBe(32_767);
    expect(toInt16(40_000)).toBe(32_767);
    expect(toInt16(-40_000)).toBe(-32_768);
    expect(toInt16(1.5)).toBe(2);
    const dst = new Int16Array(values.length);
    roundClipInto(values, dst, values.length);
    for (let i = 0; i < values.length; i++) expect(dst[i]).toBe(toInt16(values[i]!));
    const fromFloat32 = new Int16Array(values.length);
    roundClipInto(Float32Array.from(values), fromFloat32, values.length);
    for (let i = 0; i < values.length; i++) expect(fromFloat32[i]).toBe(toInt16(Math.fround(values[i]!)));
  });

  it('soft limiter: identity below the knee, smooth, monotonic, never past full scale', () => {
    expect(softLimit(LIMITER_KNEE - 1)).toBe(LIMITER_KNEE - 1);
    expect(softLimit(-20_000)).toBe(-20_000);
    expect(softLimit(200_000)).toBeLessThanOrEqual(32_767);
    expect(softLimit(-200_000)).toBeGreaterThanOrEqual(-32_767);
    const dst = new Int16Array(values.length);
    softLimitInto(values, dst, values.length);
    for (let i = 0; i < values.length; i++) {
      expect(dst[i]).toBe(toInt16(softLimit(values[i]!)));
      if (i > 0) expect(dst[i]!).toBeGreaterThanOrEqual(dst[i - 1]!);
    }
  });
});
