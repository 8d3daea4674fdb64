// /health.status says what a user would conclude: ok only when everything configured works.
import { describe, expect, it } from 'vitest';
import { healthVerdict, type HealthInputs } from '../../main/core/health-verdict.ts';

const healthy: HealthInputs = {
  missing: [],
  bridge: { state: 'idle' },
  connections: { discord: 'disconnected', model: 'disconnected' },
  discordBot: { configured: true, loggedIn: true },
  opus: { impl: 'native', library: '@discordjs/opus', reason: 'loaded' },
  native: { sharp: { available: true, reason: '' }, davey: { available: true, reason: '' } },
};

describe('healthVerdict', () => {
  it('ok when configured, logged in, idle; and during a healthy call', () => {
    expect(healthVerdict(healthy)).toEqual({ status: 'ok', reasons: [] });
    expect(
      healthVerdict({
        ...healthy,
        bridge: { state: 'connected' },
        connections: { discord: 'connected', model: 'connected' },
      }).status,
    ).toBe('ok');
  });

  it.each<[string, Partial<HealthInputs>, string]>([
    [
      'unconfigured',
      { missing: ['GEMINI_API_KEY'], discordBot: { configured: false, loggedIn: false } },
      'not configured: voice calls need GEMINI_API_KEY',
    ],
    [
      'bot not logged in',
      { discordBot: { configured: true, loggedIn: false } },
      'Discord bot not logged in (retrying)',
    ],
    [
      'model connection down in a call',
      { bridge: { state: 'reconnecting' }, connections: { discord: 'connected', model: 'reconnecting' } },
      'model connection reconnecting',
    ],
    [
      'WASM Opus',
      { opus: { impl: 'wasm', library: 'opusscript', reason: 'the native addon did not load' } },
      'Opus WASM fallback: the native addon did not load',
    ],
    [
      'sharp missing',
      { native: { sharp: { available: false, reason: 'no frames' }, davey: { available: true, reason: '' } } },
      'sharp missing: no frames',
    ],
  ])('degraded: %s', (_name, change, reason) => {
    expect(healthVerdict({ ...healthy, ...change })).toEqual({ status: 'degraded', reasons: [reason] });
  });

  it('error when the call failed for good, with the other reasons after it', () => {
    const verdict = healthVerdict({
      ...healthy,
      bridge: { state: 'error', reason: 'discord: voice connection ended' },
      opus: { impl: 'wasm', library: 'opusscript', reason: 'x' },
    });
    expect(verdict).toEqual({
      status: 'error',
      reasons: ['call failed: discord: voice connection ended', 'Opus WASM fallback: x'],
    });
  });
});
