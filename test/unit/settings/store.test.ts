import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../main/core/config/index.ts';
import { createConfSettingsStore } from '../../../main/core/settings/conf-store.ts';
import {
  canDecryptWith,
  secretStorageVerdict,
  type SecretVault,
  type VaultStatus,
} from '../../../main/core/settings/secret-policy.ts';
import { SettingsError } from '../../../main/core/settings/store.ts';

/** A reversible fake "encryption" so the test can see ciphertext differs from the secret. */
function fakeVault(status: VaultStatus, rotate = false): SecretVault & { encrypted: number } {
  const vault = {
    encrypted: 0,
    status: async () => status,
    encrypt: async (plain: string) => {
      vault.encrypted++;
      return Buffer.from([...plain].reverse().join(''), 'utf8').toString('base64');
    },
    decrypt: async (cipher: string) => ({
      value: [...Buffer.from(cipher, 'base64').toString('utf8')].reverse().join(''),
      shouldReEncrypt: rotate,
    }),
  };
  return vault;
}

const fakeToken = () => ['fake', 'discord', 'token', 'x'.repeat(24)].join('.');
const OWNER = '123456789012345678';

describe('secret storage policy', () => {
  it('refuses without a vault, without encryption, and on the plain-text Linux backend', () => {
    expect(secretStorageVerdict(undefined)).toMatchObject({
      canStore: false,
      reason: expect.stringContaining('headless'),
    });
    expect(secretStorageVerdict({ available: false, backend: 'os' })).toMatchObject({
      canStore: false,
      reason: expect.stringContaining('not available'),
    });
    expect(secretStorageVerdict({ available: true, backend: 'basic_text' })).toMatchObject({
      canStore: false,
      reason: expect.stringContaining('plain text'),
    });
    expect(secretStorageVerdict({ available: true, backend: 'gnome_libsecret' })).toEqual({
      canStore: true,
      backend: 'gnome_libsecret',
    });
  });

  it('treats ciphertext from another backend as unreadable', () => {
    expect(canDecryptWith('kwallet5', { available: true, backend: 'gnome_libsecret' })).toBe(false);
    expect(canDecryptWith('gnome_libsecret', { available: true, backend: 'gnome_libsecret' })).toBe(true);
  });
});

