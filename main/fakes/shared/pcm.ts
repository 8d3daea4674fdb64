// PCM and randomness helpers shared by the fakes, the tests and the benchmarks (s16le mono; every
// fake, whatever its protocol, encodes audio as base64 of these samples).

/** A sine tone: what a fake model "says" when no PCM is given (24 kHz: every model fake's output rate). */
export function tone(ms: number, options: { rate?: number; hz?: number; amplitude?: number } = {}): Int16Array {
  const rate = options.rate ?? 24_000;
  const hz = options.hz ?? 440;
  const amplitude = options.amplitude ?? 8000;
  const out = new Int16Array(Math.round((rate * ms) / 1000));
  for (let i = 0; i < out.length; i++) out[i] = Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate));
  return out;
}

export function pcmToBase64(pcm: Int16Array): string {
  return Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).toString('base64');
}

export function base64ToPcm(data: string): Int16Array {
  const bytes = Buffer.from(data, 'base64');
  const out = new Int16Array(bytes.length >> 1);
  new Uint8Array(out.buffer).set(bytes.subarray(0, out.length * 2));
  return out;
}

export function rms(pcm: Int16Array): number {
  if (pcm.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < pcm.length; i++) sum += pcm[i]! * pcm[i]!;
  return Math.sqrt(sum / pcm.length);
}

/** One Int16Array holding all chunks in order. */
export function concatPcm(chunks: readonly Int16Array[]): Int16Array {
  const out = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** A small deterministic PRNG (mulberry32): reproducible loss patterns, noise and chunk sizes. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The last `samples` values of a chunked recording (fewer when it holds fewer), as one array.
 * `pcmOf` reads a chunk's samples when the recording holds records rather than plain arrays.
 */
export function tailPcm<T = Int16Array>(
  chunks: readonly T[],
  samples: number,
  pcmOf: (chunk: T) => Int16Array = (c) => c as Int16Array,
): Int16Array {
  const out = new Int16Array(samples);
  let at = samples;
  for (let i = chunks.length - 1; i >= 0 && at > 0; i--) {
    const pcm = pcmOf(chunks[i]!);
    const take = Math.min(at, pcm.length);
    out.set(pcm.subarray(pcm.length - take), at - take);
    at -= take;
  }
  return out.subarray(at);
}

/**
 * Amplitude of the component at `freqHz` in a mono signal, in sample units (Goertzel): the same
 * single-bin DFT as `toneAt` (bench/lib/tone-analysis.ts), without the phase, at one multiply-add per sample, so a fake
 * transcriber can scan many tones in every block it hears.
 */
export function amplitudeAt(pcm: ArrayLike<number>, freqHz: number, rate: number): number {
  const k = 2 * Math.cos((2 * Math.PI * freqHz) / rate);
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < pcm.length; i++) {
    const s0 = pcm[i]! + k * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return Math.sqrt(Math.max(0, s1 * s1 + s2 * s2 - k * s1 * s2)) / (pcm.length / 2);
}
