// Signal generators and single-bin DFT measurements shared by the audio unit tests and the audio
// benchmark. Tones use whole-Hz frequencies analysed over whole-second windows, so every tone sits
// exactly on a DFT bin and needs no window (no leakage to mask a -100 dB alias).
import { concatPcm } from '../../main/fakes/shared/pcm.ts';

/** Interleaved 48 kHz (or any rate) stereo s16 sine, same on both channels unless `rightGain` says otherwise. */
export function stereoSine(
  rate: number,
  seconds: number,
  freqHz: number,
  amplitude: number,
  rightGain = 1,
): Int16Array {
  const n = Math.round(rate * seconds);
  const out = new Int16Array(2 * n);
  for (let i = 0; i < n; i++) {
    const s = amplitude * Math.sin((2 * Math.PI * freqHz * i) / rate);
    out[2 * i] = Math.round(s);
    out[2 * i + 1] = Math.round(s * rightGain);
  }
  return out;
}

export function monoSine(rate: number, seconds: number, freqHz: number, amplitude: number): Int16Array {
  const n = Math.round(rate * seconds);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.round(amplitude * Math.sin((2 * Math.PI * freqHz * i) / rate));
  return out;
}

/**
 * Amplitude and phase of the component at `freqHz` in `length` samples of channel `channel` of an
 * interleaved signal with `channels` channels, starting at frame `startFrame`. Exact when the window
 * holds a whole number of cycles.
 */
export function toneAt(
  signal: ArrayLike<number>,
  rate: number,
  freqHz: number,
  startFrame: number,
  length: number,
  channels = 1,
  channel = 0,
): { amplitude: number; phase: number } {
  let re = 0;
  let im = 0;
  const w = (2 * Math.PI * freqHz) / rate;
  for (let i = 0; i < length; i++) {
    const t = startFrame + i;
    const x = signal[t * channels + channel]!;
    re += x * Math.cos(w * t);
    im += x * Math.sin(w * t);
  }
  const scale = freqHz === 0 ? 1 / length : 2 / length;
  return { amplitude: Math.hypot(re, im) * scale, phase: Math.atan2(re, im) };
}

// The Goertzel amplitude lives with the fakes (their scripted-speech transcriber uses it).
export { amplitudeAt } from '../../main/fakes/shared/pcm.ts';

/** Where a tone at `freqHz` lands after sampling at `rate` (folding around multiples of rate / 2). */
export function foldedFrequency(freqHz: number, rate: number): number {
  const m = freqHz % rate;
  return m > rate / 2 ? rate - m : m;
}

export function db(ratio: number): number {
  return 20 * Math.log10(ratio);
}

/** Deterministic PRNG (mulberry32) so test and benchmark signals are reproducible. */
export { seededRandom as prng } from '../../main/fakes/shared/pcm.ts';

/** Feed `input` to `process` in chunks of `chunk` values and concatenate the outputs (copying each view). */
export function feedInChunks(
  input: Int16Array,
  chunk: number | (() => number),
  process: (pcm: Int16Array) => Int16Array,
): Int16Array {
  const parts: Int16Array[] = [];
  for (let i = 0; i < input.length;) {
    const size = typeof chunk === 'number' ? chunk : chunk();
    parts.push(process(input.subarray(i, Math.min(input.length, i + size))).slice());
    i += size;
  }
  return concatPcm(parts);
}
