// The thin client reads the sidecar's address without loading the whole configuration; it must
// agree with loadConfig (what the running core used) for every way the variables can be given.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AddressError, readSidecarAddress } from '../../../main/cli/address.ts';
import { ConfigError, loadConfig } from '../../../main/core/config/index.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'lvb-address-'));
const envFile = path.join(dir, '.env');

function both(env: Record<string, string>, file = ''): [unknown, unknown] {
  writeFileSync(envFile, file);
  const config = loadConfig({ env, envFile });
  const address = readSidecarAddress(env, envFile);
  return [
    {
      sidecar: {
        host: config.sidecar.host,
        port: config.sidecar.port,
        token: config.sidecar.token,
        tokenFile: config.sidecar.tokenFile,
      },
      paths: { voiceUsers: config.paths.voiceUsers },
    },
    address,
  ];
}

describe('readSidecarAddress agrees with loadConfig', () => {
  it.each([
    ['defaults', {}, ''],
    [
      'canonical names',
      { DISCORD_VOICE_LIVE_PORT: '18950', HERMES_HOME: '/tmp/agent-home', DISCORD_VOICE_LIVE_HOST: 'localhost' },
      '',
    ],
    [
      "the spec's prefix",
      { PLATFORM_VOICE_LIVE_PORT: '18951', PLATFORM_VOICE_LIVE_SIDECAR_TOKEN_FILE: '/tmp/t/token' },
      '',
    ],
    [
      'the .env file, the environment first, empty means unset',
      { DISCORD_VOICE_LIVE_PORT: '', HERMES_HOME: '/tmp/env-home' },
      'DISCORD_VOICE_LIVE_PORT=18952\nHERMES_HOME=/tmp/file-home\n',
    ],
    [
      'a token and ~ in paths',
      { DISCORD_VOICE_LIVE_SIDECAR_TOKEN: 'a-token-of-enough-length', DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE: '~/tok' },
      '',
    ],
  ])('%s', (_name, env, file) => {
    const [config, address] = both(env as Record<string, string>, file);
    expect(address).toEqual(config);
  });

  it('refuses what loadConfig refuses for these variables', () => {
    for (const env of [
      { DISCORD_VOICE_LIVE_PORT: 'http' },
      { DISCORD_VOICE_LIVE_PORT: '70000' },
      { DISCORD_VOICE_LIVE_SIDECAR_TOKEN: 'short' },
    ]) {
      writeFileSync(envFile, '');
      expect(() => loadConfig({ env, envFile })).toThrow(ConfigError);
      expect(() => readSidecarAddress(env, envFile)).toThrow(AddressError);
    }
  });
});
