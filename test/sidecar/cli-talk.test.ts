// `live-voice-bridge mute on|off` and `ptt down|up|on|off` against a running core: the exit code,
// what is printed, and the state /health then reports; a wrong word is a usage error (exit 2).
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HealthReport } from '../../main/core/api-types.ts';
import { talkRequest } from '../../main/cli/talk-command.ts';
import { startTestCore, type TestCore } from '../helpers/core.ts';
import { rawRequest } from '../helpers/http.ts';

let t: TestCore;
beforeAll(async () => {
  t = await startTestCore();
}, 30_000);
afterAll(async () => t?.close());

function cli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const { DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE: _f, ...base } = process.env;
  const child = spawn(process.execPath, ['main/cli.ts', ...args], {
    env: {
      ...base,
      HERMES_HOME: t.home,
      DISCORD_VOICE_LIVE_PORT: String(t.port),
      DISCORD_VOICE_LIVE_SIDECAR_TOKEN: t.core.token,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

const health = async () => (await rawRequest({ port: t.port, path: '/health' })).json as HealthReport;

describe('talk commands', () => {
  it('maps each word to its request', () => {
    expect(talkRequest('mute', 'on')).toEqual({ route: '/mute', body: { muted: true } });
    expect(talkRequest('mute', 'OFF')).toEqual({ route: '/mute', body: { muted: false } });
    expect(talkRequest('ptt', 'down')).toEqual({ route: '/ptt', body: { held: true } });
    expect(talkRequest('ptt', 'up')).toEqual({ route: '/ptt', body: { held: false } });
    expect(talkRequest('ptt', 'on')).toEqual({ route: '/ptt', body: { enabled: true } });
    expect(talkRequest('mute', 'maybe')).toEqual({ error: 'mute needs one of: on, off' });
    expect(talkRequest('ptt', undefined)).toEqual({ error: 'ptt needs one of: down, up, on, off' });
  });

  it('mute on / off changes what /health reports', async () => {
    const on = await cli(['mute', 'on']);
    expect([on.status, JSON.parse(on.stdout)]).toEqual([
      0,
      { muted: true, ptt: { enabled: false, held: false }, to_model: false },
    ]);
    expect((await health()).muted).toBe(true);
    expect((await cli(['mute', 'off'])).status).toBe(0);
    expect((await health()).muted).toBe(false);
  }, 30_000);

  it('ptt down while push-to-talk is off: the refusal, exit 1; on, down, up: the key state', async () => {
    const refused = await cli(['ptt', 'down']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toBe(
      'Push-to-talk is off, so there is no talk key to hold: voices reach the model already. Switch it on first: live-voice-bridge ptt on (ptt_off)\n',
    );
    expect((await cli(['ptt', 'on'])).status).toBe(0);
    expect((await cli(['ptt', 'down'])).status).toBe(0);
    expect((await health()).talk).toEqual({ muted: false, ptt: { enabled: true, held: true }, to_model: true });
    expect((await cli(['ptt', 'up'])).status).toBe(0);
    expect((await health()).talk).toEqual({ muted: false, ptt: { enabled: true, held: false }, to_model: false });
  }, 30_000);

  it('a wrong word is a usage error', async () => {
    const bad = await cli(['mute', 'loud']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('mute needs one of: on, off');
  }, 30_000);
});
