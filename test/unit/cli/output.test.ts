// What a person at a terminal sees (the TTY rendering of status, schedule --list and the one-line
// answers), snapshotted on fixed input: times carry their zone, long text is cut to the width,
// nothing is raw JSON or an epoch number.
import { describe, expect, it } from 'vitest';
import type { ScheduleListPage } from '../../../main/core/notify/scheduler.ts';
import type { HealthReport } from '../../../main/core/sidecar-client/client.ts';
import { handedLine, notifyLine, scheduledLine, scheduleTable, statusSummary } from '../../../main/cli/output.ts';

const NOW = Date.UTC(2026, 10, 27, 15, 45) / 1000;

const entry = (id: string, text: string, inSeconds: number, extra: object = {}) => ({
  id,
  text,
  mode: 'auto' as const,
  delay_seconds: inSeconds,
  fire_at_epoch: NOW + inSeconds,
  created_at: NOW,
  state: 'scheduled' as const,
  attempts: 0,
  ...extra,
});

const page: ScheduleListPage = {
  entries: [
    entry('n-1a2b3c', 'Stretch', 600, { mode: 'dm' }),
    entry('n-4d5e6f', 'Stand-up in five minutes: bring the numbers for the quarterly review and the hiring plan', 17 * 3600 + 45 * 60, {
      repeat: { rule: 'weekdays', cron: '55 9 * * 1-5', timezone: 'Europe/Berlin', series: 'n-4d5e6f' },
    }),
  ],
  next_cursor: null,
  total: 2,
  pending: 2,
  max_pending: 10000,
};

const health: HealthReport = {
  status: 'ok',
  reasons: [],
  version: '0.3.5',
  uptime_s: 7500,
  bridge: { state: 'connected', call_id: '2026-11-27T15-00-00-000Z-a1b2c3', since: NOW - 300 },
  connections: { discord: 'connected', model: 'connected' },
  live_model: { provider: 'gemini', model: 'gemini-3.8-live', inCall: true },
  talk: { muted: true, ptt: { enabled: false, held: false }, to_model: false },
};

describe('TTY output', () => {
  it('status: one screen', () => {
    expect(statusSummary(health, page, 'UTC', NOW)).toMatchInlineSnapshot(`
      "Live Voice Bridge 0.3.5: ok (running for 2 h 5 min)
        Call:         connected for 5 min (call 2026-11-27T15-00-00-000Z-a1b2c3)
        Model:        gemini (gemini-3.8-live)
        Connections:  Discord connected, model connected
        Microphone:   MUTED: no voice reaches the model
        Reminders:    2 pending; next Fri 27 Nov 15:55 UTC (in 10 min): Stretch"
    `);
    const stopped = { ...health, status: 'degraded' as const, reasons: ['the Discord bot is not logged in'], bridge: { state: 'stopped' as const, reason: 'stopped from the tray' } };
    expect(statusSummary(stopped, null, 'UTC', NOW)).toContain('Call:         none (stopped: stopped from the tray)');
    expect(statusSummary(stopped, null, 'UTC', NOW)).toContain('  Needs attention:\n    - the Discord bot is not logged in');
  });

  it('schedule --list: a table, zones named, the text cut to the width', () => {
    expect(scheduleTable(page, 'UTC', NOW, 120)).toMatchInlineSnapshot(`
      "ID        WHEN                            IN              REPEATS                   MODE  STATE      TEXT
      n-1a2b3c  Fri 27 Nov 15:55 UTC            in 10 min       once                      dm    scheduled  Stretch
      n-4d5e6f  Sat 28 Nov 10:30 Europe/Berlin  in 17 h 45 min  weekdays (Europe/Berlin)  auto  scheduled  Stand-up in five m…"
    `);
    expect(scheduleTable({ ...page, entries: [] }, 'UTC', NOW)).toBe('No reminders scheduled.');
    expect(scheduleTable({ ...page, next_cursor: 'c1' }, 'UTC', NOW)).toContain('… more: schedule --list --cursor c1');
  });

  it('one-line answers say what happens next', () => {
    expect(scheduledLine({ scheduled: 'n-1a2b3c', fire_at_epoch: NOW + 600, entry: page.entries[0]! }, 'UTC', NOW)).toBe(
      'Scheduled n-1a2b3c: Fri 27 Nov 15:55 UTC (in 10 min), by dm.\nCancel with: live-voice-bridge schedule --cancel n-1a2b3c',
    );
    expect(handedLine({ status: 'queued', chars: 23, as: 'message', id: 'say_000000000001' })).toBe('Sent to the model (23 characters): it answers at the next pause in the conversation.');
    expect(handedLine({ status: 'queued', chars: 18, as: 'announce', id: 'say_000000000002' })).toContain('the model says it, word for word');
    expect(
      notifyLine({ id: 'n-x', status: 'ok', channel: 'dm', results: { voice: { status: 'skipped', detail: 'no live call', queued: false }, dm: { status: 'ok', message_id: '1' } }, notified_at: NOW }),
    ).toBe('Delivered by dm.\nvoice: skipped (no live call); dm: ok');
  });
});
