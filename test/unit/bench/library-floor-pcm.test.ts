// The library floor's naive conversions (bench/lib/library-floor-pcm.ts): the sample counts a
// model's rate asks for, L and R averaged, chunks handed on whole, and the way back to stereo.
import { describe, expect, it } from 'vitest';
import { decimationFactor, downmixDecimate, upsampleToStereo } from '../../../bench/lib/library-floor-pcm.ts';

/** One 20 ms Discord frame, 48 kHz interleaved stereo, L = `left(i)`, R = `right(i)`. */
function frame(left: (i: number) => number, right: (i: number) => number): Int16Array {
  const pcm = new Int16Array(960 * 2);
  for (let i = 0; i < 960; i++) {
    pcm[2 * i] = left(i);
    pcm[2 * i + 1] = right(i);
  }
  return pcm;
}

describe('library floor PCM', () => {
  it('steps 48 kHz down by a whole factor only', () => {
    expect(decimationFactor(16_000)).toBe(3);
    expect(decimationFactor(24_000)).toBe(2);
    expect(decimationFactor(48_000)).toBe(1);
    expect(() => decimationFactor(44_100)).toThrow(/does not divide/);
  });

  it('turns a 20 ms stereo frame into 320 samples at 16 kHz and 480 at 24 kHz', () => {
    const pcm = frame(
      () => 100,
      () => 100,
    );
    for (const [rate, samples] of [
      [16_000, 320],
      [24_000, 480],
    ] as const) {
      const out = new Int16Array(10_000);
      const fill = downmixDecimate(pcm, decimationFactor(rate), out, 0, () => expect.unreachable('no chunk fills'));
      expect(fill).toBe(samples);
    }
  });

  it('averages L and R of every factor-th frame, with no filter', () => {
    const out = new Int16Array(10_000);
    const fill = downmixDecimate(
      frame(
        (i) => i,
        (i) => -i + 2000,
      ),
      3,
      out,
      0,
      () => undefined,
    );
    expect(fill).toBe(320);
    expect(out[0]).toBe(1000);
    expect(out[1]).toBe(1000); // frame 3: (3 + 1997) / 2
    const ramp = downmixDecimate(
      frame(
        (i) => 2 * i,
        () => 0,
      ),
      3,
      out,
      0,
      () => undefined,
    );
    expect(ramp).toBe(320);
    expect(out[5]).toBe(15); // frame 15: (30 + 0) / 2
  });

  it('hands on each full chunk and carries the rest into the next frame', () => {
    const chunk = new Int16Array(1600); // 100 ms at 16 kHz
    const chunks: number[] = [];
    let fill = 0;
    for (let f = 0; f < 7; f++)
      fill = downmixDecimate(
        frame(
          () => f,
          () => f,
        ),
        3,
        chunk,
        fill,
        (c) => chunks.push(c.length),
      );
    // 7 frames × 320 = 2240 samples: one chunk of 1600 handed on, 640 waiting.
    expect(chunks).toEqual([1600]);
    expect(fill).toBe(640);
    expect(chunk[639]).toBe(6);
  });

  it('brings 24 kHz mono back to 48 kHz stereo, each sample repeated with L = R', () => {
    const out = upsampleToStereo(Int16Array.from([1, -2, 3]), 2);
    expect(out.length).toBe(12);
    expect([...out]).toEqual([1, 1, 1, 1, -2, -2, -2, -2, 3, 3, 3, 3]);
    expect(upsampleToStereo(new Int16Array(480), 2).length).toBe(960 * 2); // 20 ms at 24 kHz → one Discord frame
  });
});
