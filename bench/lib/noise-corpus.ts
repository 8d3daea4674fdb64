// The noise corpus for phantom turns (issue #52 item 5): sounds that reach the bridge in a
// speaker's stream and are not speech — keyboard bursts, coughs, music, a fan, mains hum — and
// speech-like controls that must still open the voice gate. Every clip is synthesised here from a
// seeded generator (no recordings, no third-party audio), so the committed files in
// test/fixtures/noise-corpus are reproducible byte for byte: `node bench/lib/noise-corpus-make.ts`
// rewrites them and test/unit/noise-corpus.test.ts checks they still match this code.
// 16 kHz mono s16 (what the voice gate sees). Each clip starts with LEAD_MS of the faint floor
// noise the pause corpus also has (-66 dBFS RMS), so the gate's noise floor has settled, except the
// stationary backgrounds (fan, hum), which are there from the stream's first packet as they are in
// a call (Discord sends nothing until its client's detector opens, and then the fan is already on).
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { speechLike } from './speech-like.ts';
import { prng } from './tone-analysis.ts';
import { decodeWav } from './wav.ts';

export const NOISE_RATE = 16_000;
const LEAD_MS = 300;
const FLOOR_RMS = 16; // ≈ -66 dBFS, as under the pause corpus
const FULL_SCALE = 32768;

export type NoiseKind = 'keyboard' | 'cough' | 'music' | 'fan' | 'hum' | 'speech';

export interface NoiseClipSpec {
  file: string;
  kind: NoiseKind;
  /** noise: must open no turn and cut no reply; speech: must open the gate. */
  label: 'noise' | 'speech';
  seconds: number;
  seed: number;
  description: string;
}

export const NOISE_CLIPS: readonly NoiseClipSpec[] = [
  {
    file: 'keyboard-typing.wav',
    kind: 'keyboard',
    label: 'noise',
    seconds: 5,
    seed: 11,
    description:
      'membrane keyboard, bursts of 6-14 keys at 70-220 ms, key-down and a weaker key-up click, peaks -26 to -14 dBFS',
  },
  {
    file: 'keyboard-mechanical.wav',
    kind: 'keyboard',
    label: 'noise',
    seconds: 4,
    seed: 12,
    description:
      'mechanical keyboard: louder clicks (peaks -18 to -8 dBFS), longer body ring, a spacebar thock now and then',
  },
  {
    file: 'keyboard-close.wav',
    kind: 'keyboard',
    label: 'noise',
    seconds: 3,
    seed: 13,
    description: 'laptop keyboard next to the mic, fast typing (50-140 ms), peaks -12 to -4 dBFS',
  },
  {
    file: 'cough-single.wav',
    kind: 'cough',
    label: 'noise',
    seconds: 4,
    seed: 21,
    description:
      'three single coughs of 150-400 ms: broadband burst then a decaying resonant tail, peaks near -10 dBFS',
  },
  {
    file: 'cough-double.wav',
    kind: 'cough',
    label: 'noise',
    seconds: 3,
    seed: 22,
    description: 'a double cough and a throat clear (shaped noise, 150-400 ms each)',
  },
  {
    file: 'music-rhythm.wav',
    kind: 'music',
    label: 'noise',
    seconds: 4,
    seed: 31,
    description: 'music in the stream: a chord progression in quarter notes at 120 bpm, kick and hi-hat, -28 dBFS RMS',
  },
  {
    file: 'music-sustained.wav',
    kind: 'music',
    label: 'noise',
    seconds: 3,
    seed: 32,
    description: 'a sustained pad chord with slow tremolo and a melody line, -30 dBFS RMS',
  },
  {
    file: 'fan.wav',
    kind: 'fan',
    label: 'noise',
    seconds: 4,
    seed: 41,
    description: 'a desk fan: low-passed noise with a blade-rate wobble, -46 dBFS RMS, from the first packet',
  },
  {
    file: 'hum.wav',
    kind: 'hum',
    label: 'noise',
    seconds: 3,
    seed: 42,
    description: 'mains hum: 50 Hz and its harmonics with a little noise, -44 dBFS RMS, from the first packet',
  },
  {
    file: 'speech-like-1.wav',
    kind: 'speech',
    label: 'speech',
    seconds: 3,
    seed: 51,
    description:
      'control: synthetic speech (voiced formants, fricatives, pauses; bench/lib/speech-like.ts) at -22 dBFS RMS',
  },
  {
    file: 'speech-like-2.wav',
    kind: 'speech',
    label: 'speech',
    seconds: 3,
    seed: 52,
    description: 'control: synthetic speech, another seed, at -30 dBFS RMS (a quiet talker)',
  },
  {
    file: 'speech-over-fan.wav',
    kind: 'speech',
    label: 'speech',
    seconds: 3,
    seed: 53,
    description: 'control: the fan clip with synthetic speech at -24 dBFS RMS starting at 1.2 s',
  },
];

