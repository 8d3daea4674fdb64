// The Realtime wire pieces both Realtime sockets use (the conversation session in realtime/ and the
// transcription-only screener in transcription/): the endpoint, the input audio format and the
// error event. Reference: openai@7.57.0 src/resources/realtime/realtime.ts; research/protocols.md §2.
import { z } from 'zod';

export const DEFAULT_REALTIME_BASE_URL = 'wss://api.openai.com/v1';

/** `audio/pcm` is only accepted at 24 kHz (realtime.ts:1355-1390). */
export const REALTIME_AUDIO_RATE = 24_000;

/** The audio hot path: the JSON string built directly (no event object, no JSON.stringify). */
export function audioAppendJson(base64: string): string {
  return `{"type":"input_audio_buffer.append","audio":"${base64}"}`;
}

export const errorEvent = z.object({
  type: z.literal('error'),
  error: z.object({
    type: z.string(),
    code: z.string().nullish(),
    message: z.string(),
    param: z.string().nullish(),
    event_id: z.string().nullish(),
  }),
});
