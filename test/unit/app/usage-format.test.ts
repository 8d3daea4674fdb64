import { describe, expect, it } from 'vitest';
import type { UsageReport } from '../../../main/core/api-types.ts';
import { formatUsageLine } from '../../../renderer/usage-format.ts';

const tokens = { input: { audio: 1000, text: 200, image: 0 }, output: { audio: 34, text: 0 } };
const report = (
  over: Partial<UsageReport['today']> = {},
  call: Partial<NonNullable<UsageReport['call']>> = {},
): UsageReport => ({
  call: { provider: 'gemini', live: true, tokens, total_tokens: 1234, cost_usd: 0.0061, unpriced: [], ...call },
  today: { day: '2026-11-24', cost_usd: 0.05, cap_usd: 5, state: 'ok', ...over },
  prices_as_of: '2025-09',
});

describe('the call panel usage line', () => {
  it('tokens and the estimate of this call (sub-cent figures with 4 decimals), and today against the cap', () => {
    expect(formatUsageLine(report())).toBe('1,234 tokens · ≈ $0.0061 this call · today ≈ $0.05 of the $5.00 cap');
  });
  it('says when the cap is near or reached, and when some usage has no price', () => {
    expect(formatUsageLine(report({ state: 'warned', cost_usd: 4.2 }))).toMatch(
      /today ≈ \$4\.20 of the \$5\.00 cap \(near the cap\)$/,
    );
    expect(formatUsageLine(report({ state: 'reached', cost_usd: 5 }, { live: false }))).toMatch(
      /last call · today ≈ \$5\.00 of the \$5\.00 cap — cap reached: model parked, calls refused until tomorrow$/,
    );
    // Nothing priced: "no price set", never a $0.00 that reads as free.
    expect(
      formatUsageLine(report({ cap_usd: null }, { unpriced: ['per_minute'], billed_minutes: 3, cost_usd: 0 })),
    ).toBe('1,234 tokens · 3 min · no price set this call · today ≈ $0.05');
    expect(formatUsageLine(report({ cap_usd: null }, { unpriced: ['input_image'], cost_usd: 0.5 }))).toBe(
      '1,234 tokens · ≈ $0.50 this call (some usage has no price set) · today ≈ $0.05',
    );
  });
  it("the model-connected seconds next to the speech seconds, and the core's cost text", () => {
    expect(
      formatUsageLine(
        report(
          { cap_usd: null },
          {
            connected_seconds: 95.4,
            speech_seconds: 40.2,
            cost_text: 'no price set',
            cost_usd: 0,
            unpriced: ['per_second'],
          },
        ),
      ),
    ).toBe('1,234 tokens · model connected 95 s for 40 s of speech · no price set this call · today ≈ $0.05');
  });
  it('nothing before the core reports usage', () => {
    expect(formatUsageLine(undefined)).toBe('—');
  });
});
