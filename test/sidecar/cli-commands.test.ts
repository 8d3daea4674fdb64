// The client commands against a running core (no call configured): what they print for scripts
// (--json, and whenever stdout is no terminal), their exit codes, the human time forms reaching
// /schedule as the right moment, and usage errors that name what was typed.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCore, type TestCore } from '../helpers/core.ts';
import { freePort } from '../helpers/net.ts';

let t: TestCore;
beforeAll(async () => {
  t = await startTestCore();
}, 30_000);
afterAll(async () => t?.close());

function cli(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const { DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE: _f, ...base } = process.env;
  const child = spawn(process.execPath, ['bin/live-voice-bridge.js', ...args], {
    env: { ...base, NO_COLOR: '1', TZ: 'UTC', HERMES_HOME: t.home, DISCORD_VOICE_LIVE_PORT: String(t.port), DISCORD_VOICE_LIVE_SIDECAR_TOKEN: t.core.token, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

interface Created {
  scheduled: string;
  fire_at_epoch: number;
  entry: { delay_seconds: number; created_at: number; repeat?: { rule: string; timezone: string } };
}

describe('status, join, leave', () => {
  it('status --json: the health report and the reminders page; exit 0', async () => {
    const res = await cli(['status', '--json']);
    expect(res.status).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ health: { status: 'degraded', bridge: { state: 'idle' } }, reminders: { entries: [] } });
  });

  it('join without a configured call: the 503 on stderr, exit 1; leave with no call: exit 0, stopped false', async () => {
    const join = await cli(['join']);
    expect([join.status, join.stdout]).toEqual([1, '']);
    expect(join.stderr).toContain('error 503: not_configured');
    const leave = await cli(['leave', '--json']);
    expect(leave.status).toBe(0);
    expect(JSON.parse(leave.stdout)).toMatchObject({ stopped: false });
  });

  it('ask and announce with no call: 409 no_call, exit 1; no text: usage, exit 2', async () => {
    for (const verb of ['ask', 'announce', 'say']) {
      const res = await cli([verb, 'hello']);
      expect([res.status, res.stderr.trim()]).toEqual([1, 'error 409: no_call: no live call to speak in']);
    }
    const empty = await cli(['ask']);
    expect(empty.status).toBe(2);
    expect(empty.stderr).toContain('ask needs the message for the model');
  });

  it('the sidecar not running: exit 3, nothing sent', async () => {
    const res = await cli(['status'], { DISCORD_VOICE_LIVE_PORT: String(await freePort()) });
    expect(res.status).toBe(3);
    expect(res.stderr).toContain('the sidecar is not running');
  });
});

describe('schedule with human times', () => {
  it('--in 10m, --in 1h30m: the delay in seconds; piped output is JSON without --json (as before)', async () => {
    const ten = await cli(['schedule', '--in', '10m', '--mode', 'dm', 'Stretch']);
    expect([ten.status, ten.stderr]).toEqual([0, '']);
    expect((JSON.parse(ten.stdout) as Created).entry.delay_seconds).toBe(600);
    const mixed = JSON.parse((await cli(['schedule', '--in', '1h30m', 'Tea', '--json'])).stdout) as Created;
    expect(mixed.entry.delay_seconds).toBe(5400);
  });

  it('--at 09:30 --tz Europe/Berlin and --at "tomorrow 9:00": fires when the clock there shows it', async () => {
    const berlin = JSON.parse((await cli(['schedule', '--at', '09:30', '--tz', 'Europe/Berlin', 'Stand-up', '--json'])).stdout) as Created;
    const shown = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(Math.round(berlin.fire_at_epoch / 60) * 60_000));
    expect(shown).toBe('09:30');
    expect(berlin.fire_at_epoch - berlin.entry.created_at).toBeLessThanOrEqual(86400);
    const tomorrow = JSON.parse((await cli(['schedule', '--at', 'tomorrow 9:00', 'Plan the day', '--json'])).stdout) as Created;
    const at = new Date(Math.round(tomorrow.fire_at_epoch / 60) * 60_000);
    expect([at.getUTCHours(), at.getUTCMinutes()]).toEqual([9, 0]);
  });

  it('--repeat weekdays --at 09:55 --tz: the zone travels with the rule', async () => {
    const res = JSON.parse((await cli(['schedule', '--repeat', 'weekdays', '--at', '09:55', '--tz', 'Europe/Berlin', 'Stand-up in 5', '--json'])).stdout) as Created;
    expect(res.entry.repeat).toMatchObject({ rule: 'weekdays', timezone: 'Europe/Berlin' });
  });

  it('--list --json, then --cancel ID', async () => {
    const list = await cli(['schedule', '--list', '--json']);
    const page = JSON.parse(list.stdout) as { entries: { id: string; text: string }[] };
    expect(page.entries.map((e) => e.text)).toEqual(expect.arrayContaining(['Stretch', 'Tea', 'Stand-up', 'Plan the day', 'Stand-up in 5']));
    const id = page.entries.find((e) => e.text === 'Tea')!.id;
    const cancelled = await cli(['schedule', '--cancel', id, '--json']);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ cancelled: id });
    expect((await cli(['schedule', '--cancel', id])).status).toBe(1);
  });

  it('bad times are usage errors (exit 2) naming the option typed, never delay_seconds; nothing scheduled', async () => {
    const before = (JSON.parse((await cli(['schedule', '--list', '--json'])).stdout) as { total: number }).total;
    const cases: [string[], RegExp][] = [
      [['schedule', '--in', '10q', 'x'], /--in: "10q" is not a duration/],
      [['schedule', '--in', '40d', 'x'], /--in: "40d" is more than 30 days ahead/],
      [['schedule', '--at', '25:00', 'x'], /--at: "25:00" is not a time of day/],
      [['schedule', '--at', '9:00', '--tz', 'Mars/Base', 'x'], /--tz: "Mars\/Base" is not a time zone/],
      [['schedule', '--in', '10m', '--at', '09:00', 'x'], /give --in or --at, not both/],
      [['schedule', 'x'], /schedule needs a time/],
    ];
    for (const [args, message] of cases) {
      const res = await cli(args);
      expect(res.status, args.join(' ')).toBe(2);
      expect(res.stderr).toMatch(message);
      expect(res.stderr).not.toContain('delay_seconds');
    }
    expect((JSON.parse((await cli(['schedule', '--list', '--json'])).stdout) as { total: number }).total).toBe(before);
  }, 60_000);
});