describe('settings store (conf)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'lvb-settings-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('stores validated values, clears with null, and feeds the config loader', async () => {
    const store = createConfSettingsStore({ dir, env: {} });
    await store.update({
      values: {
        model: 'gemini-test-live',
        ownerId: OWNER,
        allowedSpeakers: [OWNER],
        sfxEnabled: false,
        sidecarPort: 19001,
      },
    });
    await store.update({ values: { model: null } });
    const view = await store.view();
    expect(view.values).toEqual({ ownerId: OWNER, allowedSpeakers: [OWNER], sfxEnabled: false, sidecarPort: 19001 });

    const config = loadConfig({ env: { HERMES_HOME: dir }, settings: await store.configValues() });
    expect(config.discord.ownerId).toBe(OWNER);
    expect(config.notify.sfxEnabled).toBe(false);
    expect(config.sidecar.port).toBe(19001);
    expect(config.gemini.model).toBe('gemini-3.8-live');

    const onDisk = JSON.parse(readFileSync(path.join(dir, 'settings.json'), 'utf8'));
    expect(onDisk.values.sidecarPort).toBe(19001);
  });

  it('refuses bad values and unknown keys without writing anything', async () => {
    const store = createConfSettingsStore({ dir, env: {} });
    // Each refusal names its field and says what to enter, in plain words (no schema text).
    await expect(store.update({ values: { ownerId: 'not-an-id' } })).rejects.toMatchObject({
      fields: { ownerId: 'Pick a person from the list, or paste a Discord user id (17–20 digits).' },
    });
    await expect(store.update({ values: { sidecarPort: 80 } } as never)).rejects.toMatchObject({
      fields: { sidecarPort: 'Use a port number from 1024 to 65535.' },
    });
    await expect(store.update({ values: { sidecarPort: 80 } } as never)).rejects.toBeInstanceOf(SettingsError);
    await expect(store.update({ values: { colour: 'red' } } as never)).rejects.toThrow('Unknown setting: colour.');
    expect((await store.view()).values).toEqual({});
  });

  it('headless: refuses to store a secret, says why, and reports environment secrets by origin only', async () => {
    const store = createConfSettingsStore({ dir, env: { GOOGLE_API_KEY: 'env-key-value-123' } });
    const err = await store
      .update({ values: { voice: 'Puck' }, secrets: { discordBotToken: fakeToken() } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SettingsError);
    expect((err as SettingsError).code).toBe('secrets_unavailable');
    const view = await store.view();
    expect(view.values).toEqual({});
    expect(view.secrets).toMatchObject({
      canStore: false,
      state: { discordBotToken: 'unset', geminiApiKey: 'environment', webhookUrl: 'unset' },
    });
    expect(JSON.stringify(view)).not.toContain('env-key-value-123');
  });

  it('with a vault: keeps only ciphertext on disk, never returns the value, decrypts for config', async () => {
    const token = fakeToken();
    const vault = fakeVault({ available: true, backend: 'gnome_libsecret' });
    const store = createConfSettingsStore({ dir, env: {}, vault });
    const view = await store.update({ secrets: { discordBotToken: token, webhookUrl: 'http://127.0.0.1:9/hook/abc' } });
    expect(view.secrets).toEqual({
      canStore: true,
      state: {
        discordBotToken: 'stored',
        geminiApiKey: 'unset',
        openaiApiKey: 'unset',
        webhookUrl: 'stored',
        mcpServers: 'unset',
      },
    });
    expect(JSON.stringify(view)).not.toContain(token);
    const file = readFileSync(path.join(dir, 'settings.json'), 'utf8');
    expect(file).not.toContain(token);
    expect(file).toContain('gnome_libsecret');
    expect((await store.configValues()).DISCORD_BOT_TOKEN).toBe(token);

    await store.update({ secrets: { discordBotToken: null } });
    expect((await store.view()).secrets.state.discordBotToken).toBe('unset');
    expect((await store.configValues()).DISCORD_BOT_TOKEN).toBeUndefined();
  });

  it('refuses a plain-text backend and rejects a non-URL webhook', async () => {
    const store = createConfSettingsStore({
      dir,
      env: {},
      vault: fakeVault({ available: true, backend: 'basic_text' }),
    });
    await expect(store.update({ secrets: { geminiApiKey: 'k'.repeat(30) } })).rejects.toMatchObject({
      code: 'secrets_unavailable',
    });
    const ok = createConfSettingsStore({ dir, env: {}, vault: fakeVault({ available: true, backend: 'kwallet5' }) });
    await expect(ok.update({ secrets: { webhookUrl: 'javascript:alert(1)' } })).rejects.toMatchObject({
      code: 'invalid_settings',
    });
  });

  it('keeps the MCP server list as a secret, checked by the same parser as DISCORD_VOICE_LIVE_MCP_SERVERS', async () => {
    const store = createConfSettingsStore({
      dir,
      env: {},
      vault: fakeVault({ available: true, backend: 'gnome_libsecret' }),
    });
    const headerSecret = `Bearer ${fakeToken()}`;
    const servers = JSON.stringify([
      {
        name: 'memory',
        url: 'http://127.0.0.1:9/mcp',
        headers: { authorization: headerSecret },
        default_policy: 'ask',
      },
    ]);
    const view = await store.update({ secrets: { mcpServers: servers } });
    expect(view.secrets.state.mcpServers).toBe('stored');
    expect(readFileSync(path.join(dir, 'settings.json'), 'utf8')).not.toContain(headerSecret);
    expect((await store.configValues()).DISCORD_VOICE_LIVE_MCP_SERVERS).toBe(servers);
    expect(loadConfig({ env: {}, settings: await store.configValues() }).mcp.servers.map((s) => s.name)).toEqual([
      'memory',
    ]);
    // Not JSON, or a server with neither command nor url: refused with the parser's words, value hidden.
    const bad = store.update({ secrets: { mcpServers: `{"oops": "${headerSecret}"` } });
    await expect(bad).rejects.toMatchObject({ code: 'invalid_settings' });
    await expect(bad).rejects.not.toThrow(headerSecret);
    await expect(store.update({ secrets: { mcpServers: '[{"name":"x"}]' } })).rejects.toMatchObject({
      code: 'invalid_settings',
    });
  });

  it('re-encrypts when the OS rotated its key, and marks secrets unreadable after a backend change', async () => {
    const rotating = fakeVault({ available: true, backend: 'kwallet5' }, true);
    const store = createConfSettingsStore({ dir, env: {}, vault: rotating });
    await store.update({ secrets: { geminiApiKey: 'k'.repeat(30) } });
    const before = rotating.encrypted;
    await store.configValues();
    expect(rotating.encrypted).toBe(before + 1);

    const moved = createConfSettingsStore({
      dir,
      env: {},
      vault: fakeVault({ available: true, backend: 'gnome_libsecret' }),
    });
    expect((await moved.view()).secrets.state.geminiApiKey).toBe('unreadable');
    expect((await moved.configValues()).GEMINI_API_KEY).toBeUndefined();
  });

  it('keeps desktop preferences with defaults, and survives an invalid file', async () => {
    const store = createConfSettingsStore({ dir, env: {} });
    expect(store.desktopPrefs()).toEqual({ notificationsPaused: false, startAtLogin: false, shownTrayNotice: false });
    store.updateDesktopPrefs({ notificationsPaused: true });
    expect(createConfSettingsStore({ dir, env: {} }).desktopPrefs().notificationsPaused).toBe(true);

    writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ values: { sidecarPort: 'eighty' } }));
    const recovered = createConfSettingsStore({ dir, env: {} });
    expect((await recovered.view()).values).toEqual({});
  });
});
