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
    const partial = usage.call.unpriced.length ? ' (some usage has no price set)' : '';
    parts.push(`${usage.call.total_tokens.toLocaleString('en-US')} tokens${minutes} · ≈ ${usd(usage.call.cost_usd)} ${usage.call.live ? 'this call' : 'last call'}${partial}`);
  }
  const today = usage.today;
  const cap = today.cap_usd === null ? '' : ` of the ${usd(today.cap_usd)} cap`;
  const state = today.state === 'reached' ? ' — cap reached: calls refused until tomorrow' : today.state === 'warned' ? ' (near the cap)' : '';
  parts.push(`today ≈ ${usd(today.cost_usd)}${cap}${state}`);
  return parts.join(' · ');
}
