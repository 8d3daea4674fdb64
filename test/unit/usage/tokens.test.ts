// The accounting of provider usage messages: per-report figures add up; cumulative snapshots add
// only their growth; a restarted counter (new turn, new socket after a resume or rotation, or a
// count that went down) starts afresh and is never double counted.
import { describe, expect, it } from 'vitest';
import {
  emptyTokenUsage,
  fromGeminiUsage,
  fromRealtimeUsage,
  parseGeminiUsage,
  TokenAccount,
  totalTokens,
  type TokenUsage,
} from '../../../main/core/usage/tokens.ts';
import { estimateCost, parsePriceOverrides } from '../../../main/core/usage/pricing.ts';

function usage(inAudio: number, outAudio: number, inText = 0): TokenUsage {
  const u = emptyTokenUsage();
  u.input.audio = inAudio;
  u.input.text = inText;
  u.output.audio = outAudio;
  return u;
}

describe('TokenAccount', () => {
  it('per-response reports (OpenAI Realtime response.done) are summed', () => {
    const a = new TokenAccount();
    a.addReport(usage(100, 50));
    a.addReport(usage(120, 40));
    expect(a.total).toEqual(usage(220, 90));
  });

  it('a cumulative snapshot repeated or grown within its scope adds only the growth', () => {
    const a = new TokenAccount();
    a.addSnapshot('socket1:turn0', usage(100, 10));
    a.addSnapshot('socket1:turn0', usage(100, 10)); // the same snapshot again: nothing new
    a.addSnapshot('socket1:turn0', usage(130, 25)); // grew
    expect(a.total).toEqual(usage(130, 25));
  });

  it('a new scope (next turn, or a resumed/rotated socket) counts from zero: added whole', () => {
    const a = new TokenAccount();
    a.addSnapshot('socket1:turn0', usage(100, 10));
    a.addSnapshot('socket1:turn1', usage(140, 12));
    a.addSnapshot('socket2:turn2', usage(60, 8)); // the resumed session restarted its counts
    expect(a.total).toEqual(usage(300, 30));
  });

  it('a snapshot below the previous one in the same scope is a restarted count, not a negative delta', () => {
    const a = new TokenAccount();
    a.addSnapshot('s', usage(100, 10));
    a.addSnapshot('s', usage(20, 5));
    expect(a.total).toEqual(usage(120, 15));
  });

  it('a draining old socket reporting after the new one started is still counted by its own scope', () => {
    const a = new TokenAccount();
    a.addSnapshot('old:3', usage(100, 10));
    a.addSnapshot('new:4', usage(50, 5));
    a.addSnapshot('old:3', usage(110, 12)); // late growth on the old socket: +10, +2
    expect(a.total).toEqual(usage(160, 17));
  });
});

describe('provider usage messages → tokens by modality', () => {
  it('Gemini usageMetadata: promptTokensDetails/responseTokensDetails by modality; unnamed remainder on audio', () => {
    const tokens = fromGeminiUsage({
      promptTokenCount: 500,
      responseTokenCount: 60,
      promptTokensDetails: [
        { modality: 'TEXT', tokenCount: 120 },
        { modality: 'AUDIO', tokenCount: 300 },
        { modality: 'IMAGE', tokenCount: 58 },
      ],
      responseTokensDetails: [
        { modality: 'AUDIO', tokenCount: 50 },
        { modality: 'TEXT', tokenCount: 10 },
      ],
    });
    expect(tokens).toEqual({ input: { text: 120, audio: 322, image: 58 }, output: { audio: 50, text: 10 } });
    expect(totalTokens(tokens)).toBe(560);
  });

  it('a malformed usageMetadata is refused (null), not counted', () => {
    expect(parseGeminiUsage({ promptTokenCount: -5 })).toBeNull();
    expect(parseGeminiUsage({ promptTokensDetails: 'lots' })).toBeNull();
  });

  it('OpenAI Realtime response.done usage: input/output token details', () => {
    expect(
      fromRealtimeUsage({
        input_tokens: 132,
        output_tokens: 121,
        input_token_details: { text_tokens: 119, audio_tokens: 13 },
        output_token_details: { text_tokens: 30, audio_tokens: 91 },
      }),
    ).toEqual({
      input: { text: 119, audio: 13, image: 0 },
      output: { text: 30, audio: 91 },
    });
  });
});

describe('estimated cost', () => {
  it('prices per 1M tokens by modality, per billed minute, and names what has no price', () => {
    const parsed = parsePriceOverrides('{"gemini":{"input_audio":3,"output_audio":12}}');
    if ('error' in parsed) throw new Error(parsed.error);
    expect(estimateCost(parsed.prices.gemini, { tokens: usage(1_000_000, 500_000) }).usd).toBe(9);
    expect(estimateCost({ per_minute: 0.1 }, { billedMinutes: 3 })).toEqual({ usd: 0.3, unpriced: [] });
    expect(estimateCost({}, { billedMinutes: 3 })).toEqual({ usd: 0, unpriced: ['per_minute'] });
  });

  it('refuses a bad price override with a readable error', () => {
    expect(parsePriceOverrides('{"gemini":{"output_audio":-1}}')).toHaveProperty('error');
    expect(parsePriceOverrides('{"gemni":{}}')).toHaveProperty('error');
    expect(parsePriceOverrides('not json')).toEqual({ error: expect.stringMatching(/not JSON/) });
  });
});

describe('cost truth', () => {
  it('GPT-Live is priced per active second; an unset price says "no price set", never $0.00', async () => {
    const { costText, DEFAULT_PRICES, PRICE_TABLE } = await import('../../../main/core/usage/pricing.ts');
    const live = estimateCost(DEFAULT_PRICES['openai-live'], { activeSeconds: 120 });
    expect(live).toEqual({ usd: 0.1, unpriced: [] }); // $0.05 per active minute
    expect(costText(live)).toBe('≈ $0.10');
    const unset = estimateCost({}, { activeSeconds: 120 });
    expect(unset).toEqual({ usd: 0, unpriced: ['per_second'] });
    expect(costText(unset)).toBe('no price set');
    expect(costText(estimateCost({ output_audio: 1 }, { tokens: usage(0, 10_000), activeSeconds: 5 }))).toMatch(
      /^≈ \$0\.01 \+ usage with no price set \(per_second\)$/,
    );
    // Every default row says when and where it was read.
    for (const row of Object.values(PRICE_TABLE)) {
      expect(row.asOf).toMatch(/^\d{4}-\d{2}$/);
      expect(row.source.length).toBeGreaterThan(10);
    }
  });

  it('Gemini thought tokens are counted (billed as output)', async () => {
    const { parseGeminiUsage } = await import('../../../main/core/usage/tokens.ts');
    const tokens = parseGeminiUsage({
      promptTokenCount: 100,
      responseTokenCount: 40,
      thoughtsTokenCount: 25,
      responseTokensDetails: [{ modality: 'AUDIO', tokenCount: 40 }],
    });
    expect(tokens?.output).toEqual({ audio: 40, text: 25 });
  });
});
