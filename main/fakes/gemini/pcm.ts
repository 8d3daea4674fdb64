// PCM helpers shared by the fake server, the tests and the demo. s16le mono throughout.

export const MODEL_OUTPUT_RATE = 24_000;
export const MODEL_INPUT_RATE = 16_000;

/** A sine tone: what the fake "says" when no PCM is given. */
export function tone(ms: number, options: { rate?: number; hz?: number; amplitude?: number } = {}): Int16Array {
  const rate = options.rate ?? MODEL_OUTPUT_RATE;
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

export { concatPcm } from '../shared/pcm.ts';

export function rms(pcm: Int16Array): number {
  if (pcm.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < pcm.length; i++) sum += pcm[i]! * pcm[i]!;
  return Math.sqrt(sum / pcm.length);
}

/** `audio/pcm;rate=16000` → 16000 (null when the MIME type states no rate). */
export function rateOf(mimeType: string | undefined): number | null {
  const match = /rate=(\d+)/.exec(mimeType ?? '');
  return match ? Number(match[1]) : null;
}
