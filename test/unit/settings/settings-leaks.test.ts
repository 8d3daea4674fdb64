// Two small settings leaks: a secret pasted into a non-secret setting is masked in what the
// settings view (GET /settings) shows, and a damaged settings.json is kept as
// `settings.json.corrupt-<time>` with a warning naming the copy, not silently replaced.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConfSettingsStore } from '../../../main/core/settings/conf-store.ts';
import type { SecretVault } from '../../../main/core/settings/secret-policy.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'lvb-settings-leaks-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Built at run time so no secret-shaped literal sits in the source. */
const fakeGeminiKey = (): string => ['AIza', 'Sy', 'Fake0123456789abcdefghijklmnopqrstu'].join('');
const fakeBotToken = (): string =>
  ['MTIzNDU2Nzg5MDEyMzQ1Njc4', 'GaBcDe', 'fake_signature_abcdefghijklmnopqrstuv'].join('.');

const reversingVault: SecretVault = {
  status: async () => ({ available: true, backend: 'gnome_libsecret' }),
  encrypt: async (plain) => Buffer.from([...plain].reverse().join('')).toString('base64'),
  decrypt: async (cipher) => ({
    value: [...Buffer.from(cipher, 'base64').toString()].reverse().join(''),
    shouldReEncrypt: false,
  }),
};

describe('secrets pasted into non-secret settings', () => {
  it('are masked in the view, whether known from the environment, the secret store, or by their shape', async () => {
    const envKey = fakeGeminiKey();
    const stored = 'stored-webhook-secret-value-0123456789';
    const store = createConfSettingsStore({ dir, env: { GEMINI_API_KEY: envKey }, vault: reversingVault });
    await store.update({ secrets: { openaiApiKey: stored } });
    await store.update({
      values: { model: `gemini ${envKey}`, voice: stored, personaFile: `/home/me/${fakeBotToken()}.md` },
    });
    const shown = JSON.stringify((await store.view()).values);
    expect(shown).not.toContain(envKey);
    expect(shown).not.toContain(stored);
    expect(shown).not.toContain(fakeBotToken());
    expect(shown).toContain('REDACTED');
    // What the core runs with is what was saved: only the view is masked.
    expect((await store.configValues()).DISCORD_VOICE_LIVE_PERSONA_FILE).toContain(fakeBotToken());
  });

  it('leave ordinary values alone', async () => {
    const store = createConfSettingsStore({ dir, env: { GEMINI_API_KEY: fakeGeminiKey() } });
    await store.update({
      values: { model: 'gemini-2.5-flash-live', personaFile: '/home/me/persona.md', sfxEnabled: true },
    });
    expect((await store.view()).values).toEqual({
      model: 'gemini-2.5-flash-live',
      personaFile: '/home/me/persona.md',
      sfxEnabled: true,
    });
  });
});

describe('a damaged settings.json', () => {
  it('is kept as settings.json.corrupt-<time> with a warning naming the copy, and the store starts empty', async () => {
    const file = path.join(dir, 'settings.json');
    const damaged = '{"values": {"model": "gemini-x", "sfxEnabled": tr';
    writeFileSync(file, damaged);
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const store = createConfSettingsStore({ dir, env: {}, logger });
    expect((await store.view()).values).toEqual({});
    const copies = readdirSync(dir).filter((f) => /^settings\.json\.corrupt-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ$/.test(f));
    expect(copies).toHaveLength(1);
    const copy = path.join(dir, copies[0]!);
    expect(readFileSync(copy, 'utf8')).toBe(damaged);
    const warning = lines.map((l) => JSON.parse(l) as { level: number; msg: string }).find((l) => l.level === 40);
    expect(warning?.msg).toContain(copy);
    expect(existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {}).not.toHaveProperty('values.model');
  });
});
