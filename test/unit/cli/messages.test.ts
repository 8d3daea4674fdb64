// The CLI's sentences for what went wrong: a sidecar error leads with words and ends with its code
// in parentheses (with the command that helps), a usage mistake is one line with a "did you mean",
// and --json puts an ISO 8601 time beside every epoch field.
import { describe, expect, it } from 'vitest';
import { sidecarErrorLine } from '../../../main/cli/errors.ts';
import { isoFieldName, withIsoTimes } from '../../../main/cli/json-times.ts';
import { closest, COMMANDS, parseOptions, unknownCommand, UsageError } from '../../../main/cli/usage.ts';

const error = (code: string, message: string) => ({ error: { code, message } });

describe('sidecar errors: words, then the code', () => {
  it('no call: the hint to join', () => {
    expect(sidecarErrorLine(409, error('no_call', 'no live call to speak in'))).toBe(
      'No live call to speak in. Join voice first: live-voice-bridge join (no_call)',
    );
  });

  it('an unknown reminder id: named, with where the ids are', () => {
    expect(
      sidecarErrorLine(404, error('unknown_schedule_id', 'no scheduled notification with id "n-nope"'), {
        id: 'n-nope',
      }),
    ).toBe('No reminder with id n-nope. The ids are in: live-voice-bridge schedule --list (unknown_schedule_id)');
  });

  it("any other code: the sidecar's message as a sentence, then the code", () => {
    expect(sidecarErrorLine(503, error('not_configured', 'voice calls need DISCORD_BOT_TOKEN'))).toBe(
      'Voice calls need DISCORD_BOT_TOKEN. Set it up on the dashboard: live-voice-bridge dashboard (not_configured)',
    );
    expect(sidecarErrorLine(429, error('schedule_full', 'the schedule holds 10000 pending entries.'))).toBe(
      'The schedule holds 10000 pending entries. (schedule_full)',
    );
    expect(sidecarErrorLine(400, error('unknown_mode', 'mode: mode must be one of voice, dm'))).toBe(
      'Mode must be one of voice, dm. (unknown_mode)',
    );
    expect(sidecarErrorLine(502, 'Bad Gateway')).toBe('The sidecar answered HTTP 502: "Bad Gateway". (http_502)');
  });

  it('a refused token: the file (or variable) it came from and what to do', () => {
    const fromFile = sidecarErrorLine(
      401,
      error('unauthorized', 'missing or invalid bearer token'),
      { token: { from: 'file', file: '/home/me/.hermes/voice-users/sidecar.token' } },
      'http://127.0.0.1:18943',
    );
    expect(fromFile).toMatch(
      /^The sidecar at http:\/\/127\.0\.0\.1:18943 refused the token read from \/home\/me\/\.hermes\/voice-users\/sidecar\.token: /,
    );
    expect(fromFile).toContain('DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE');
    expect(fromFile).toMatch(/ \(unauthorized\)$/);
    const fromVariable = sidecarErrorLine(401, error('unauthorized', 'x'), {
      token: { from: 'variable', file: '/t/sidecar.token' },
    });
    expect(fromVariable).toMatch(
      /^The sidecar refused the token in DISCORD_VOICE_LIVE_SIDECAR_TOKEN: .*unset it to use the token file \/t\/sidecar\.token \(unauthorized\)$/,
    );
  });
});

describe('usage mistakes: one line, a suggestion', () => {
  const options = { mode: { type: 'string' }, title: { type: 'string' }, urgent: { type: 'boolean' } } as const;
  const mistake = (args: string[]): string => {
    try {
      parseOptions('notify', { args, options, allowPositionals: true });
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      return (err as Error).message;
    }
    throw new Error('accepted');
  };

  it('an unknown option: did you mean, never the parser text about "--"', () => {
    expect(mistake(['--mod', 'dm', 'hi'])).toBe('notify: unknown option --mod (did you mean --mode?)');
    expect(mistake(['--titel', 'x', 'hi'])).toBe('notify: unknown option --titel (did you mean --title?)');
    const far = mistake(['--colour', 'red', 'hi']);
    expect(far).toBe(
      'notify: unknown option --colour; its options: --mode, --title, --urgent; text that starts with "-" goes after --',
    );
    expect(far).not.toContain('place it at the end');
  });

  it('a missing value, a value given to a switch', () => {
    expect(mistake(['hi', '--mode'])).toBe('notify: --mode needs a value');
    expect(mistake(['--urgent=yes', 'hi'])).toBe('notify: --urgent takes no value');
  });

  it('an unknown command: the nearest one', () => {
    expect(unknownCommand('stauts').message).toBe('unknown command "stauts" (did you mean status?)');
    expect(unknownCommand('scedule').message).toBe('unknown command "scedule" (did you mean schedule?)');
    expect(unknownCommand('xyzzy').message).toBe('unknown command "xyzzy"');
    expect(closest('anounce', COMMANDS)).toBe('announce');
    expect(closest('dash', COMMANDS)).toBe('dashboard');
  });
});

describe('--json: ISO 8601 beside each epoch field', () => {
  it('fire_at_epoch → fire_at, created_at → created_at_iso, delay_seconds → due_at; the epoch fields stay', () => {
    const created = Date.UTC(2026, 11, 1, 23, 59, 30) / 1000;
    const json = withIsoTimes({
      scheduled: 'n-1',
      fire_at_epoch: Date.UTC(2026, 11, 2, 8, 0) / 1000,
      entry: { delay_seconds: 30, created_at: created, updated_at: created, claim: { lease_until: created + 600 } },
      health: { bridge: { state: 'idle', since: created }, uptime_s: 42 },
    });
    expect(json).toEqual({
      scheduled: 'n-1',
      fire_at_epoch: Date.UTC(2026, 11, 2, 8, 0) / 1000,
      fire_at: '2026-12-02T08:00:00.000Z',
      entry: {
        delay_seconds: 30,
        due_at: '2026-12-02T00:00:00.000Z',
        created_at: created,
        created_at_iso: '2026-12-01T23:59:30.000Z',
        updated_at: created,
        updated_at_iso: '2026-12-01T23:59:30.000Z',
        claim: { lease_until: created + 600, lease_until_iso: '2026-12-02T00:09:30.000Z' },
      },
      health: { bridge: { state: 'idle', since: created, since_iso: '2026-12-01T23:59:30.000Z' }, uptime_s: 42 },
    });
    expect(isoFieldName('notified_at')).toBe('notified_at_iso');
  });

  it('leaves counts, durations and arrays of entries alone but walks into them', () => {
    expect(withIsoTimes({ attempts: 1, late_by_seconds: 3, entries: [{ fire_at_epoch: 1796284800 }] })).toEqual({
      attempts: 1,
      late_by_seconds: 3,
      entries: [{ fire_at_epoch: 1796284800, fire_at: '2026-12-03T08:00:00.000Z' }],
    });
  });
});