/** Scale `x` in place so its RMS (over the whole array, or [from, to)) is `dbfs`. */
function setRms(x: Float64Array, dbfs: number, from = 0, to = x.length): Float64Array {
  let sum = 0;
  for (let i = from; i < to; i++) sum += x[i]! * x[i]!;
  const rms = Math.sqrt(sum / Math.max(1, to - from));
  const scale = rms === 0 ? 0 : (FULL_SCALE * 10 ** (dbfs / 20)) / rms;
  for (let i = 0; i < x.length; i++) x[i] = x[i]! * scale;
  return x;
}

const dbToAmp = (dbfs: number) => FULL_SCALE * 10 ** (dbfs / 20);

/** Two-pole resonator (the same form speech-like.ts uses). */
function resonator(rate: number, freq: number, bandwidth: number): (x: number) => number {
  const r = Math.exp((-Math.PI * bandwidth) / rate);
  const a1 = 2 * r * Math.cos((2 * Math.PI * freq) / rate);
  const a2 = -r * r;
  let y1 = 0;
  let y2 = 0;
  return (x) => {
    const y = (1 - r) * x + a1 * y1 + a2 * y2;
    y2 = y1;
    y1 = y;
    return y;
  };
}

/** One key click at `at`: a noise impulse decaying with `tauMs` plus a ringing body at `bodyHz`, peak ≈ `peakDbfs`. */
function addClick(
  out: Float64Array,
  at: number,
  rnd: () => number,
  peakDbfs: number,
  tauMs: number,
  bodyHz: number,
): void {
  const n = Math.min(out.length - at, Math.round((tauMs * 8 * NOISE_RATE) / 1000));
  const body = resonator(NOISE_RATE, bodyHz, bodyHz / 6);
  const tau = (tauMs * NOISE_RATE) / 1000;
  const burst = new Float64Array(n);
  let peak = 0;
  for (let i = 0; i < n; i++) {
    const env = Math.exp(-i / tau);
    const noise = (rnd() * 2 - 1) * env;
    burst[i] = noise + 6 * body(noise);
    peak = Math.max(peak, Math.abs(burst[i]!));
  }
  const scale = peak === 0 ? 0 : dbToAmp(peakDbfs) / peak;
  for (let i = 0; i < n; i++) out[at + i] = out[at + i]! + burst[i]! * scale;
}

interface KeyboardStyle {
  gapMs: [number, number];
  peakDbfs: [number, number];
  tauMs: [number, number];
  spacebar: boolean;
}

const KEYBOARDS: Record<string, KeyboardStyle> = {
  'keyboard-typing.wav': { gapMs: [70, 220], peakDbfs: [-26, -14], tauMs: [1, 2.5], spacebar: false },
  'keyboard-mechanical.wav': { gapMs: [80, 200], peakDbfs: [-18, -8], tauMs: [2, 4], spacebar: true },
  'keyboard-close.wav': { gapMs: [50, 140], peakDbfs: [-12, -4], tauMs: [1, 3], spacebar: false },
};

