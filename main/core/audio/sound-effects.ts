// Sound effects synthesised here (no third-party audio): deterministic, 48 kHz mono s16,
// ready for PlaybackUpsampler.mixEffect().
import { toInt16 } from './pcm.ts';

const RATE = 48_000;

interface BellNote {
  startS: number;
  freqHz: number;
  amplitude: number;
}

/**
 * A soft two-note "ding-dong" chime, about 300 ms, peaking at -6 dBFS. Each note is a small bell:
 * a fundamental plus a quieter inharmonic partial (x2.76, as in a struck bar), a 4 ms raised-cosine
 * attack (no click) and an exponential decay; the last 30 ms fade to exact zero.
 */
export function generateNotificationChime(): Int16Array {
  const durationS = 0.3;
  const frames = Math.round(durationS * RATE);
  const notes: BellNote[] = [
    { startS: 0, freqHz: 1318.51, amplitude: 1 }, // E6
    { startS: 0.09, freqHz: 1760, amplitude: 0.8 }, // A6
  ];
  const attack = 0.004 * RATE;
  const tailStart = frames - 0.03 * RATE;
  const mono = new Float64Array(frames);
  let peak = 0;
  for (let i = 0; i < frames; i++) {
    let v = 0;
    for (const note of notes) {
      const t = i / RATE - note.startS;
      if (t < 0) continue;
      const k = t * RATE;
      const env = (k < attack ? 0.5 * (1 - Math.cos((Math.PI * k) / attack)) : 1) * Math.exp(-t / 0.09);
      v +=
        note.amplitude *
        env *
        (Math.sin(2 * Math.PI * note.freqHz * t) +
          0.25 * Math.sin(2 * Math.PI * note.freqHz * 2.76 * t) * Math.exp(-t / 0.03));
    }
    if (i >= tailStart) v *= 0.5 * (1 + Math.cos((Math.PI * (i - tailStart)) / (frames - tailStart)));
    mono[i] = v;
    peak = Math.max(peak, Math.abs(v));
  }
  const scale = (0.5 * 32767) / peak;
  const out = new Int16Array(frames);
  for (let i = 0; i < frames; i++) out[i] = toInt16(mono[i]! * scale);
  return out;
}
