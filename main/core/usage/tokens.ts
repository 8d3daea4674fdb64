// Token counts by modality, and the two ways providers report them:
// - per report (OpenAI Realtime `response.done`: each response's own usage) → added as they come;
// - cumulative snapshots (a running total that restarts when its scope restarts) → only the growth
//   since the previous snapshot of the same scope is added, so a repeated snapshot is never counted
//   twice; a snapshot below the previous one (or a new scope: a new socket after a resume or
//   rotation) starts a fresh count and is added whole.
// Gemini Live sends `usageMetadata` with promptTokensDetails/responseTokensDetails (one
// {modality, tokenCount} per modality); see docs/usage.md for how its scope is chosen.

import { z } from 'zod';
import type { TokenCounts } from '../api-types.ts';

export const INPUT_MODALITIES = ['audio', 'text', 'image'] as const;
export const OUTPUT_MODALITIES = ['audio', 'text'] as const;
export type InputModality = (typeof INPUT_MODALITIES)[number];
export type OutputModality = (typeof OUTPUT_MODALITIES)[number];

/** The same shape the API reports (`/health` `usage.call.tokens`). */
export type TokenUsage = TokenCounts;

export function emptyTokenUsage(): TokenUsage {
  return { input: { audio: 0, text: 0, image: 0 }, output: { audio: 0, text: 0 } };
}

export function totalTokens(usage: TokenUsage): number {
  let sum = 0;
  for (const m of INPUT_MODALITIES) sum += usage.input[m];
  for (const m of OUTPUT_MODALITIES) sum += usage.output[m];
  return sum;
}

/** `into += add`, field by field (counts never go negative). */
export function addTokenUsage(into: TokenUsage, add: TokenUsage): void {
  for (const m of INPUT_MODALITIES) into.input[m] += Math.max(0, add.input[m]);
  for (const m of OUTPUT_MODALITIES) into.output[m] += Math.max(0, add.output[m]);
}

function copy(usage: TokenUsage): TokenUsage {
  return { input: { ...usage.input }, output: { ...usage.output } };
}

/** Whether any field of `now` is below `before`: the counter restarted. */
function restarted(before: TokenUsage, now: TokenUsage): boolean {
  return (
    INPUT_MODALITIES.some((m) => now.input[m] < before.input[m]) ||
    OUTPUT_MODALITIES.some((m) => now.output[m] < before.output[m])
  );
}

const MAX_SCOPES = 8;

/** A call's token total, fed by either kind of report. */
export class TokenAccount {
  readonly #total = emptyTokenUsage();
  /** The last snapshot per scope; a few scopes at most (a draining socket may still report). */
  readonly #last = new Map<string, TokenUsage>();

