// Estimated cost of a call from its usage, at prices the user can configure
// (DISCORD_VOICE_LIVE_USAGE_PRICES, a JSON object; see docs/usage.md). The built-in defaults live in
// one dated table with their sources (PRICE_TABLE); every figure here is an ESTIMATE.
import { z } from 'zod';
import { DEFAULT_PROVIDER, PROVIDERS, type ProviderName, type ProviderPrices } from '../providers/index.ts';
import { INPUT_MODALITIES, OUTPUT_MODALITIES, type TokenUsage } from './tokens.ts';

export type { ProviderPrices } from '../providers/index.ts';

export type PriceTable = Record<ProviderName, ProviderPrices>;

/**
 * THE price table: every default, with the date it was read and where, from each provider's
 * declaration (main/core/providers/). Unknown prices are left out (the cost then says "no price
 * set" instead of guessing $0.00). Providers change prices and bill by their own rules (caching,
 * minimums, taxes): configure your own (DISCORD_VOICE_LIVE_USAGE_PRICES).
 */
export const PRICE_TABLE = Object.fromEntries(PROVIDERS.map((p) => [p.name, p.prices])) as Record<
  ProviderName,
  { prices: ProviderPrices; asOf: string; source: string }
>;

export const DEFAULT_PRICES: PriceTable = Object.fromEntries(
  PROVIDERS.map((p) => [p.name, p.prices.prices]),
) as PriceTable;

/** The newest date in the table (each row has its own). */
export const PRICES_AS_OF = PROVIDERS.map((p) => p.prices.asOf)
  .sort()
  .at(-1)!;

const price = z.number().finite().min(0).max(10_000_000);
const providerPricesSchema = z
  .object({
    input_audio: price,
    input_text: price,
    input_image: price,
    output_audio: price,
    output_text: price,
    per_minute: price,
    per_second: price,
  })
  .partial()
  .strict();
export const priceOverridesSchema = z
  .object(Object.fromEntries(PROVIDERS.map((p) => [p.name, providerPricesSchema])))
  .partial()
  .strict();

/** A fresh copy of the defaults. */
export function defaultPrices(): PriceTable {
  return Object.fromEntries(PROVIDERS.map((p) => [p.name, { ...p.prices.prices }])) as PriceTable;
}

/** Parse the JSON override and lay it over the defaults. Returns an error message for bad input. */
export function parsePriceOverrides(json: string | undefined): { prices: PriceTable } | { error: string } {
  const prices = defaultPrices();
  if (!json?.trim()) return { prices };
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return { error: `not JSON: give an object like {"${DEFAULT_PROVIDER}":{"output_audio":12}}` };
  }
  const parsed = priceOverridesSchema.safeParse(raw);
  if (!parsed.success) return { error: z.prettifyError(parsed.error) };
  for (const [provider, over] of Object.entries(parsed.data) as [ProviderName, ProviderPrices][])
    Object.assign(prices[provider], over);
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
export function estimateCost(
  prices: ProviderPrices,
  usage: { tokens?: TokenUsage; billedMinutes?: number; activeSeconds?: number },
): CostEstimate {
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
  return estimate.unpriced.length > 0
    ? `${amount} + usage with no price set (${estimate.unpriced.join(', ')})`
    : amount;
}
