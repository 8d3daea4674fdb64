// Estimated cost of a call from its usage, at prices the user can configure
// (DISCORD_VOICE_LIVE_USAGE_PRICES, a JSON object; see docs/usage.md). The built-in defaults are
// list prices as we last read them (dates below); providers change prices and bill by their own
// rules (caching, minimums, taxes), so every figure here is an ESTIMATE — configure your own.
import { z } from 'zod';
import type { LiveProviderName } from '../config/index.ts';
import { INPUT_MODALITIES, OUTPUT_MODALITIES, type TokenUsage } from './tokens.ts';

/** USD per 1,000,000 tokens by direction and modality, and USD per billed minute (GPT-Live). */
export interface ProviderPrices {
  input_audio?: number;
  input_text?: number;
  input_image?: number;
  output_audio?: number;
  output_text?: number;
  per_minute?: number;
}

export type PriceTable = Record<LiveProviderName, ProviderPrices>;

/**
 * Defaults, each dated with its source. Unknown prices are left out (the cost then says it is
 * incomplete instead of guessing): GPT-Live's per-minute price is not published in anything we
 * could read, so it has no default.
 */
export const DEFAULT_PRICES: PriceTable = {
  // Gemini 2.5 Flash native audio (Live API) list price, ai.google.dev/gemini-api/docs/pricing, read 2025-09.
  gemini: { input_text: 0.5, input_audio: 3, input_image: 3, output_text: 2, output_audio: 12 },
  // gpt-realtime list price, openai.com/api/pricing, read 2025-09.
  'openai-realtime': { input_text: 4, input_audio: 32, input_image: 5, output_text: 16, output_audio: 64 },
  'openai-live': {},
};

export const PRICES_AS_OF = '2025-09';

const price = z.number().finite().min(0).max(10_000_000);
const providerPricesSchema = z
  .object({ input_audio: price, input_text: price, input_image: price, output_audio: price, output_text: price, per_minute: price })
  .partial()
  .strict();
export const priceOverridesSchema = z.object({ gemini: providerPricesSchema, 'openai-realtime': providerPricesSchema, 'openai-live': providerPricesSchema }).partial().strict();

/** A fresh copy of the defaults. */
export function defaultPrices(): PriceTable {
  return { gemini: { ...DEFAULT_PRICES.gemini }, 'openai-realtime': { ...DEFAULT_PRICES['openai-realtime'] }, 'openai-live': { ...DEFAULT_PRICES['openai-live'] } };
}

/** Parse the JSON override and lay it over the defaults. Returns an error message for bad input. */
export function parsePriceOverrides(json: string | undefined): { prices: PriceTable } | { error: string } {
  const prices = defaultPrices();
  if (!json?.trim()) return { prices };
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return { error: 'not JSON: give an object like {"gemini":{"output_audio":12}}' };
  }
  const parsed = priceOverridesSchema.safeParse(raw);
  if (!parsed.success) return { error: z.prettifyError(parsed.error) };
  for (const [provider, over] of Object.entries(parsed.data) as [LiveProviderName, ProviderPrices][]) Object.assign(prices[provider], over);
  return { prices };
}

export interface CostEstimate {
  /** USD, rounded to 1/10,000 of a dollar. */
  usd: number;
  /** What had usage but no configured price (the estimate is low by their cost). */
  unpriced: string[];
}

/** The estimated cost of `tokens` (and billed minutes) at `prices`. */
export function estimateCost(prices: ProviderPrices, usage: { tokens?: TokenUsage; billedMinutes?: number }): CostEstimate {
  let usd = 0;
  const unpriced: string[] = [];
  const tokens = usage.tokens;
  if (tokens) {
    for (const m of INPUT_MODALITIES) {
      const n = tokens.input[m];
      const p = prices[`input_${m}`];
      if (n > 0 && p === undefined) unpriced.push(`input_${m}`);
      else if (n > 0) usd += (n * p!) / 1e6;
    }
    for (const m of OUTPUT_MODALITIES) {
      const n = tokens.output[m];
      const p = prices[`output_${m}`];
      if (n > 0 && p === undefined) unpriced.push(`output_${m}`);
      else if (n > 0) usd += (n * p!) / 1e6;
    }
  }
  if (usage.billedMinutes) {
    if (prices.per_minute === undefined) unpriced.push('per_minute');
    else usd += usage.billedMinutes * prices.per_minute;
  }
  return { usd: Math.round(usd * 1e4) / 1e4, unpriced };
}