  /** A per-report figure (its own usage): added whole. */
  addReport(report: TokenUsage): void {
    addTokenUsage(this.#total, report);
  }

  /**
   * A cumulative snapshot of `scope` (e.g. one socket): adds its growth since the previous snapshot
   * of the same scope. A new scope, or a snapshot that went down, is a restarted count: added whole.
   */
  addSnapshot(scope: string, snapshot: TokenUsage): void {
    const last = this.#last.get(scope);
    if (!last || restarted(last, snapshot)) {
      addTokenUsage(this.#total, snapshot);
    } else {
      const delta = emptyTokenUsage();
      for (const m of INPUT_MODALITIES) delta.input[m] = snapshot.input[m] - last.input[m];
      for (const m of OUTPUT_MODALITIES) delta.output[m] = snapshot.output[m] - last.output[m];
      addTokenUsage(this.#total, delta);
    }
    this.#last.delete(scope); // re-insert: the map's order is most recent last
    this.#last.set(scope, copy(snapshot));
    if (this.#last.size > MAX_SCOPES) this.#last.delete(this.#last.keys().next().value!);
  }

  get total(): TokenUsage {
    return copy(this.#total);
  }
}

/** Gemini modality names (MODALITY_UNSPECIFIED, TEXT, IMAGE, VIDEO, AUDIO, DOCUMENT) → ours. */
function geminiModality(name: string | undefined): InputModality | null {
  switch ((name ?? '').toUpperCase()) {
    case 'AUDIO':
      return 'audio';
    case 'IMAGE':
    case 'VIDEO': // video frames are images to us (and priced as image input)
      return 'image';
    case 'TEXT':
    case 'DOCUMENT':
      return 'text';
    default:
      return null;
  }
}

const count = z.number().int().min(0).max(1e12);
const modalityCounts = z
  .array(z.object({ modality: z.string().max(40).optional(), tokenCount: count.optional() }))
  .max(16);
/**
 * The fields of Gemini's usageMetadata we read; others (tool use, cache) are ignored. Thought tokens
 * are billed (a Gemini 3.8 Live usage record shows `thoughtsTokenCount` billed, discuss.ai.google.dev
 * 188765) and not part of responseTokenCount: counted as output text, the rate thinking is billed at.
 */
export const geminiUsageSchema = z.object({
  promptTokenCount: count.optional(),
  responseTokenCount: count.optional(),
  thoughtsTokenCount: count.optional(),
  promptTokensDetails: modalityCounts.optional(),
  responseTokensDetails: modalityCounts.optional(),
});
export type GeminiUsageMetadata = z.infer<typeof geminiUsageSchema>;

/** A usageMetadata as received (unchecked) → tokens, or null when it does not have the expected shape. */
export function parseGeminiUsage(raw: unknown): TokenUsage | null {
  const parsed = geminiUsageSchema.safeParse(raw);
  return parsed.success ? fromGeminiUsage(parsed.data) : null;
}

/**
 * Gemini `usageMetadata` → tokens by modality. Tokens a total counts but no detail names (e.g.
 * no details sent) are put on the main modality of the direction (audio), so nothing is lost.
 */
export function fromGeminiUsage(meta: GeminiUsageMetadata): TokenUsage {
  const usage = emptyTokenUsage();
  let inputNamed = 0;
  for (const d of meta.promptTokensDetails ?? []) {
    const m = geminiModality(d.modality);
    const n = Math.max(0, d.tokenCount ?? 0);
    usage.input[m ?? 'text'] += n;
    inputNamed += n;
  }
  usage.input.audio += Math.max(0, (meta.promptTokenCount ?? 0) - inputNamed);
  let outputNamed = 0;
  for (const d of meta.responseTokensDetails ?? []) {
    const m = geminiModality(d.modality);
    const n = Math.max(0, d.tokenCount ?? 0);
    usage.output[m === 'audio' ? 'audio' : 'text'] += n;
    outputNamed += n;
  }
  usage.output.audio += Math.max(0, (meta.responseTokenCount ?? 0) - outputNamed);
  usage.output.text += Math.max(0, meta.thoughtsTokenCount ?? 0);
  return usage;
}

export interface RealtimeResponseUsage {
  input_tokens?: number;
  output_tokens?: number;
  input_token_details?: { text_tokens?: number; audio_tokens?: number; image_tokens?: number } | null;
  output_token_details?: { text_tokens?: number; audio_tokens?: number } | null;
}

/** OpenAI Realtime `response.done` `response.usage` → tokens by modality (same fallback rule). */
export function fromRealtimeUsage(u: RealtimeResponseUsage): TokenUsage {
  const usage = emptyTokenUsage();
  const i = u.input_token_details ?? {};
  usage.input.text = i.text_tokens ?? 0;
  usage.input.audio = i.audio_tokens ?? 0;
  usage.input.image = i.image_tokens ?? 0;
  usage.input.audio += Math.max(0, (u.input_tokens ?? 0) - usage.input.text - usage.input.audio - usage.input.image);
  const o = u.output_token_details ?? {};
  usage.output.text = o.text_tokens ?? 0;
  usage.output.audio = o.audio_tokens ?? 0;
  usage.output.audio += Math.max(0, (u.output_tokens ?? 0) - usage.output.text - usage.output.audio);
  return usage;
}
