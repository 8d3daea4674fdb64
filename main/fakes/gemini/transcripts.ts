// How the fake service sends the transcription of what the user said: whole before the reply, or
// (strict.lateInputTranscript, as the real service often does) half before the model's first audio
// and the rest after it. Apart from connection.ts: message shaping, no connection state.
import type { JsonObject } from './types.ts';

/** The inputTranscription messages for a reply: [sent first, sent after the first audio]; none without a transcript. */
export function inputTranscription(text: string | undefined, late: boolean): [JsonObject | null, JsonObject | null] {
  if (!text) return [null, null];
  const [early, rest] = late ? splitTranscript(text) : [text, ''];
  const first = { serverContent: { inputTranscription: { text: early, ...(rest ? {} : { finished: true }) } } };
  return [first, rest ? { serverContent: { inputTranscription: { text: rest, finished: true } } } : null];
}

/** Splits a transcript roughly in half at a word boundary: what arrives before and after the first audio. */
function splitTranscript(text: string): [string, string] {
  const words = text.split(/(?<=\s)/);
  if (words.length < 2) return [text, ''];
  const half = Math.ceil(words.length / 2);
  return [words.slice(0, half).join(''), words.slice(half).join('')];
}