function keyboard(spec: NoiseClipSpec, out: Float64Array, rnd: () => number): void {
  const style = KEYBOARDS[spec.file]!;
  const range = ([lo, hi]: [number, number]) => lo + rnd() * (hi - lo);
  let at = (LEAD_MS * NOISE_RATE) / 1000;
  while (at < out.length - NOISE_RATE / 10) {
    const keys = 6 + Math.floor(rnd() * 9);
    for (let k = 0; k < keys && at < out.length - NOISE_RATE / 10; k++) {
      const thock = style.spacebar && rnd() < 0.15;
      const peak = range(style.peakDbfs) + (thock ? 3 : 0);
      const tau = range(style.tauMs) * (thock ? 3 : 1);
      const bodyHz = thock ? 500 + rnd() * 400 : 1800 + rnd() * 2500;
      addClick(out, Math.round(at), rnd, peak, tau, bodyHz);
      // The key-up click: weaker, 60-120 ms after the key-down.
      const up = Math.round(at + ((60 + rnd() * 60) * NOISE_RATE) / 1000);
      if (up < out.length) addClick(out, up, rnd, peak - 6 - rnd() * 4, tau * 0.7, bodyHz * 1.2);
      at += (range(style.gapMs) * NOISE_RATE) / 1000;
    }
    at += ((300 + rnd() * 500) * NOISE_RATE) / 1000; // the typist pauses between words and lines
  }
}

/** One cough of `ms` at `at`: a broadband explosive burst, then noise through two resonances, decaying. */
function addCough(out: Float64Array, at: number, ms: number, rnd: () => number, peakDbfs: number, f1: number): void {
  const n = Math.min(out.length - at, Math.round((ms * NOISE_RATE) / 1000));
  const r1 = resonator(NOISE_RATE, f1, 250);
  const r2 = resonator(NOISE_RATE, f1 * 2.6, 500);
  const attack = NOISE_RATE * 0.004;
  const burstEnd = NOISE_RATE * 0.04;
  const tau = n / 3;
  const amp = dbToAmp(peakDbfs);
  for (let i = 0; i < n; i++) {
    const env =
      Math.min(1, i / attack) *
      (i < burstEnd ? 1 : Math.exp(-(i - burstEnd) / tau)) *
      Math.min(1, (n - i) / (NOISE_RATE * 0.01));
    const noise = rnd() * 2 - 1;
    const broadband = i < burstEnd ? noise : noise * 0.25;
    const shaped = 4 * r1(noise) + 3 * r2(noise);
    out[at + i] = out[at + i]! + amp * env * 0.35 * (broadband + shaped);
  }
}

function cough(spec: NoiseClipSpec, out: Float64Array, rnd: () => number): void {
  const sec = (s: number) => Math.round(s * NOISE_RATE);
  if (spec.file === 'cough-single.wav') {
    addCough(out, sec(0.5), 180, rnd, -10, 450);
    addCough(out, sec(1.7), 320, rnd, -12, 600);
    addCough(out, sec(2.9), 400, rnd, -9, 380);
  } else {
    addCough(out, sec(0.4), 200, rnd, -11, 500);
    addCough(out, sec(0.72), 260, rnd, -14, 520); // the second of a double cough
    addCough(out, sec(1.8), 350, rnd, -22, 300); // a throat clear: quieter, lower
  }
}

const CHORDS = [
  [261.63, 329.63, 392.0], // C
  [220.0, 261.63, 329.63], // Am
  [174.61, 220.0, 261.63], // F
  [196.0, 246.94, 293.66], // G
];

/** A harmonic tone (5 partials falling 6 dB each) at `freq` into `out` over [from, to) with `env`. */
function addTone(
  out: Float64Array,
  from: number,
  to: number,
  freq: number,
  gain: number,
  env: (i: number, n: number) => number,
): void {
  const n = Math.min(out.length, to) - from;
  for (let i = 0; i < n; i++) {
    const t = i / NOISE_RATE;
    let v = 0;
    for (let h = 1; h <= 5; h++) v += Math.sin(2 * Math.PI * h * freq * t) / 2 ** (h - 1);
    out[from + i] = out[from + i]! + gain * env(i, n) * v;
  }
}

