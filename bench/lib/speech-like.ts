// A synthetic, speech-like test signal (no third-party recordings): voiced segments (a glottal pulse
// train with moving pitch through three moving formant resonators), unvoiced fricatives (noise with
// energy up to the Nyquist frequency, which is what exercises an anti-alias filter) and pauses.
import { prng } from './tone-analysis.ts';

class Resonator {
  #y1 = 0;
  #y2 = 0;
  readonly #rate: number;
  constructor(rate: number) {
    this.#rate = rate;
  }
  step(x: number, freq: number, bandwidth: number): number {
    const r = Math.exp((-Math.PI * bandwidth) / this.#rate);
    const a1 = 2 * r * Math.cos((2 * Math.PI * freq) / this.#rate);
    const a2 = -r * r;
    const y = (1 - r) * x + a1 * this.#y1 + a2 * this.#y2;
    this.#y2 = this.#y1;
    this.#y1 = y;
    return y;
  }
}

const VOWELS: [number, number, number][] = [
  [730, 1090, 2440], // a
  [270, 2290, 3010], // i
  [300, 870, 2240], // u
  [530, 1840, 2480], // e
  [570, 840, 2410], // o
];

/** Mono speech-like signal at `rate`, peak-normalised to -3 dBFS, as float (int16 scale). */
export function speechLike(rate: number, seconds: number, seed = 42): Float64Array {
  const rnd = prng(seed);
  const n = Math.round(rate * seconds);
  const out = new Float64Array(n);
  const f1 = new Resonator(rate);
  const f2 = new Resonator(rate);
  const f3 = new Resonator(rate);
  const fr = new Resonator(rate);
  let phase = 0;
  let segmentEnd = 0;
  let kind: 'voiced' | 'fricative' | 'pause' = 'pause';
  let vowel = VOWELS[0]!;
  let hpPrev = 0;
  let hpOut = 0;
  for (let i = 0; i < n; i++) {
    if (i >= segmentEnd) {
      const pick = rnd();
      kind = pick < 0.6 ? 'voiced' : pick < 0.85 ? 'fricative' : 'pause';
      vowel = VOWELS[Math.floor(rnd() * VOWELS.length)]!;
      segmentEnd = i + Math.round(rate * (0.06 + rnd() * 0.2));
    }
    const t = i / rate;
    let v: number;
    if (kind === 'voiced') {
      const f0 = 140 + 40 * Math.sin(2 * Math.PI * 0.7 * t) + 10 * Math.sin(2 * Math.PI * 5 * t);
      phase += f0 / rate;
      let pulse = 0;
      if (phase >= 1) {
        phase -= 1;
        pulse = 1;
      }
      const src = pulse * 4000 + (rnd() * 2 - 1) * 30;
      v = f1.step(src, vowel[0], 80) * 3 + f2.step(src, vowel[1], 100) * 2 + f3.step(src, vowel[2], 150);
    } else if (kind === 'fricative') {
      const noise = (rnd() * 2 - 1) * 3000;
      hpOut = 0.7 * (hpOut + noise - hpPrev); // one-pole high-pass...
      hpPrev = noise;
      // ...plus a broad 's'-like resonance near 6 kHz: energy well above 8 kHz but falling, as in speech.
      v = 0.3 * hpOut + fr.step(hpOut, Math.min(6000, rate / 4), 3000) * 4;
      f1.step(0, vowel[0], 80);
      f2.step(0, vowel[1], 100);
      f3.step(0, vowel[2], 150);
    } else {
      v = f1.step(0, vowel[0], 80) * 3 + f2.step(0, vowel[1], 100) * 2 + f3.step(0, vowel[2], 150);
    }
    out[i] = v;
  }
  let peak = 0;
  for (const v of out) peak = Math.max(peak, Math.abs(v));
  const scale = (0.708 * 32767) / peak;
  for (let i = 0; i < n; i++) out[i] = out[i]! * scale;
  return out;
}

/**
 * The fake model's voice for the latency bench: continuous voiced speech at `rate` (mono), a
 * harmonic series on a ≈ 210 Hz fundamental with a slow glide (another voice than the fake owner's
 * ≈ 140 Hz), harmonics up to 4 kHz falling 6 dB an octave, a syllable envelope of about 4.5 Hz that
 * never falls silent (so every packet of it sounds, and the last loud packet of a cut reply is the
 * cut), 10 ms fades, at -15 dBFS RMS (the level of the fakes' default 440 Hz reply tone). A reply
 * that fills the bands speech fills, so a barge-in figure is not flattered by a pure tone's empty
 * spectrum (main/core/bridge/barge-in.ts tells a voice from our echo partly by band).
 */
export function voicedReply(ms: number, rate = 24_000): Int16Array {
  const n = Math.round((rate * ms) / 1000);
  const out = new Float64Array(n);
  let phase = 0;
  let sumSq = 0;
  const fade = rate / 100;
  for (let i = 0; i < n; i++) {
    const t = i / rate;
    const f0 = 210 + 30 * Math.sin(2 * Math.PI * 0.5 * t);
    phase += (2 * Math.PI * f0) / rate;
    let v = 0;
    for (let h = 1; h * f0 < 4000; h++) v += Math.sin(h * phase) / h;
    const syllables = 0.7 + 0.3 * Math.sin(2 * Math.PI * 4.5 * t);
    v *= syllables * Math.min(1, i / fade, (n - 1 - i) / fade);
    out[i] = v;
    sumSq += v * v;
  }
  const scale = (32768 * 10 ** (-15 / 20)) / Math.sqrt(sumSq / Math.max(1, n));
  return Int16Array.from(out, (v) => Math.max(-32768, Math.min(32767, Math.round(v * scale))));
}

export function toInt16Mono(x: Float64Array): Int16Array {
  return Int16Array.from(x, (v) => Math.max(-32768, Math.min(32767, Math.round(v))));
}

export function monoToStereo(x: Int16Array): Int16Array {
  const out = new Int16Array(2 * x.length);
  for (let i = 0; i < x.length; i++) out[2 * i] = out[2 * i + 1] = x[i]!;
  return out;
}
