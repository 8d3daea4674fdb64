// The dashboard's pure helpers, in Node.
import { describe, expect, it } from 'vitest';
import type { NoteEvent } from '../../../main/core/api-types.ts';
import {
  scheduleTimeFrom,
  describeNotifyResult,
  filterNotes,
  formatMs,
  formatSpan,
  missingConfiguration,
  withTimeout,
  formatCountdown,
  latencyPoint,
  levelPercent,
  mergeNotes,
  niceCeiling,
  notesAsText,
} from '../../../renderer/format.ts';
import { formatMoment } from '../../../renderer/moment-format.ts';

const note = (id: string, ts: number, kind: NoteEvent['kind'], text: string, speaker?: string): NoteEvent => ({
  id,
  ts,
  kind,
  text,
  ...(speaker ? { speaker } : {}),
});

describe('dashboard helpers', () => {
  it('gives up on work that never answers, and passes on work that does', async () => {
    await expect(withTimeout(new Promise<never>(() => undefined), 5, 'the capture did not finish')).rejects.toThrow(
      'the capture did not finish',
    );
    await expect(withTimeout(Promise.resolve('png'), 1000, 'x')).resolves.toBe('png');
  });

  it('writes every moment one way: ISO date, 24-hour time, seconds only when not :00, the IANA zone', () => {
    // 2026-12-02 08:00 UTC is 09:00 in Berlin; 2026-07-01 12:05:09 UTC is 14:05:09 in Berlin (summer time).
    expect(formatMoment(Date.UTC(2026, 11, 2, 8, 0, 0) / 1000, 'Europe/Berlin')).toBe('2026-12-02 09:00 Europe/Berlin');
    expect(formatMoment(Date.UTC(2026, 6, 1, 12, 5, 9) / 1000, 'Europe/Berlin')).toBe(
      '2026-07-01 14:05:09 Europe/Berlin',
    );
    // Midnight is 00:00 (never 24:00), and a fraction of a second counts in the second it falls in.
    expect(formatMoment(Date.UTC(2026, 11, 31, 23, 0, 0) / 1000 + 0.7, 'Europe/Berlin')).toBe(
      '2027-01-01 00:00 Europe/Berlin',
    );
    expect(formatMoment(Date.UTC(2026, 11, 2, 21, 30, 0) / 1000, 'America/New_York')).toBe(
      '2026-12-02 16:30 America/New_York',
    );
  });

  it('labels latency axes honestly', () => {
    expect([1, 0.5, 0].map(formatMs)).toEqual(['1', '0.5', '0']);
    expect([0.5, 0.25].map(formatMs)).toEqual(['0.5', '0.25']);
    expect([200, 100, 12.4].map(formatMs)).toEqual(['200', '100', '12']);
    expect([45, 150, 4300].map(formatSpan)).toEqual(['45 s', '3 min', '1 h 12 min']);
  });

  it('never shows a partial delivery as success', () => {
    const partial = describeNotifyResult({
      id: 'n1',
      status: 'partial',
      channels: ['dm'],
      results: { dm: { status: 'ok' }, voice: { status: 'error', detail: 'no live call' } },
      notified_at: 1,
    });
    expect(partial.kind).toBe('warn');
    expect(partial.text).toMatch(/^Partly delivered\. dm: ok, voice: error \(no live call\)$/);
    expect(
      describeNotifyResult({ id: 'n2', status: 'ok', channel: 'dm', results: { dm: { status: 'ok' } }, notified_at: 1 })
        .kind,
    ).toBe('ok');
    expect(describeNotifyResult({ id: 'n3', status: 'error', results: {}, notified_at: 1 })).toEqual({
      text: 'Not delivered.',
      kind: 'error',
    });
  });

  it('never shows an outcome that may have been delivered as "Not delivered" (a re-send would deliver it twice)', () => {
    const unknown = describeNotifyResult({
      id: 'n4',
      status: 'unknown',
      results: {
        voice: { status: 'skipped', detail: 'no live call' },
        dm: { status: 'unknown', detail: 'timeout after 15000 ms' },
      },
      notified_at: 1,
    });
    expect(unknown).toEqual({
      text: 'May have been delivered (not re-sent). voice: skipped (no live call), dm: unknown (timeout after 15000 ms)',
      kind: 'warn',
    });
    const partial = describeNotifyResult({
      id: 'n5',
      status: 'partial',
      channels: ['dm'],
      results: { dm: { status: 'ok' }, webhook: { status: 'unknown', detail: 'no answer' } },
      notified_at: 1,
    });
    expect(partial).toEqual({
      text: 'Partly delivered; webhook may also have been delivered (not re-sent). dm: ok, webhook: unknown (no answer)',
      kind: 'warn',
    });
  });

  it('reads what a call still needs from /health reasons', () => {
    expect(
      missingConfiguration({
        reasons: ['not configured: voice calls need DISCORD_BOT_TOKEN, GEMINI_API_KEY', 'Opus WASM fallback: x'],
      }),
    ).toBe('DISCORD_BOT_TOKEN, GEMINI_API_KEY');
    expect(missingConfiguration({ reasons: ['Discord bot not logged in (retrying)'] })).toBeNull();
  });

  it('formats countdowns', () => {
    expect(formatCountdown(0)).toBe('due now');
    expect(formatCountdown(9.2)).toBe('in 10 s');
    expect(formatCountdown(245)).toBe('in 4 m 05 s');
    expect(formatCountdown(3720)).toBe('in 1 h 02 m');
  });

  it('maps levels on a dBFS scale', () => {
    expect(levelPercent(0)).toBe(0);
    expect(levelPercent(1)).toBe(100);
    expect(levelPercent(0.001)).toBe(0);
    expect(levelPercent(0.1)).toBe(67);
  });

  it('filters, merges and copies notes', () => {
    const notes = [
      note('a', 1, 'input_transcript', 'hello there', 'Ana'),
      note('b', 2, 'output_transcript', 'hi Ana'),
      note('c', 3, 'tool_call', 'local_notify'),
    ];
    expect(filterNotes(notes, '', 'transcript').map((n) => n.id)).toEqual(['a', 'b']);
    expect(filterNotes(notes, 'ana', 'all').map((n) => n.id)).toEqual(['a', 'b']);
    expect(filterNotes(notes, '', 'system').map((n) => n.id)).toEqual(['c']);
    expect(mergeNotes(notes.slice(0, 2), [notes[1]!, notes[2]!]).map((n) => n.id)).toEqual(['a', 'b', 'c']);
    expect(mergeNotes(notes, [], 2).map((n) => n.id)).toEqual(['b', 'c']);
    expect(notesAsText([notes[0]!], 'UTC')).toMatch(/^\[\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? UTC\] Ana: hello there$/);
  });

  it('turns the schedule form into what POST /schedule takes: a delay, or the typed moment itself', () => {
    // 12:00:00.460: the fraction is what a rounded delay used to lose (an "at" reminder stored 0.46 s early).
    const now = Date.UTC(2026, 0, 1, 12, 0, 0, 460);
    expect(scheduleTimeFrom({ kind: 'delay', amount: 5, unit: 'minutes' }, now)).toEqual({ delay_seconds: 300 });
    expect(scheduleTimeFrom({ kind: 'delay', amount: 0, unit: 'seconds' }, now)).toHaveProperty('error');
    expect(scheduleTimeFrom({ kind: 'at', local: '' }, now)).toEqual({
      error: 'Type the date and time as 2026-12-02 09:00 (24 h, this page’s zone).',
    });
    expect(scheduleTimeFrom({ kind: 'at', local: '2026-02-30 09:00' }, now)).toHaveProperty('error');
    // Typed the page's way, on the page's clock: sent as that minute's epoch second, not as now + 3600.
    const local = new Date(Date.UTC(2026, 0, 1, 13, 0, 0));
    const typed = `${local.getFullYear()}-${String(local.getMonth() + 1).padStart(2, '0')}-${String(local.getDate()).padStart(2, '0')} ${String(local.getHours()).padStart(2, '0')}:${String(local.getMinutes()).padStart(2, '0')}`;
    expect(scheduleTimeFrom({ kind: 'at', local: typed }, now)).toEqual({
      fire_at_epoch: Date.UTC(2026, 0, 1, 13, 0, 0) / 1000,
    });
    expect(scheduleTimeFrom({ kind: 'at', local: new Date(now - 5000).toISOString() }, now)).toEqual({
      error: 'That time is in the past.',
    });
    expect(scheduleTimeFrom({ kind: 'at', local: '2026-01-01T12:01:30Z' }, now)).toEqual({
      fire_at_epoch: Date.UTC(2026, 0, 1, 12, 1, 30) / 1000,
    });
  });

  it('reads latency summaries from metrics and rounds the axis', () => {
    expect(latencyPoint({ ingress_latency: { count: 3, p50_ms: 12, p95_ms: 30, p99_ms: 31 }, frames: 5 })).toEqual({
      ingressP50: 12,
      ingressP95: 30,
      egressP50: null,
      egressP95: null,
    });
    expect(latencyPoint({ ingress_latency: { count: 0, p50_ms: 0, p95_ms: 0, p99_ms: 0 } })).toEqual({
      ingressP50: null,
      ingressP95: null,
      egressP50: null,
      egressP95: null,
    });
    expect([niceCeiling(0), niceCeiling(7), niceCeiling(12), niceCeiling(180)]).toEqual([10, 10, 20, 200]);
  });
});
