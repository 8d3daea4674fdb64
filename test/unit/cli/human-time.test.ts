// The times people type for `schedule`: every form the help shows, in a named zone, across a
// daylight-saving change; refusals name the option typed, never the sidecar's `delay_seconds`.
import { describe, expect, it } from 'vitest';
import {
  formatRelative,
  formatWhen,
  MAX_DELAY_SECONDS,
  parseAt,
  parseIn,
  resolveZone,
  TimeInputError,
} from '../../../main/cli/human-time.ts';
import { MAX_DELAY_SECONDS as SIDECAR_MAX } from '../../../main/core/notify/validation.ts';

// Friday 27 Nov 2026, 15:45:00 UTC = 16:45 in Berlin (CET, UTC+1) = 10:45 in New York (EST).
const NOW = new Date(Date.UTC(2026, 10, 27, 15, 45, 0));

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(TimeInputError);
    return (err as Error).message;
  }
  throw new Error('not refused');
}

describe('--in', () => {
  it('reads seconds, units and combinations', () => {
    expect(parseIn('90')).toBe(90);
    expect(parseIn('10m')).toBe(600);
    expect(parseIn('10 min')).toBe(600);
    expect(parseIn('1h30m')).toBe(5400);
    expect(parseIn('2h')).toBe(7200);
    expect(parseIn('1.5h')).toBe(5400);
    expect(parseIn('1d')).toBe(86400);
    expect(parseIn('45s')).toBe(45);
    expect(parseIn('3 days')).toBe(3 * 86400);
  });

  it('refuses what is no duration or more than 30 days, naming --in (never delay_seconds)', () => {
    for (const bad of ['10q', 'soon', '', '10m later', '-5']) expect(refusal(() => parseIn(bad))).toMatch(/^--in: /);
    expect(refusal(() => parseIn('31d'))).toContain('more than 30 days');
    for (const bad of ['10q', '31d']) expect(refusal(() => parseIn(bad))).not.toContain('delay_seconds');
  });

  it('uses the same 30-day bound as the sidecar', () => {
    expect(MAX_DELAY_SECONDS).toBe(SIDECAR_MAX);
  });
});

describe('--at (one-off)', () => {
  it('HH:MM is the next time the clock shows it in the zone: later today, else tomorrow', () => {
    expect(parseAt('17:30', { zone: 'Europe/Berlin', now: NOW })).toEqual({
      delaySeconds: 45 * 60,
      fireAt: Date.UTC(2026, 10, 27, 16, 30) / 1000,
      zone: 'Europe/Berlin',
    });
    // 09:30 in Berlin has passed: tomorrow 09:30 CET = 08:30 UTC.
    expect(parseAt('09:30', { zone: 'Europe/Berlin', now: NOW }).fireAt).toBe(Date.UTC(2026, 10, 28, 8, 30) / 1000);
  });

  it('"tomorrow 9:00", "today 18:00", a date, am/pm and a trailing zone', () => {
    expect(parseAt('tomorrow 9:00', { zone: 'UTC', now: NOW }).fireAt).toBe(Date.UTC(2026, 10, 28, 9, 0) / 1000);
    expect(parseAt('today 18:00', { zone: 'UTC', now: NOW }).delaySeconds).toBe(2 * 3600 + 15 * 60);
    expect(parseAt('2026-12-01 08:15', { zone: 'Europe/Berlin', now: NOW }).fireAt).toBe(
      Date.UTC(2026, 11, 1, 7, 15) / 1000,
    );
    expect(parseAt('2026-12-01T08:15', { zone: 'UTC', now: NOW }).fireAt).toBe(Date.UTC(2026, 11, 1, 8, 15) / 1000);
    const ny = parseAt('9:30pm America/New_York', { zone: 'Europe/Berlin', now: NOW });
    expect(ny).toEqual({
      delaySeconds: expect.any(Number),
      fireAt: Date.UTC(2026, 10, 28, 2, 30) / 1000,
      zone: 'America/New_York',
    });
    expect(parseAt('12am', { zone: 'UTC', now: NOW }).fireAt).toBe(Date.UTC(2026, 10, 28, 0, 0) / 1000);
  });

  it('across a daylight-saving change: 09:00 Berlin on the Sunday summer time starts is 07:00 UTC', () => {
    const saturday = new Date(Date.UTC(2027, 2, 27, 12, 0)); // Sat 27 Mar 2027, CET
    expect(parseAt('tomorrow 09:00', { zone: 'Europe/Berlin', now: saturday }).fireAt).toBe(
      Date.UTC(2027, 2, 28, 7, 0) / 1000,
    );
  });

  it('refuses a time already passed when the day was named, a bad time, a bad zone, over 30 days', () => {
    expect(refusal(() => parseAt('today 09:00', { zone: 'UTC', now: NOW }))).toContain(
      'has already passed (it is 2026-11-27 15:45 UTC)',
    );
    expect(refusal(() => parseAt('25:00', { zone: 'UTC', now: NOW }))).toMatch(/^--at: .*00:00 to 23:59/);
    expect(refusal(() => parseAt('9', { zone: 'UTC', now: NOW }))).toMatch(/^--at: "9" is not a time/);
    expect(refusal(() => parseAt('13pm', { zone: 'UTC', now: NOW }))).toMatch(/1 to 12/);
    expect(refusal(() => parseAt('9:00', { zone: 'Mars/Olympus', now: NOW }))).toMatch(
      /^--tz: "Mars\/Olympus" is not a time zone/,
    );
    expect(refusal(() => parseAt('2027-02-01 09:00', { zone: 'UTC', now: NOW }))).toContain('more than 30 days');
  });
});

describe('printing times', () => {
  it('one format: 2026-12-02 09:00 Europe/Berlin (24 h, the zone named, seconds only when not :00)', () => {
    expect(formatWhen(Date.UTC(2026, 11, 2, 8, 0) / 1000, 'Europe/Berlin')).toBe('2026-12-02 09:00 Europe/Berlin');
    expect(formatWhen(Date.UTC(2026, 11, 2, 20, 5) / 1000, 'America/New_York')).toBe(
      '2026-12-02 15:05 America/New_York',
    );
    // The second it falls in (a reminder fires in that second), never rounded up to the next minute.
    expect(formatWhen(Date.UTC(2026, 10, 28, 8, 29, 59, 600) / 1000, 'UTC')).toBe('2026-11-28 08:29:59 UTC');
    expect(formatWhen(Date.UTC(2026, 10, 28, 8, 30, 0, 400) / 1000, 'UTC')).toBe('2026-11-28 08:30 UTC');
    expect(formatWhen(Date.UTC(2026, 10, 28, 0, 0) / 1000, 'UTC')).toBe('2026-11-28 00:00 UTC');
    expect(resolveZone('utc')).toBe('UTC');
  });

  it('relative times read as words', () => {
    expect(formatRelative(40)).toBe('in 40 s');
    expect(formatRelative(600)).toBe('in 10 min');
    expect(formatRelative(3900)).toBe('in 1 h 5 min');
    expect(formatRelative(2 * 86400 + 3 * 3600)).toBe('in 2 d 3 h');
    expect(formatRelative(-120)).toBe('2 min ago');
  });
});
