// The fake service's per-turn usageMetadata: the prompt is the whole context re-read (system
// instruction, earlier turns) plus the turn's new input, by modality; the response is the turn's
// audio, which then joins the context (a per-turn report whose prompt grows with the history, as a
// live probe of the service showed; docs/usage.md).
import type { JsonObject } from './types.ts';

/** Gemini counts audio at 25 tokens per second, an image at 258 tokens (ai.google.dev token docs). */
export const AUDIO_TOKENS_PER_SECOND = 25;
export const IMAGE_TOKENS = 258;
/** A text estimate: ~4 characters per token. */
export const textTokens = (text: string): number => Math.ceil(text.length / 4);

export interface GeminiUsageSent {
  promptTokenCount: number;
  responseTokenCount: number;
  totalTokenCount: number;
  promptTokensDetails: { modality: 'TEXT' | 'AUDIO' | 'IMAGE'; tokenCount: number }[];
  responseTokensDetails: { modality: 'AUDIO'; tokenCount: number }[];
}

type Modality = 'TEXT' | 'AUDIO' | 'IMAGE';
const MODALITIES = ['TEXT', 'AUDIO', 'IMAGE'] as const;

function systemInstructionOf(setup: JsonObject | null): string {
  const instruction = (setup?.systemInstruction ?? (setup?.config as JsonObject | undefined)?.systemInstruction) as
    { parts?: { text?: string }[] } | string | undefined;
  if (typeof instruction === 'string') return instruction;
  return (instruction?.parts ?? []).map((p) => p.text ?? '').join('');
}

export class FakeUsageMeter {
  readonly #context = { TEXT: 0, AUDIO: 0, IMAGE: 0 };
  readonly #newInput = { TEXT: 0, AUDIO: 0, IMAGE: 0 };

  addInput(modality: Modality, tokens: number): void {
    this.#newInput[modality] += tokens;
  }

  /** The turn's report; its response audio then joins the context. */
  report(responseAudioTokens: number, setup: JsonObject | null): GeminiUsageSent {
    if (this.#context.TEXT === 0 && this.#context.AUDIO === 0)
      this.#context.TEXT = textTokens(systemInstructionOf(setup));
    for (const m of MODALITIES) {
      this.#context[m] += Math.ceil(this.#newInput[m]);
      this.#newInput[m] = 0;
    }
    const promptTokensDetails = MODALITIES.filter((m) => this.#context[m] > 0).map((m) => ({
      modality: m,
      tokenCount: this.#context[m],
    }));
    const promptTokenCount = promptTokensDetails.reduce((n, d) => n + d.tokenCount, 0);
    this.#context.AUDIO += responseAudioTokens;
    return {
      promptTokenCount,
      responseTokenCount: responseAudioTokens,
      totalTokenCount: promptTokenCount + responseAudioTokens,
      promptTokensDetails,
      responseTokensDetails: [{ modality: 'AUDIO', tokenCount: responseAudioTokens }],
    };
  }
}
