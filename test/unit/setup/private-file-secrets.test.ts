// Headless secrets: typed on /setup, kept in the settings file readable by this user only (0600, in
// a 0700 folder), read back by the config loader with saved settings first; never in a view.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../main/core/config/index.ts';
import { createConfSettingsStore } from '../../../main/core/settings/conf-store.ts';
import { privateFileVault } from '../../../main/core/setup/private-file-vault.ts';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lvb-private-secrets-'));
  dirs.push(dir);
  return path.join(dir, 'voice-users');
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('headless secrets in the owner-only settings file', () => {
  it('stores a typed token 0600, reports only its state, and the config loader reads it before the environment', async () => {
    const dir = tempDir();
    const store = createConfSettingsStore({
      dir,
      env: { DISCORD_BOT_TOKEN: 'env-token-value-0123456789' },
      vault: privateFileVault(),
    });
    const token = ['typed', 'token', 'abcdefghijklmnop'].join('-');
    const view = await store.update({ secrets: { discordBotToken: token } });
    expect(view.secrets).toMatchObject({ canStore: true, state: { discordBotToken: 'stored' } });
    expect(JSON.stringify(view)).not.toContain(token);
    const file = path.join(dir, 'settings.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readFileSync(file, 'utf8')).toContain('private-file');
    const config = loadConfig({
      env: { DISCORD_BOT_TOKEN: 'env-token-value-0123456789', HERMES_HOME: path.dirname(dir) },
      settings: await store.configValues(),
    });
    expect(config.discord.botToken).toBe(token);
    expect(config.secretValues).toContain(token);
  });

  it('narrows a settings file an older version wrote with the default mode', async () => {
    const dir = tempDir();
    createConfSettingsStore({ dir, env: {} });
    const file = path.join(dir, 'settings.json');
    writeFileSync(file, '{}', { mode: 0o644 });
    createConfSettingsStore({ dir, env: {}, vault: privateFileVault() });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
