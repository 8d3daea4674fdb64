// With no token to send, the CLI names the token file it looked for (and the variables that point
// elsewhere) instead of sending a request the sidecar can only refuse.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { freePort } from '../helpers/net.ts';

const home = mkdtempSync(path.join(tmpdir(), 'lvb-cli-token-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

function cli(args: string[], env: Record<string, string>) {
  const { DISCORD_VOICE_LIVE_SIDECAR_TOKEN: _t, DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE: _f, ...base } = process.env;
  return spawnSync(process.execPath, ['main/cli.ts', ...args], {
    env: { ...base, HERMES_HOME: home, ...env },
    encoding: 'utf8',
  });
}

it('names the default token file under the agent home', async () => {
  const result = cli(['say', 'hello there'], { DISCORD_VOICE_LIVE_PORT: String(await freePort()) });
  expect(result.status).toBe(3);
  expect(result.stderr).toContain(
    `no sidecar token: ${path.join(home, 'voice-users', 'sidecar.token')} does not exist or is empty`,
  );
  expect(result.stderr).toContain('DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE');
});

it('names the file DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE points at', async () => {
  const file = path.join(home, 'elsewhere', 'demo.token');
  const result = cli(['notify', 'done'], {
    DISCORD_VOICE_LIVE_PORT: String(await freePort()),
    DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE: file,
  });
  expect(result.status).toBe(3);
  expect(result.stderr).toContain(`no sidecar token: ${file} does not exist or is empty`);
});
