// Test signals and measurements for the end-to-end call tests.
import { setTimeout as sleep } from 'node:timers/promises';

/** A linear chirp (non-periodic, so only the right alignment correlates), mono s16, faded in and out. */
export function chirpMono(seconds: number, f0: number, f1: number, rate: number, amplitude = 12_000): Int16Array {
  const n = Math.round(seconds * rate);
  const out = new Int16Array(n);
  const k = (f1 - f0) / seconds;
  const fadeSamples = rate / 100;
  for (let i = 0; i < n; i++) {
    const t = i / rate;
    const fade = Math.min(1, i / fadeSamples, (n - i) / fadeSamples);
    out[i] = Math.round(amplitude * fade * Math.sin(2 * Math.PI * (f0 * t + (k * t * t) / 2)));
  }
  return out;
}

export function chirpStereo(seconds: number, f0: number, f1: number, rate: number): Int16Array {
  const mono = chirpMono(seconds, f0, f1, rate);
  const out = new Int16Array(mono.length * 2);
  for (let i = 0; i < mono.length; i++) out[2 * i] = out[2 * i + 1] = mono[i]!;
  return out;
}

function correlationAt(expected: Int16Array, received: Int16Array, lag: number, step: number): number {
  let dot = 0;
  let ee = 0;
  let rr = 0;
  const from = Math.max(0, -lag);
  const to = Math.min(expected.length, received.length - lag);
  for (let i = from; i < to; i += step) {
    const a = expected[i]!;
    const b = received[i + lag]!;
    dot += a * b;
    ee += a * a;
    rr += b * b;
  }
  return ee > 0 && rr > 0 ? dot / Math.sqrt(ee * rr) : 0;
}

/**
 * Best normalised cross-correlation of `expected` anywhere inside `received` (codecs, filters and
 * buffers delay the signal by an unknown amount): a coarse search over every lag on a sparse sum,
 * then an exact one around the best coarse lag.
 */
export function normalizedCorrelation(
  expected: Int16Array,
  received: Int16Array,
): { correlation: number; lag: number } {
  let bestLag = 0;
  let best = -1;
  for (let lag = -Math.floor(expected.length / 2); lag < received.length - expected.length / 2; lag += 2) {
    const c = correlationAt(expected, received, lag, 7);
    if (c > best) {
      best = c;
      bestLag = lag;
    }
  }
  let result = { correlation: -1, lag: bestLag };
  for (let lag = bestLag - 8; lag <= bestLag + 8; lag++) {
    const c = correlationAt(expected, received, lag, 1);
    if (c > result.correlation) result = { correlation: c, lag };
  }
  return result;
}

export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}
