// PCM and randomness helpers shared by the fakes, the tests and the benchmarks.

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
export function tailPcm<T = Int16Array>(chunks: readonly T[], samples: number, pcmOf: (chunk: T) => Int16Array = (c) => c as Int16Array): Int16Array {
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
