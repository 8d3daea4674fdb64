// Model speech arrives as `inlineData` with a MIME type such as `audio/pcm;rate=24000`. The rate is
// read from the MIME type, not assumed: 24 kHz (what the port promises the bridge) passes through
// untouched; another rate is resampled to 24 kHz (linear interpolation: a rate change the service
// makes is rare, and being slightly soft beats playing at the wrong speed and pitch).

export const MODEL_OUTPUT_RATE = 24_000;
const MIN_RATE = 8_000;
const MAX_RATE = 96_000;

/** `rate=` of an `audio/pcm` MIME type; 24000 when it names none (the documented default); null when unusable. */
export function pcmRateOf(mimeType: string): number | null {
  const match = /(?:^|;)\s*rate\s*=\s*(\d+)\s*(?:;|$)/i.exec(mimeType);
  if (!match) return /rate\s*=/i.test(mimeType) ? null : MODEL_OUTPUT_RATE;
  const rate = Number(match[1]);
  return rate >= MIN_RATE && rate <= MAX_RATE ? rate : null;
}

/** Mono s16 at `rate` → mono s16 at 24 kHz (the same array when already 24 kHz). */
export function toModelOutputRate(pcm: Int16Array, rate: number): Int16Array {
  if (rate === MODEL_OUTPUT_RATE || pcm.length === 0) return pcm;
  const outLength = Math.max(1, Math.round((pcm.length * MODEL_OUTPUT_RATE) / rate));
  const out = new Int16Array(outLength);
  const step = rate / MODEL_OUTPUT_RATE;
  const last = pcm.length - 1;
  for (let i = 0; i < outLength; i++) {
    const x = i * step;
    const i0 = Math.min(last, Math.floor(x));
    const i1 = Math.min(last, i0 + 1);
    const t = x - i0;
    out[i] = Math.round(pcm[i0]! * (1 - t) + pcm[i1]! * t);
  }
  return out;
}