function music(spec: NoiseClipSpec, out: Float64Array, rnd: () => number): void {
  const lead = (LEAD_MS * NOISE_RATE) / 1000;
  if (spec.file === 'music-rhythm.wav') {
    const beat = NOISE_RATE / 2; // 120 bpm
    const pluck = (i: number, n: number) => Math.min(1, i / 80) * Math.exp(-i / (n / 2.5));
    for (let b = 0; lead + b * beat < out.length; b++) {
      const at = lead + b * beat;
      for (const f of CHORDS[Math.floor(b / 4) % CHORDS.length]!) addTone(out, at, at + beat, f, 1, pluck);
      const hat = at + beat / 2;
      for (let i = 0; i < 600 && hat + i < out.length; i++)
        out[hat + i] = out[hat + i]! + (rnd() * 2 - 1) * 0.6 * Math.exp(-i / 120);
      if (b % 2 === 0)
        for (let i = 0; i < 2400 && at + i < out.length; i++)
          out[at + i] =
            out[at + i]! +
            3 * Math.sin(2 * Math.PI * (60 + 90 * Math.exp(-i / 400)) * (i / NOISE_RATE)) * Math.exp(-i / 1200);
    }
    setRms(out, -28, lead);
  } else {
    const tremolo = (i: number, n: number) =>
      Math.min(1, i / 1600, (n - i) / 1600) * (0.8 + 0.2 * Math.sin((2 * Math.PI * 4 * i) / NOISE_RATE));
    for (const f of CHORDS[0]!) addTone(out, lead, out.length, f / 2, 1, tremolo);
    const melody = [523.25, 587.33, 659.25, 783.99, 659.25, 587.33];
    const note = Math.floor((out.length - lead) / melody.length);
    melody.forEach((f, k) =>
      addTone(out, lead + k * note, lead + (k + 1) * note, f, 0.5, (i, n) => Math.min(1, i / 200, (n - i) / 400)),
    );
    setRms(out, -30, lead);
  }
}

/** Low-passed noise with a slow blade-rate wobble (a fan), or 50 Hz and harmonics (hum); at `dbfs` RMS. */
function background(kind: 'fan' | 'hum', out: Float64Array, rnd: () => number, dbfs: number): void {
  let lp1 = 0;
  let lp2 = 0;
  for (let i = 0; i < out.length; i++) {
    const t = i / NOISE_RATE;
    const noise = rnd() * 2 - 1;
    lp1 += 0.08 * (noise - lp1);
    lp2 += 0.08 * (lp1 - lp2);
    if (kind === 'fan') out[i] = lp2 * (1 + 0.15 * Math.sin(2 * Math.PI * 23 * t)) + 0.02 * noise;
    else
      out[i] =
        Math.sin(2 * Math.PI * 50 * t) +
        0.5 * Math.sin(2 * Math.PI * 100 * t) +
        0.35 * Math.sin(2 * Math.PI * 150 * t) +
        0.2 * Math.sin(2 * Math.PI * 250 * t) +
        0.05 * noise;
  }
  setRms(out, dbfs);
}

function speech(spec: NoiseClipSpec, out: Float64Array, rnd: () => number): void {
  const lead = (LEAD_MS * NOISE_RATE) / 1000;
  if (spec.file === 'speech-over-fan.wav') {
    background('fan', out, rnd, -46);
    const start = Math.round(1.2 * NOISE_RATE);
    const voice = setRms(speechLike(NOISE_RATE, (out.length - start) / NOISE_RATE, spec.seed), -24);
    for (let i = 0; i < voice.length && start + i < out.length; i++) out[start + i] = out[start + i]! + voice[i]!;
    return;
  }
  const voice = setRms(
    speechLike(NOISE_RATE, (out.length - lead) / NOISE_RATE, spec.seed),
    spec.seed === 51 ? -22 : -30,
  );
  for (let i = 0; i < voice.length && lead + i < out.length; i++) out[lead + i] = out[lead + i]! + voice[i]!;
}

