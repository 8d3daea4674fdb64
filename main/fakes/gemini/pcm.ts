// Gemini's audio rates and MIME parameter; the neutral PCM helpers live in ../shared/pcm.ts and are
// re-exported here for the tests and the demo that take them from the Gemini fake.
export { base64ToPcm, concatPcm, pcmToBase64, rms, tone } from '../shared/pcm.ts';

export const MODEL_OUTPUT_RATE = 24_000;
export const MODEL_INPUT_RATE = 16_000;

/** `audio/pcm;rate=16000` → 16000 (null when the MIME type states no rate). */
export function rateOf(mimeType: string | undefined): number | null {
  const match = /rate=(\d+)/.exec(mimeType ?? '');
  return match ? Number(match[1]) : null;
}
