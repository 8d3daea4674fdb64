// The client commands against a running core (no call configured): what they print for scripts
// (--json, and whenever stdout is no terminal) and on a terminal, their exit codes, the human time
// forms reaching /schedule as the right moment, and usage errors that name what was typed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.ts';
import { startTestCore, type TestCore } from '../helpers/core.ts';
import { freePort } from '../helpers/net.ts';

let t: TestCore;
beforeAll(async () => {
  t = await startTestCore();
}, 30_000);
afterAll(async () => t?.close());

function cli(args: string[], env: Record<string, string> = {}, tty = false): Promise<CliResult> {
  return runCli(args, {
    env: {
      HERMES_HOME: t.home,
      DISCORD_VOICE_LIVE_PORT: String(t.port),
      DISCORD_VOICE_LIVE_SIDECAR_TOKEN: t.core.token,
      ...env,
    },
    tty,
  });
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
    expect(JSON.parse(res.stdout)).toMatchObject({
      health: { status: 'degraded', bridge: { state: 'idle' } },
      reminders: { entries: [] },
    });
  });

  it('join without a configured call: the 503 on stderr, exit 1; leave with no call: exit 0, stopped false', async () => {
    const join = await cli(['join']);
    expect([join.status, join.stdout]).toEqual([1, '']);
    expect(join.stderr).toMatch(
      /^Voice calls .*\. Set it up on the dashboard: live-voice-bridge dashboard \(not_configured\)\n$/,
    );
    const leave = await cli(['leave', '--json']);
    expect(leave.status).toBe(0);
    expect(JSON.parse(leave.stdout)).toMatchObject({ stopped: false });
  });

  it('ask and announce with no call: words, the hint to join, then the code; exit 1; no text: usage, exit 2', async () => {
    for (const verb of ['ask', 'announce', 'say']) {
      const res = await cli([verb, 'hello']);
      expect([res.status, res.stdout, res.stderr]).toEqual([
        1,
        '',
        'No live call to speak in. Join voice first: live-voice-bridge join (no_call)\n',
      ]);
      const onTerminal = await cli([verb, 'hello'], {}, true);
      expect([onTerminal.status, onTerminal.stdout]).toEqual([
        1,
        'No live call to speak in. Join voice first: live-voice-bridge join (no_call)\n',
      ]);
    }
    const empty = await cli(['ask']);
    expect(empty.status).toBe(2);
    expect(empty.stderr).toContain('ask needs the message for the model');
  }, 60_000);

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

  it('--at 09:30 --tz Europe/Berlin and --at "tomorrow 9:00": stored at that second exactly (never a fraction early)', async () => {
    const berlin = JSON.parse(
      (await cli(['schedule', '--at', '09:30', '--tz', 'Europe/Berlin', 'Stand-up', '--json'])).stdout,
    ) as Created & { fire_at: string };
    const shown = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Berlin',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    }).format(new Date(berlin.fire_at_epoch * 1000));
    expect(shown).toBe('09:30:00');
    expect(berlin.fire_at_epoch % 60).toBe(0);
    expect(berlin.fire_at).toBe(new Date(berlin.fire_at_epoch * 1000).toISOString());
    expect(berlin.fire_at_epoch - berlin.entry.created_at).toBeLessThanOrEqual(86400);
    const tomorrow = JSON.parse(
      (await cli(['schedule', '--at', 'tomorrow 9:00', 'Plan the day', '--json'])).stdout,
    ) as Created & { fire_at: string };
    const day = new Date(tomorrow.entry.created_at * 1000 + 86400_000).toISOString().slice(0, 10);
    expect(tomorrow.fire_at).toBe(`${day}T09:00:00.000Z`);
    expect(tomorrow.fire_at_epoch).toBe(Date.parse(`${day}T09:00:00Z`) / 1000);
  });

  it('--repeat weekdays --at 09:55 --tz: the zone travels with the rule', async () => {
    const res = JSON.parse(
      (
        await cli([
          'schedule',
          '--repeat',
          'weekdays',
          '--at',
          '09:55',
          '--tz',
          'Europe/Berlin',
          'Stand-up in 5',
          '--json',
        ])
      ).stdout,
    ) as Created;
    expect(res.entry.repeat).toMatchObject({ rule: 'weekdays', timezone: 'Europe/Berlin' });
  });

  it('--list --json, then --cancel ID', async () => {
    const list = await cli(['schedule', '--list', '--json']);
    const page = JSON.parse(list.stdout) as { entries: { id: string; text: string }[] };
    expect(page.entries.map((e) => e.text)).toEqual(
      expect.arrayContaining(['Stretch', 'Tea', 'Stand-up', 'Plan the day', 'Stand-up in 5']),
    );
    const id = page.entries.find((e) => e.text === 'Tea')!.id;
    const cancelled = await cli(['schedule', '--cancel', id, '--json']);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ cancelled: id });
    const again = await cli(['schedule', '--cancel', id]);
    expect([again.status, again.stderr]).toEqual([
      1,
      expect.stringMatching(/^.+\. Its state is in: live-voice-bridge schedule --list \(not_cancellable\)\n$/),
    ]);
  });

  it('--cancel of an unknown id: "No reminder with id …" and the code, on a terminal and with --json', async () => {
    const piped = await cli(['schedule', '--cancel', 'n-nope', '--json']);
    expect([piped.status, piped.stdout, piped.stderr]).toEqual([
      1,
      '',
      'No reminder with id n-nope. The ids are in: live-voice-bridge schedule --list (unknown_schedule_id)\n',
    ]);
    const onTerminal = await cli(['schedule', '--cancel', 'n-nope'], {}, true);
    expect([onTerminal.status, onTerminal.stdout]).toEqual([
      1,
      'No reminder with id n-nope. The ids are in: live-voice-bridge schedule --list (unknown_schedule_id)\n',
    ]);
  });

  it('on a terminal: the reminder in the one date format, with its zone', async () => {
    const day = new Date(Date.now() + 3 * 86400_000).toISOString().slice(0, 10);
    const res = await cli(['schedule', '--at', `${day} 09:00`, '--tz', 'Europe/Berlin', 'Year review'], {}, true);
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(
      new RegExp(`^Scheduled n-[0-9a-f]{12}: ${day} 09:00 Europe/Berlin \\(in .+\\), by auto\\.\\n`),
    );
    const list = await cli(['schedule', '--list', '--tz', 'Europe/Berlin'], {}, true);
    expect(list.stdout).toContain(`${day} 09:00 Europe/Berlin`);
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
      // One line and the pointer to --help, never the whole help.
      expect(res.stderr.split('\n')).toEqual([
        expect.stringMatching(/^live-voice-bridge: /),
        'Every command and option: live-voice-bridge --help',
        '',
      ]);
    }
    expect((JSON.parse((await cli(['schedule', '--list', '--json'])).stdout) as { total: number }).total).toBe(before);
  }, 60_000);
});

