// Estimated cost of a call from its usage, at prices the user can configure
// (DISCORD_VOICE_LIVE_USAGE_PRICES, a JSON object; see docs/usage.md). The built-in defaults live in
// one dated table with their sources (PRICE_TABLE); every figure here is an ESTIMATE.
import { z } from 'zod';
import type { LiveProviderName } from '../api-types.ts';
import { INPUT_MODALITIES, OUTPUT_MODALITIES, type TokenUsage } from './tokens.ts';

/**
 * USD per 1,000,000 tokens by direction and modality; USD per billed minute (what GPT-Live reports
 * as billed minutes); USD per second a session is active (GPT-Live bills per second while a
 * session is open, silence and a muted microphone included).
 */
export interface ProviderPrices {
  input_audio?: number;
  input_text?: number;
  input_image?: number;
  output_audio?: number;
  output_text?: number;
  per_minute?: number;
  per_second?: number;
}

export type PriceTable = Record<LiveProviderName, ProviderPrices>;

/**
 * THE price table: every default, with the date it was read and where. Unknown prices are left
 * out (the cost then says "no price set" instead of guessing $0.00). Providers change prices and
 * bill by their own rules (caching, minimums, taxes): configure your own (DISCORD_VOICE_LIVE_USAGE_PRICES).
 */
export const PRICE_TABLE: Record<LiveProviderName, { prices: ProviderPrices; asOf: string; source: string }> = {
  // Gemini 3.8 Live: one input and one output price for every modality (thought tokens are output).
  gemini: {
    prices: { input_text: 0.75, input_audio: 0.75, input_image: 0.75, output_text: 4.5, output_audio: 4.5 },
    asOf: '2026-11',
    source: 'Vercel AI Gateway listing for Gemini 3.8 Live (no split by modality), research/field-2026-11.md §3.1',
  },
  'openai-realtime': {
    prices: { input_text: 4, input_audio: 32, input_image: 5, output_text: 16, output_audio: 64 },
    asOf: '2025-09',
    source: 'gpt-realtime list price, openai.com/api/pricing',
  },
  // GPT-Live: $0.05 per active minute, billed per second (WebSocket sessions have no standby).
  'openai-live': {
    prices: { per_second: 0.05 / 60 },
    asOf: '2026-11',
    source: 'apidog "GPT-Live-1.1 pricing" (secondary source), research/field-2026-11.md §3.2',
  },
};

export const DEFAULT_PRICES: PriceTable = {
  gemini: PRICE_TABLE.gemini.prices,
  'openai-realtime': PRICE_TABLE['openai-realtime'].prices,
  'openai-live': PRICE_TABLE['openai-live'].prices,
};

/** The newest date in the table (each row has its own). */
export const PRICES_AS_OF = '2026-11';

const price = z.number().finite().min(0).max(10_000_000);
const providerPricesSchema = z
  .object({ input_audio: price, input_text: price, input_image: price, output_audio: price, output_text: price, per_minute: price, per_second: price })
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

/**
 * The estimated cost of `tokens`, billed minutes and active seconds at `prices`. Active seconds are
 * priced per second where that price is set (GPT-Live), else through billed minutes.
 */
export function estimateCost(prices: ProviderPrices, usage: { tokens?: TokenUsage; billedMinutes?: number; activeSeconds?: number }): CostEstimate {
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
  if (usage.activeSeconds && prices.per_second !== undefined) {
    usd += usage.activeSeconds * prices.per_second;
  } else if (usage.billedMinutes) {
    if (prices.per_minute === undefined) unpriced.push('per_minute');
    else usd += usage.billedMinutes * prices.per_minute;
  } else if (usage.activeSeconds && prices.per_minute === undefined) {
    unpriced.push('per_second');
  }
  return { usd: Math.round(usd * 1e4) / 1e4, unpriced };
}

/** "≈ $0.0123", or "no price set" when nothing used could be priced (never a misleading $0.00). */
export function costText(estimate: CostEstimate): string {
  if (estimate.usd === 0 && estimate.unpriced.length > 0) return 'no price set';
  const amount = `≈ $${estimate.usd < 0.01 && estimate.usd > 0 ? estimate.usd.toFixed(4) : estimate.usd.toFixed(2)}`;
  return estimate.unpriced.length > 0 ? `${amount} + usage with no price set (${estimate.unpriced.join(', ')})` : amount;
}
