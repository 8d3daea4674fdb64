// What the fake Gemini service records and how tests script its model's replies.

export type JsonObject = Record<string, unknown>;

export interface RecordedAudio {
  pcm: Int16Array;
  /** From the chunk's MIME type (`audio/pcm;rate=16000` → 16000). */
  rate: number | null;
  mimeType: string;
}

export interface RecordedFrame {
  data: Buffer;
  mimeType: string;
}

export interface FunctionResponseRecord {
  id?: string;
  name?: string;
  response?: JsonObject;
}

export interface ReplyScript {
  /** 24 kHz PCM to speak; default a 440 Hz tone of `toneMs`. */
  pcm?: Int16Array;
  toneMs?: number;
  /** Output transcription, spread over the audio chunks word by word. */
  transcript?: string;
  /** Sent first, as the transcription of what the user said. */
  inputTranscript?: string;
  /** Audio per message (the real service sends tens of ms per chunk). */
  chunkMs?: number;
  /** Wall time between chunks; less than chunkMs means faster than real time (the service does this). */
  paceMs?: number;
  delayMs?: number;
  /** End with generationComplete + turnComplete (default true). */
  complete?: boolean;
}

export type ReplyOutcome = 'complete' | 'interrupted' | 'closed';

export interface PendingToolCall {
  name: string;
  args: JsonObject;
}
