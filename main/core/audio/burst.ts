// A click (a key, a tap) against a voice, by where a frame's energy sits: a click puts most of it in
// one 2.5 ms block, a voice spreads it over its pitch periods. The voice gate asks it of an onset's
// opening frames (docs/audio.md "Phantom turns"), local barge-in of a frame that would cut a reply.

/** Sub-blocks in which a click's energy is looked for: 2.5 ms at 16 kHz. */
const BURST_BLOCK = 40;

/**
 * Whether `length` samples of `samples` from `start` (wrapping around the array: a ring) hold more
 * than `maxShare` of their energy in one 2.5 ms block: a click (a key, a tap), not a voice, whose
 * energy spreads over its pitch periods. A boolean, not the share: a fractional return is boxed.
 * `blockSamples` is 2.5 ms at the samples' rate (40 at 16 kHz; barge-in.ts tests 48 kHz frames with 120).
 */
export function isBurst(
  samples: Int16Array,
  start: number,
  length: number,
  maxShare: number,
  blockSamples = BURST_BLOCK,
): boolean {
  let total = 0;
  let loudest = 0;
  for (let b = 0; b < length; b += blockSamples) {
    let block = 0;
    for (let i = b; i < Math.min(length, b + blockSamples); i++) {
      const v = samples[(start + i) % samples.length]!;
      block += v * v;
    }
    total += block;
    if (block > loudest) loudest = block;
  }
  return loudest > maxShare * total;
}
