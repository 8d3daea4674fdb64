// GET /health from the capabilities' own parts (main/core/capabilities/health.ts): fields merged in
// start order, the verdict from the inputs they gave, the fields in the order /health always had.
import { describe, expect, it } from 'vitest';
import { assembleHealth } from '../../../main/core/capabilities/health.ts';

const native = { sharp: { available: true, reason: 'ok' }, davey: { available: true, reason: 'ok' } };

describe('assembleHealth', () => {
  it('merges the parts, judges from their verdict inputs, and keeps the field order', () => {
    const report = assembleHealth([
      {
        report: { version: '1.0.0', memory: { rss_mb: 1, heap_used_mb: 1 } },
        verdict: {
          missing: ['DISCORD_BOT_TOKEN'],
          opus: { impl: 'native', library: '@discordjs/opus' } as never,
          native,
        },
      },
      { report: { live_model: { provider: 'gemini', model: 'm', inCall: false } } },
      {
        report: { bridge: { state: 'idle', since: 1 }, talk: { muted: false } as never },
        verdict: { bridge: { state: 'idle' }, connections: { discord: 'disconnected', model: 'disconnected' } },
      },
    ]);
    expect(report.status).toBe('degraded');
    expect(report.reasons).toEqual(['not configured: voice calls need DISCORD_BOT_TOKEN']);
    expect(Object.keys(report)).toEqual(['status', 'reasons', 'version', 'bridge', 'live_model', 'memory', 'talk']);
  });

  it('a call that failed for good is an error, whatever else is fine', () => {
    const report = assembleHealth([
      {
        verdict: {
          missing: [],
          opus: { impl: 'native' } as never,
          native,
          discordBot: { configured: true, loggedIn: true },
        },
      },
      {
        verdict: {
          bridge: { state: 'error', reason: 'model refused' },
          connections: { discord: 'disconnected', model: 'error' },
        },
      },
    ]);
    expect([report.status, report.reasons]).toEqual(['error', ['call failed: model refused']]);
  });
});
