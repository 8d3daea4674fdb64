// The call panel's usage line, from /health `usage` (pure, unit-tested in Node). Costs are
// estimates at the configured prices, so they are written with "≈".
import type { UsageReport } from '../main/core/api-types.ts';

const usd = (n: number): string => `$${n < 0.01 && n > 0 ? n.toFixed(4) : n.toFixed(2)}`;

/** "1,234 tokens · ≈ $0.01 this call · today ≈ $0.05 of the $5.00 cap (near the cap)". */
export function formatUsageLine(usage: UsageReport | undefined): string {
  if (!usage) return '—';
  const parts: string[] = [];
  if (usage.call) {
    const minutes = usage.call.billed_minutes !== undefined ? ` · ${usage.call.billed_minutes} min` : '';
    // "no price set" where nothing used has a price: never a $0.00 that reads as free.
    const unpricedOnly = usage.call.cost_usd === 0 && usage.call.unpriced.length > 0;
    const partial = usage.call.unpriced.length && !unpricedOnly ? ' (some usage has no price set)' : '';
    const cost = usage.call.cost_text
      ? `${usage.call.cost_text} `
      : unpricedOnly
        ? 'no price set '
        : `≈ ${usd(usage.call.cost_usd)} `;
    const time =
      usage.call.connected_seconds !== undefined
        ? ` · model connected ${Math.round(usage.call.connected_seconds)} s for ${Math.round(usage.call.speech_seconds ?? 0)} s of speech`
        : '';
    parts.push(
      `${usage.call.total_tokens.toLocaleString('en-US')} tokens${minutes}${time} · ${cost}${usage.call.live ? 'this call' : 'last call'}${usage.call.cost_text ? '' : partial}`,
    );
  }
  const today = usage.today;
  const cap = today.cap_usd === null ? '' : ` of the ${usd(today.cap_usd)} cap`;
  const state =
    today.state === 'reached'
      ? ' — cap reached: model parked, calls refused until tomorrow'
      : today.state === 'warned'
        ? ' (near the cap)'
        : '';
  parts.push(`today ≈ ${usd(today.cost_usd)}${cap}${state}`);
  return parts.join(' · ');
}