describe('what status, health and usage mistakes say', () => {
  it('a wrong token: status fails (exit 2) naming the token file, on a terminal and with --json; no screen, no "ok"', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const dir = mkdtempSync(`${t.home}/wrong-`);
    const file = `${dir}/sidecar.token`;
    writeFileSync(file, 'abcdefghijklmnopqrstuv'); // 22 characters, not the sidecar's
    const env = { DISCORD_VOICE_LIVE_SIDECAR_TOKEN: '', DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE: file };
    const piped = await cli(['status', '--json'], env);
    expect([piped.status, piped.stdout]).toEqual([2, '']);
    expect(piped.stderr).toMatch(
      new RegExp(
        `^The sidecar at http://127\\.0\\.0\\.1:${t.port} refused the token read from ${file.replace(/[.]/g, '\\.')}: `,
      ),
    );
    expect(piped.stderr).toMatch(/ \(unauthorized\)\n$/);
    const onTerminal = await cli(['status'], env, true);
    expect(onTerminal.status).toBe(2);
    expect(onTerminal.stdout).toContain(`refused the token read from ${file}`);
    expect(onTerminal.stdout).not.toMatch(/Live Voice Bridge|: ok/);
    // No token at all: the screen (/health is public) says why the reminders are not shown.
    const none = await cli(
      ['status'],
      { DISCORD_VOICE_LIVE_SIDECAR_TOKEN: '', DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE: `${dir}/missing.token` },
      true,
    );
    expect(none.status).toBe(0);
    expect(none.stdout).toContain(
      `  Reminders:   not shown: no sidecar token to read them with (${dir}/missing.token does not exist or is empty)\n`,
    );
    const variable = await cli(['status'], { DISCORD_VOICE_LIVE_SIDECAR_TOKEN: 'abcdefghijklmnopqrstuv' }, true);
    expect([variable.status, variable.stdout]).toEqual([
      2,
      expect.stringContaining('refused the token in DISCORD_VOICE_LIVE_SIDECAR_TOKEN'),
    ]);
  }, 60_000);

  it('health: a short summary on a terminal, the JSON (with ISO times) with --json', async () => {
    const onTerminal = await cli(['health'], {}, true);
    expect(onTerminal.status).toBe(0);
    expect(onTerminal.stdout).toMatch(/^Live Voice Bridge \S+: degraded \(running for .+\)\n/);
    expect(onTerminal.stdout).toContain('  Call:');
    expect(onTerminal.stdout).toContain('Needs attention:');
    expect(onTerminal.stdout).not.toContain('{');
    expect(onTerminal.stdout.split('\n').length).toBeLessThan(25);
    const piped = await cli(['health', '--json']);
    const json = JSON.parse(piped.stdout) as { bridge: { since: number; since_iso: string }; metrics: object };
    expect(json.bridge.since_iso).toBe(new Date(Math.round(json.bridge.since * 1000)).toISOString());
    expect(json.metrics).toBeTypeOf('object');
  });

  it('usage mistakes: one line, "did you mean", a pointer to --help, exit 2 (terminal and piped)', async () => {
    const cases: [string[], string][] = [
      [['notify', '--mod', 'dm', 'hi'], 'live-voice-bridge: notify: unknown option --mod (did you mean --mode?)'],
      [
        ['schedule', '--in', '10m', '--tz=Europe/Berlin', '--repet', 'daily', 'x'],
        'live-voice-bridge: schedule: unknown option --repet (did you mean --repeat?)',
      ],
      [['stauts'], 'live-voice-bridge: unknown command "stauts" (did you mean status?)'],
      [['join', '--guild', '1'], 'live-voice-bridge: join: give both --guild ID and --channel ID, or neither'],
      [['leave', 'now'], 'live-voice-bridge: leave takes no text (got "now")'],
    ];
    for (const [args, line] of cases) {
      const piped = await cli(args);
      expect([piped.status, piped.stdout, piped.stderr], args.join(' ')).toEqual([
        2,
        '',
        `${line}\nEvery command and option: live-voice-bridge --help\n`,
      ]);
      expect(piped.stderr).not.toContain('place it at the end');
    }
    const onTerminal = await cli(['notify', '--mod', 'dm', 'hi'], {}, true);
    expect([onTerminal.status, onTerminal.stdout]).toEqual([
      2,
      'live-voice-bridge: notify: unknown option --mod (did you mean --mode?)\nEvery command and option: live-voice-bridge --help\n',
    ]);
    const help = await cli(['schedule', '--help']);
    expect([help.status, help.stdout]).toEqual([0, expect.stringContaining('Exit codes:')]);
  }, 60_000);
});
