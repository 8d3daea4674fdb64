// Sample-format edges shared by every stage: float (int16 scale) -> s16 with rounding and
// clipping, and the soft limiter used wherever several sources are summed.

export const INT16_MAX = 32767;
export const INT16_MIN = -32768;

// Hot loops use the array helpers below, which write the limits as literals. Measured: with the
// limits read from module constants, once a sample clipped V8 merged the (tagged) constant with the
// (float) rounded value and boxed every later sample, i.e. an allocation per sample that tests with
// moderate signals never saw. test/unit/audio/allocations.test.ts now drives every stage into clipping.

/** Round to nearest and clip to the s16 range (an Int16Array store alone would wrap around). */
export function toInt16(x: number): number {
  const r = Math.round(x);
  return r > INT16_MAX ? INT16_MAX : r < INT16_MIN ? INT16_MIN : r;
}

/** Where the soft limiter starts bending (int16 scale): below it the signal passes bit-exact. */
export const LIMITER_KNEE = 24576; // 0.75 full scale
const HEADROOM = INT16_MAX - LIMITER_KNEE;

/**
 * Static soft limiter: identity below the knee, then a tanh curve that meets the knee with slope 1
 * and approaches full scale asymptotically, so summed speakers never wrap or hard-clip.
 * Static (no gain riding) on purpose: it is stateless, so chunking cannot change its output.
 */
export function softLimit(x: number): number {
  if (x > LIMITER_KNEE) return LIMITER_KNEE + HEADROOM * Math.tanh((x - LIMITER_KNEE) / HEADROOM);
  if (x < -LIMITER_KNEE) return -LIMITER_KNEE - HEADROOM * Math.tanh((-x - LIMITER_KNEE) / HEADROOM);
  return x;
}

/** dst[i] = round-and-clip(src[i]) for i < count. */
export function roundClipInto(src: Float32Array | Float64Array, dst: Int16Array, count: number): void {
  for (let i = 0; i < count; i++) {
    const r = Math.round(src[i]!);
    dst[i] = r > 32767 ? 32767 : r < -32768 ? -32768 : r;
  }
}

/** dst[i] = round-and-clip(softLimit(src[i])) for i < count (the limiter inlined, see above). */
export function softLimitInto(src: Float32Array | Float64Array, dst: Int16Array, count: number): void {
  for (let i = 0; i < count; i++) {
    let x = src[i]!;
    if (x > 24576)
      x = 24576 + 8191 * Math.tanh((x - 24576) / 8191); // LIMITER_KNEE, HEADROOM as literals
    else if (x < -24576) x = -24576 - 8191 * Math.tanh((-x - 24576) / 8191);
    const r = Math.round(x);
    dst[i] = r > 32767 ? 32767 : r < -32768 ? -32768 : r;
  }
}

/**
 * A reusable output buffer that hands out views without allocating in steady state: the view for the
 * last length is cached, so a stream of equal-sized chunks (the normal 20 ms case) creates no objects.
 */
export class ReusableInt16Output {
  #buf = new Int16Array(0);
  #view = new Int16Array(0);

  /** The backing buffer, grown (warm-up only) to hold at least `capacity` samples. */
  ensure(capacity: number): Int16Array {
    if (this.#buf.length < capacity) {
      this.#buf = new Int16Array(Math.max(capacity, this.#buf.length * 2));
      this.#view = this.#buf.subarray(0, 0);
    }
    return this.#buf;
  }

  /** A view of the first `length` samples; reused when the length repeats. */
  view(length: number): Int16Array {
    if (this.#view.length !== length || this.#view.buffer !== this.#buf.buffer)
      this.#view = this.#buf.subarray(0, length);
    return this.#view;
  }
}

/** True when every sample is zero: digital silence (the clock's filler), not a quiet sound. */
export function isDigitalSilence(pcm: Int16Array): boolean {
  for (let i = 0; i < pcm.length; i++) if (pcm[i] !== 0) return false;
  return true;
}
