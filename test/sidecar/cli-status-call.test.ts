// `status` around a real call on the fakes: in the call, then after `leave`, which ends only the
// voice call — the bot stays logged in to the gateway, and there is no microphone to hear anyone.
// Before, the screen after leave said "Microphone: open: the model hears the call" and
// "Connections: Discord disconnected".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCoreOnFakes, type CoreOnFakes } from '../helpers/call-on-fakes.ts';
import { runCli, type CliResult } from '../helpers/cli.ts';

let f: CoreOnFakes;
beforeAll(async () => {
  f = await startCoreOnFakes();
}, 30_000);
afterAll(async () => f?.close());

function cli(args: string[], tty = false): Promise<CliResult> {
  return runCli(args, {
    env: {
      HERMES_HOME: f.t.home,
      DISCORD_VOICE_LIVE_PORT: String(f.t.port),
      DISCORD_VOICE_LIVE_SIDECAR_TOKEN: f.t.core.token,
    },
    tty,
  });
}

interface StatusJson {
  health: {
    bridge: { state: string; since: number; since_iso: string };
    connections: { discord: string };
    discord_bot: { configured: boolean; logged_in: boolean };
  };
}

describe('status in a call and after leave', () => {
  it('in the call: the call, the bot and its voice connection, the open microphone', async () => {
    const join = await cli(['join']);
    expect(join.status).toBe(0);
    const screen = await cli(['status'], true);
    expect(screen.status).toBe(0);
    expect(screen.stdout).toMatch(/ {2}Call: {8}connected for \d+ s \(call /);
    expect(screen.stdout).toContain('  Discord:     bot logged in (gateway connected); voice connected\n');
    expect(screen.stdout).toContain('  Microphone:  open: the model hears the call\n');
  }, 60_000);

  it('after leave: no call, the bot still logged in, the microphone line says there is no call (terminal and --json)', async () => {
    expect((await cli(['leave'])).status).toBe(0);
    const screen = await cli(['status'], true);
    expect(screen.status).toBe(0);
    expect(screen.stdout).toContain('  Call:        none (stopped: stopped from the command line)\n');
    expect(screen.stdout).toContain('  Discord:     bot logged in (gateway connected); no voice call\n');
    expect(screen.stdout).toContain('  Microphone:  no call, nothing is heard (open for the next call)\n');
    expect(screen.stdout).not.toMatch(/the model hears the call|Discord disconnected/);
    const json = JSON.parse((await cli(['status', '--json'])).stdout) as StatusJson;
    expect(json.health.bridge.state).toBe('stopped');
    expect(json.health.connections.discord).toBe('disconnected');
    expect(json.health.discord_bot).toEqual({ configured: true, logged_in: true });
    expect(json.health.bridge.since_iso).toBe(new Date(Math.round(json.health.bridge.since * 1000)).toISOString());
  }, 60_000);
});
