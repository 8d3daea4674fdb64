// GET/PUT /settings over a real loopback socket, through the real security layer.
import type { RestartOutcome } from '../../../main/core/api-types.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../main/core/log/logger.ts';
import { createConfSettingsStore } from '../../../main/core/settings/conf-store.ts';
import { registerSettingsRoutes } from '../../../main/core/sidecar/routes/settings.ts';
import { createSidecar, type Sidecar } from '../../../main/core/sidecar/server.ts';

const TOKEN = 'test-token-' + 'a'.repeat(32);
let dir: string;
let sidecar: Sidecar;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'lvb-settings-routes-'));
  const store = createConfSettingsStore({ dir, env: {} });
  sidecar = createSidecar({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    logger: silentLogger(),
    routes: [
      (app) =>
        registerSettingsRoutes(app, {
          store,
          effective: () => ({ model: 'gemini-3.8-live', sidecarPort: 18943 }),
          environment: {
            GEMINI_MODEL: 'gemini-from-env',
            PLATFORM_VOICE_LIVE_VOICE: 'Puck',
            DISCORD_VOICE_LIVE_PORT: '',
          },
          lastRestart: () => lastRestart,
        }),
    ],
  });
  await sidecar.listen();
});
afterAll(async () => {
  await sidecar.close();
  rmSync(dir, { recursive: true, force: true });
});

type Json = { values?: unknown; error?: { code: string; message: string } };
let lastRestart: RestartOutcome | null = null;
const call = (method: string, body?: unknown, auth = true) =>
  fetch(`${sidecar.url}/settings`, {
    method,
    headers: {
      ...(auth ? { authorization: `Bearer ${TOKEN}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('/settings', () => {
  it('needs auth', async () => {
    const res = await call('GET', undefined, false);
    expect(res.status).toBe(401);
  });

  it('GET shows stored values, effective values and secret states', async () => {
    const res = await call('GET');
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({
      values: {},
      effective: { model: 'gemini-3.8-live' },
      applies: { voice: 'next_call', sidecarPort: 'restart' },
      canRestart: false,
      lastRestart: null,
      secrets: { canStore: false, state: { discordBotToken: 'unset' } },
    });
  });

  it('GET says how the last restart ended, so the page can say why saved settings did not take', async () => {
    lastRestart = {
      at: '2026-11-26T10:00:00.000Z',
      applied: false,
      message: 'the saved sidecar port 18944 (on 127.0.0.1) is not free: another program is using it',
    };
    const body = (await (await call('GET')).json()) as { lastRestart: RestartOutcome | null };
    expect(body.lastRestart).toEqual(lastRestart);
    lastRestart = null;
  });

  it('PUT saves values and GET returns them', async () => {
    const put = await call('PUT', { values: { voice: 'Puck', allowedSpeakers: ['123456789012345678'] } });
    expect(put.status).toBe(200);
    const body = (await (await call('GET')).json()) as Json;
    expect(body.values).toEqual({ voice: 'Puck', allowedSpeakers: ['123456789012345678'] });
  });

  it('PUT with bad input answers 400 with the problem in plain words, per field', async () => {
    const res = await call('PUT', { values: { sidecarPort: 80 } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as Json;
    expect(body.error).toEqual({
      code: 'invalid_settings',
      message: 'Use a port number from 1024 to 65535.',
      fields: { sidecarPort: 'Use a port number from 1024 to 65535.' },
    });
    expect((await call('PUT', [1, 2])).status).toBe(400);
  });

  it('PUT of a voice the provider does not have is refused, naming the choices; a known one is stored as spelt', async () => {
    const res = await call('PUT', { values: { voice: 'NoSuchVoice' } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as Json & { error: { fields: Record<string, string> } };
    expect(body.error.code).toBe('invalid_settings');
    expect(body.error.fields.voice).toMatch(
      /^There is no voice called "NoSuchVoice" for gemini\. Choose one of: Zephyr, Puck, /,
    );
    expect((await call('PUT', { values: { voice: 'puck' } })).status).toBe(200);
    expect(((await (await call('GET')).json()) as Json).values).toMatchObject({ voice: 'Puck' });
    // The same name checked against the provider chosen in the same request.
    expect((await call('PUT', { values: { liveProvider: 'openai-realtime', voice: 'Puck' } })).status).toBe(400);
    expect((await call('PUT', { values: { liveProvider: 'openai-realtime', voice: 'marin' } })).status).toBe(200);
    expect((await call('PUT', { values: { liveProvider: null, voice: null } })).status).toBe(200);
  });

  it('PUT of a secret in headless mode answers 409 and explains', async () => {
    const res = await call('PUT', { secrets: { geminiApiKey: 'k'.repeat(30) } });
    expect(res.status).toBe(409);
    const body = (await res.json()) as Json;
    expect(body.error).toMatchObject({ code: 'secrets_unavailable' });
    expect(body.error?.message).toMatch(/plain text/);
    expect(JSON.stringify(body)).not.toContain('k'.repeat(30));
  });
});

describe('/settings precedence', () => {
  it('says which saved setting overrides which environment variable, and the order', async () => {
    const res = await call('PUT', { values: { model: 'gemini-saved', voice: 'Kore', sidecarPort: 19000 } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { precedence: string; overrides: Record<string, string> };
    expect(body.precedence).toBe('saved settings > environment > .env file > defaults');
    // The port's variable is empty in the environment: nothing is overridden there.
    expect(body.overrides).toEqual({ model: 'GEMINI_MODEL', voice: 'PLATFORM_VOICE_LIVE_VOICE' });
    await call('PUT', { values: { model: null, voice: null, sidecarPort: null } });
  });
});
