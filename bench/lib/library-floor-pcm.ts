// The library floor's only audio work (bench/library-floor.ts, issue 51 item 6): the naive
// conversions any bridge between Discord's 48 kHz stereo and a model's mono needs, with no filter,
// so the floor counts what the libraries cost and nothing of ours (no resampler kernel, no mixer).
// Pure functions, tested in test/unit/bench/library-floor-pcm.test.ts.

/** Discord's decoded rate; the model rates divide it (16 kHz: 3, 24 kHz: 2). */
export const DISCORD_RATE = 48_000;

/** The whole-number step from 48 kHz to `rate`; a rate that does not divide 48 kHz has no naive path. */
export function decimationFactor(rate: number): number {
  const factor = DISCORD_RATE / rate;
  if (!Number.isInteger(factor) || factor < 1) throw new Error(`${rate} Hz does not divide ${DISCORD_RATE} Hz`);
  return factor;
}

/**
 * 48 kHz interleaved stereo → mono at 48 kHz / `factor`: the average of L and R of every
 * `factor`-th frame, no low-pass (aliasing and all: the floor pays for no filter). Writes into
 * `out` from `at` and calls `full` each time `out` fills (then goes on from 0); returns the new fill.
 */
export function downmixDecimate(
  stereo: Int16Array,
  factor: number,
  out: Int16Array,
  at: number,
  full: (chunk: Int16Array) => void,
): number {
  let fill = at;
  for (let i = 0; i + 1 < stereo.length; i += 2 * factor) {
    out[fill++] = (stereo[i]! + stereo[i + 1]!) >> 1;
    if (fill === out.length) {
      full(out);
      fill = 0;
    }
  }
  return fill;
}

/** Mono at 48 kHz / `factor` → 48 kHz interleaved stereo: each sample repeated, L = R (no interpolation). */
export function upsampleToStereo(mono: Int16Array, factor: number): Int16Array {
  const step = 2 * factor;
  const output = new Int16Array(mono.length * step);
  for (let i = 0; i < mono.length; i++) output.fill(mono[i]!, i * step, i * step + step);
  return output;
}
