// The fake Realtime service's `response.done` usage: each response reads the whole conversation so
// far as input (billed per response, as `response.done` usage says), and its own output joins it.
import type { ConversationItemInput } from './protocol.ts';

/** OpenAI's published audio token rates: 1 token per 100 ms of input audio, per 50 ms of output. */
const INPUT_AUDIO_MS_PER_TOKEN = 100;
const OUTPUT_AUDIO_MS_PER_TOKEN = 50;
const IMAGE_TOKENS = 765;
/** A text estimate: ~4 characters per token. */
const textTokens = (text: string): number => Math.ceil(text.length / 4);

/** `response.done` `response.usage` as the service sends it. */
export interface RealtimeUsageSent {
  total_tokens: number;
  input_tokens: number;
  output_tokens: number;
  input_token_details: { text_tokens: number; audio_tokens: number; image_tokens: number; cached_tokens: number };
  output_token_details: { text_tokens: number; audio_tokens: number };
}

export class RealtimeUsageMeter {
  /** The conversation so far in tokens. */
  readonly #context = { text: 0, audio: 0, image: 0 };
  /** Every usage sent in response.done (tests compare the client's accounting with it). */
  readonly sent: RealtimeUsageSent[] = [];

  /** A committed user turn of `ms` of audio. */
  addInputAudio(ms: number): void {
    this.#context.audio += Math.ceil(ms / INPUT_AUDIO_MS_PER_TOKEN);
  }

  /** A conversation item the client created (text, images, a tool's output). */
  countItem(item: ConversationItemInput): void {
    const parts =
      'content' in item && Array.isArray(item.content) ? (item.content as { type?: string; text?: string }[]) : [];
    for (const part of parts) {
      if (part.type === 'input_image') this.#context.image += IMAGE_TOKENS;
      else if (typeof part.text === 'string') this.#context.text += textTokens(part.text);
    }
    if (item.type === 'function_call_output') this.#context.text += textTokens(String(item.output ?? ''));
  }

  /** One response's usage (the instructions count once, with the first); its output joins the context. */
  response(outputAudioMs: number, transcript: string, instructions: unknown): RealtimeUsageSent {
    if (this.#context.text === 0) this.#context.text = textTokens(String(instructions ?? ''));
    const input = {
      text_tokens: this.#context.text,
      audio_tokens: this.#context.audio,
      image_tokens: this.#context.image,
      cached_tokens: 0,
    };
    const output = {
      text_tokens: textTokens(transcript),
      audio_tokens: Math.ceil(outputAudioMs / OUTPUT_AUDIO_MS_PER_TOKEN),
    };
    const inputTokens = input.text_tokens + input.audio_tokens + input.image_tokens;
    const outputTokens = output.text_tokens + output.audio_tokens;
    const usage: RealtimeUsageSent = {
      total_tokens: inputTokens + outputTokens,
      input_tokens: inputTokens,
      output_tokens: outputTokens,
      input_token_details: input,
      output_token_details: output,
    };
    this.sent.push(usage);
    this.#context.audio += output.audio_tokens;
    this.#context.text += output.text_tokens;
    return usage;
  }
}
