// What a person at a terminal sees (the TTY rendering of status, schedule --list and the one-line
// answers), snapshotted on fixed input: times carry their zone, long text is cut to the width,
// nothing is raw JSON or an epoch number.
import { describe, expect, it } from 'vitest';
import type { ScheduleListPage } from '../../../main/core/notify/scheduler.ts';
import type { HealthReport } from '../../../main/core/sidecar-client/client.ts';
import {
  handedLine,
  healthSummary,
  notifyLine,
  scheduledLine,
  scheduleTable,
  statusSummary,
} from '../../../main/cli/output.ts';

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
    entry(
      'n-4d5e6f',
      'Stand-up in five minutes: bring the numbers for the quarterly review and the hiring plan',
      17 * 3600 + 45 * 60,
      {
        repeat: { rule: 'weekdays', cron: '55 9 * * 1-5', timezone: 'Europe/Berlin', series: 'n-4d5e6f' },
      },
    ),
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
  discord_bot: { configured: true, logged_in: true },
  live_model: { provider: 'gemini', model: 'gemini-3.8-live', inCall: true },
  talk: { muted: true, ptt: { enabled: false, held: false }, to_model: false },
};

describe('TTY output', () => {
  it('status: one screen', () => {
    expect(statusSummary(health, page, 'UTC', NOW)).toMatchInlineSnapshot(`
      "Live Voice Bridge 0.3.5: ok (running for 2 h 5 min)
        Call:        connected for 5 min (call 2026-11-27T15-00-00-000Z-a1b2c3)
        Discord:     bot logged in (gateway connected); voice connected
        Model:       gemini (gemini-3.8-live), connected
        Microphone:  MUTED: no voice reaches the model
        Reminders:   2 pending; next 2026-11-27 15:55 UTC (in 10 min): Stretch"
    `);
    const stopped = {
      ...health,
      status: 'degraded' as const,
      reasons: ['the Discord bot is not logged in'],
      bridge: { state: 'stopped' as const, reason: 'stopped from the tray' },
    };
    expect(statusSummary(stopped, null, 'UTC', NOW)).toContain('Call:        none (stopped: stopped from the tray)');
    expect(statusSummary(stopped, null, 'UTC', NOW)).toContain(
      '  Needs attention:\n    - the Discord bot is not logged in',
    );
  });

  it('status after Leave: no call, the bot still logged in, the microphone line says there is no call', () => {
    const left: HealthReport = {
      ...health,
      talk: { muted: false, ptt: { enabled: false, held: false }, to_model: true },
      bridge: { state: 'stopped', reason: 'stopped from the command line', since: NOW - 5 },
      connections: { discord: 'disconnected', model: 'disconnected' },
      live_model: { provider: 'gemini', model: 'gemini-3.8-live', inCall: false },
    };
    const text = statusSummary(left, null, 'UTC', NOW);
    expect(text).toContain('Call:        none (stopped: stopped from the command line)');
    expect(text).toContain('Discord:     bot logged in (gateway connected); no voice call');
    expect(text).toContain('Model:       gemini (gemini-3.8-live), connects when a call starts');
    expect(text).toContain('Microphone:  no call, nothing is heard (open for the next call)');
    expect(text).not.toMatch(/the model hears the call|Discord disconnected/);
    expect(statusSummary({ ...left, talk: { ...left.talk!, muted: true } }, null, 'UTC', NOW)).toContain(
      'Microphone:  no call, nothing is heard (muted: a call would start muted)',
    );
    expect(statusSummary({ ...left, discord_bot: { configured: true, logged_in: false } }, null, 'UTC', NOW)).toContain(
      'Discord:     bot not logged in yet (retrying); no voice call',
    );
  });

  it('a parked call is a call: the microphone as in a call, the model parked', () => {
    const parked = statusSummary({ ...health, bridge: { ...health.bridge, state: 'parked' } }, null, 'UTC', NOW);
    expect(parked).toContain('Call:        parked for 5 min');
    expect(parked).toContain('Model:       gemini (gemini-3.8-live), parked (no session until someone speaks)');
    expect(parked).toContain('Microphone:  MUTED: no voice reaches the model');
  });

  it('health on a terminal: a short summary, not the JSON', () => {
    const full = {
      ...health,
      pid: 1234,
      node: 'v22.23.3',
      audio: {
        opus: {
          impl: 'wasm',
          library: 'opusscript',
          reason: 'the native @discordjs/opus addon failed to load: wrong ABI',
        },
      },
      native: { sharp: { available: true }, davey: { available: false } },
      memory: { rss_mb: 120, heap_used_mb: 30 },
      metrics: { frames_in: 1500, frames_out: 1400, dropped_frames: 2, reconnects: 1 },
      reasons: ['Opus WASM fallback: the native @discordjs/opus addon failed to load: wrong ABI'],
    };
    const text = healthSummary(full, NOW);
    expect(text.split('\n').length).toBeLessThan(20);
    expect(text).not.toContain('{');
    expect(text).toContain('Opus:          wasm: the native @discordjs/opus addon failed to load: wrong ABI');
    expect(text).toContain('Native:        sharp loaded, davey missing');
    expect(text).toContain('Process:       pid 1234, Node v22.23.3, 120 MB resident, 30 MB heap');
    expect(text).toContain('Audio frames:  1500 in, 1400 out, 2 dropped; 1 reconnects');
    expect(text).toContain('The whole report: live-voice-bridge health --json');
  });

  it('schedule --list: a table, zones named, the text cut to the width', () => {
    expect(scheduleTable(page, 'UTC', NOW, 120)).toMatchInlineSnapshot(`
      "ID        WHEN                            IN              REPEATS                   MODE  STATE      TEXT
      n-1a2b3c  2026-11-27 15:55 UTC            in 10 min       once                      dm    scheduled  Stretch
      n-4d5e6f  2026-11-28 10:30 Europe/Berlin  in 17 h 45 min  weekdays (Europe/Berlin)  auto  scheduled  Stand-up in five m…"
    `);
    expect(scheduleTable({ ...page, entries: [] }, 'UTC', NOW)).toBe('No reminders scheduled.');
    expect(scheduleTable({ ...page, next_cursor: 'c1' }, 'UTC', NOW)).toContain('… more: schedule --list --cursor c1');
  });

  it('one-line answers say what happens next', () => {
    expect(
      scheduledLine({ scheduled: 'n-1a2b3c', fire_at_epoch: NOW + 600, entry: page.entries[0]! }, 'UTC', NOW),
    ).toBe(
      'Scheduled n-1a2b3c: 2026-11-27 15:55 UTC (in 10 min), by dm.\nCancel with: live-voice-bridge schedule --cancel n-1a2b3c',
    );
    expect(handedLine({ status: 'queued', chars: 23, as: 'message', id: 'say_000000000001' })).toBe(
      'Sent to the model (23 characters): it answers at the next pause in the conversation.',
    );
    expect(handedLine({ status: 'queued', chars: 18, as: 'announce', id: 'say_000000000002' })).toContain(
      'the model says it, word for word',
    );
    expect(
      notifyLine({
        id: 'n-x',
        status: 'ok',
        channel: 'dm',
        results: {
          voice: { status: 'skipped', detail: 'no live call', queued: false },
          dm: { status: 'ok', message_id: '1' },
        },
        notified_at: NOW,
      }),
    ).toBe('Delivered by dm.\nvoice: skipped (no live call); dm: ok');
  });
});