/** The sample where the clip's sound (noise or speech) begins: after the lead, or 0 for a background there from the start. */
export function soundStart(spec: NoiseClipSpec): number {
  if (spec.kind === 'fan' || spec.kind === 'hum') return 0;
  if (spec.file === 'speech-over-fan.wav') return Math.round(1.2 * NOISE_RATE);
  return (LEAD_MS * NOISE_RATE) / 1000;
}

/** Synthesises one clip (deterministic for its seed). */
export function synthesiseNoiseClip(spec: NoiseClipSpec): Int16Array {
  const rnd = prng(spec.seed);
  const out = new Float64Array(Math.round(spec.seconds * NOISE_RATE));
  if (spec.kind === 'keyboard') keyboard(spec, out, rnd);
  else if (spec.kind === 'cough') cough(spec, out, rnd);
  else if (spec.kind === 'music') music(spec, out, rnd);
  else if (spec.kind === 'fan') background('fan', out, rnd, -46);
  else if (spec.kind === 'hum') background('hum', out, rnd, -44);
  else speech(spec, out, rnd);
  const floor = prng(spec.seed + 1000);
  return Int16Array.from(out, (v) =>
    Math.max(-32768, Math.min(32767, Math.round(v + (floor() * 2 - 1) * FLOOR_RMS * Math.sqrt(3)))),
  );
}

const CORPUS_DIR = new URL('../../test/fixtures/noise-corpus/', import.meta.url);

const labelsSchema = z.object({
  rate: z.literal(NOISE_RATE),
  clips: z
    .array(
      z.object({
        file: z.string().regex(/^[\w-]+\.wav$/),
        kind: z.enum(['keyboard', 'cough', 'music', 'fan', 'hum', 'speech']),
        label: z.enum(['noise', 'speech']),
        durationMs: z.number().int().positive(),
        samples: z.number().int().positive(),
        soundStart: z.number().int().nonnegative(),
        seed: z.number().int(),
        description: z.string(),
      }),
    )
    .min(1),
});

export type NoiseLabels = z.infer<typeof labelsSchema>;

export interface NoiseClip {
  file: string;
  kind: NoiseKind;
  label: 'noise' | 'speech';
  durationMs: number;
  soundStart: number;
  pcm: Int16Array;
}

/** labels.json for the corpus as this code makes it. */
export function noiseLabels(): NoiseLabels {
  return {
    rate: NOISE_RATE,
    clips: NOISE_CLIPS.map((spec) => ({
      file: spec.file,
      kind: spec.kind,
      label: spec.label,
      durationMs: spec.seconds * 1000,
      samples: Math.round(spec.seconds * NOISE_RATE),
      soundStart: soundStart(spec),
      seed: spec.seed,
      description: spec.description,
    })),
  };
}

/** The committed corpus (test/fixtures/noise-corpus), checked against its labels. */
export function loadNoiseCorpus(): NoiseClip[] {
  const labels = labelsSchema.parse(JSON.parse(readFileSync(new URL('labels.json', CORPUS_DIR), 'utf8')));
  return labels.clips.map((clip) => {
    const wav = decodeWav(readFileSync(new URL(clip.file, CORPUS_DIR)));
    if (wav.rate !== labels.rate || wav.samples.length !== clip.samples)
      throw new Error(
        `${clip.file}: ${wav.rate} Hz, ${wav.samples.length} samples; labels say ${labels.rate} Hz, ${clip.samples}`,
      );
    return {
      file: clip.file,
      kind: clip.kind,
      label: clip.label,
      durationMs: clip.durationMs,
      soundStart: clip.soundStart,
      pcm: wav.samples,
    };
  });
}
