// /notify and /schedule on the real sidecar (security layer, JSON errors) with the real notifier
// and scheduler; Discord text delivery is an in-memory port so each path is deterministic.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { NotifyResult } from '../../../main/core/api-types.ts';
import type { DiscordTextPort } from '../../../main/core/ports.ts';
import { createNotifier } from '../../../main/core/notify/dispatcher.ts';
import { scheduleFilePath } from '../../../main/core/notify/schedule-store.ts';
import { createScheduler, type Scheduler } from '../../../main/core/notify/scheduler.ts';
import { registerNotifyRoutes } from '../../../main/core/sidecar/routes/notify.ts';
import { createSidecar, type Sidecar } from '../../../main/core/sidecar/server.ts';

const logger = pino({ level: 'silent' });
const TOKEN = 'route-test-token-'.padEnd(40, 'z');
const OWNER = '200000000000000001';
let sidecar: Sidecar;
let scheduler: Scheduler;
let home: string;
let voiceLive = false;
const spoken: string[] = [];
const dms: string[] = [];

const port: DiscordTextPort = {
  async sendDirectMessage(_user, text) {
    dms.push(text);
    return { messageId: String(dms.length), channelId: 'dm' };
  },
  async postToChannel() {
    throw new Error('Missing Access');
  },
};

beforeAll(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'lvb-notify-routes-'));
  const notifier = createNotifier({
    voice: () => (voiceLive ? { speak: async (t) => (spoken.push(t), { delivered: true }) } : null),
    discordText: port,
    ownerId: OWNER,
    textChannelId: '200000000000000002',
    sfxEnabled: false,
    logger,
  });
  scheduler = createScheduler({ file: scheduleFilePath(home), notifier, logger, maxPending: 5 });
  sidecar = createSidecar({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    logger,
    routes: [(app) => registerNotifyRoutes(app, { notifier, scheduler })],
  });
  await sidecar.listen();
});
afterAll(async () => {
  await sidecar.close();
  await rm(home, { recursive: true, force: true });
});
beforeEach(() => {
  voiceLive = false;
  spoken.length = 0;
  dms.length = 0;
});

async function call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(sidecar.url + url, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('/notify', () => {
  it('POST JSON: voice with no live call falls through to dm', async () => {
    const { status, json } = await call('POST', '/notify', { text: 'Deploy done', mode: 'voice', title: 'CI' });
    expect(status).toBe(200);
    const result = json as unknown as NotifyResult;
    expect(result.status).toBe('ok');
    expect(result.channel).toBe('dm');
    expect(result.results.voice).toEqual({ status: 'skipped', detail: 'no live call', queued: false });
    expect(typeof result.notified_at).toBe('number');
    expect(dms).toEqual(['**CI**\nDeploy done']);
  });

  it('GET query gives the same result shape; voice is used when a call is live', async () => {
    voiceLive = true;
    const { status, json } = await call(
      'GET',
      `/notify?text=${encodeURIComponent('Lunch & coffee?')}&mode=voice&title=Hi`,
    );
    expect(status).toBe(200);
    expect(json).toMatchObject({ status: 'ok', channel: 'voice', results: { voice: { status: 'ok' } } });
    expect(spoken).toEqual(['[Hi] Lunch & coffee?']);
  });

  it('a delivery that reached nobody is a 200 with status error and the reasons', async () => {
    const { status, json } = await call('POST', '/notify', { text: 'x', mode: 'channel' });
    expect(status).toBe(200);
    expect(json).toEqual({
      id: expect.stringMatching(/^n-/),
      status: 'error',
      results: { channel: { status: 'error', detail: 'Missing Access' } },
      notified_at: expect.any(Number),
    });
  });

  it('bad input → 400 with a code', async () => {
    const cases: [string, string, unknown, string][] = [
      ['POST', '/notify', { mode: 'dm' }, 'empty_text'],
      ['POST', '/notify', { text: '  ' }, 'empty_text'],
      ['POST', '/notify', { text: 'x', mode: 'carrier-pigeon' }, 'unknown_mode'],
      ['POST', '/notify', [1, 2], 'invalid_request'],
      ['POST', '/notify', '{"text":', 'invalid_json'],
      ['GET', '/notify?mode=dm', undefined, 'empty_text'],
      ['GET', '/notify?text=x&mode=fax', undefined, 'unknown_mode'],
      ['GET', '/notify?text=x&urgent=maybe', undefined, 'bad_urgent'],
    ];
    for (const [method, url, body, code] of cases) {
      const { status, json } = await call(method, url, body);
      expect({ url, body: typeof body, status, code: (json.error as { code: string } | undefined)?.code }).toEqual({
        url,
        body: typeof body,
        status: 400,
        code,
      });
    }
    expect(dms).toEqual([]);
    const long = await call('POST', '/notify', { text: 'x'.repeat(9000) });
    expect([long.status, (long.json.error as { code: string }).code]).toEqual([413, 'text_too_long']);
  });

  it('needs the bearer token', async () => {
    const { status } = await call('POST', '/notify', { text: 'x' }, { authorization: 'Bearer wrong' });
    expect(status).toBe(401);
  });
});

describe('/schedule', () => {
  it('POST schedules, GET lists, DELETE cancels, unknown id is 404, second cancel 409', async () => {
    const created = await call('POST', '/schedule', {
      text: 'Stand up',
      delay_seconds: 600,
      mode: 'dm',
      title: 'Reminder',
    });
    expect(created.status).toBe(201);
    const id = created.json.scheduled as string;
    expect(id).toMatch(/^n-/);
    expect(created.json.fire_at_epoch).toBeGreaterThan(Date.now() / 1000 + 590);

    const listed = await call('GET', '/schedule');
    expect(listed.status).toBe(200);
    expect((listed.json.entries as { id: string; state: string }[]).find((e) => e.id === id)).toMatchObject({
      state: 'scheduled',
      text: 'Stand up',
    });

    const cancelled = await call('DELETE', `/schedule/${id}`);
    expect(cancelled).toMatchObject({ status: 200, json: { cancelled: id, entry: { state: 'cancelled' } } });
    const again = await call('DELETE', `/schedule/${id}`);
    expect(again).toEqual({
      status: 409,
      json: { error: { code: 'not_cancellable', message: `notification ${id} is already cancelled` } },
    });
    const missing = await call('DELETE', '/schedule/n-doesnotexist');
    expect(missing).toEqual({
      status: 404,
      json: { error: { code: 'unknown_schedule_id', message: 'no scheduled notification with id "n-doesnotexist"' } },
    });
  });

  it('pages GET /schedule (?limit&cursor&state) and refuses a sixth pending entry with 429 and the cap', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 10 && ids.length < 6; i++) {
      const res = await call('POST', '/schedule', { text: `page ${i}`, delay_seconds: 900 + i, mode: 'dm' });
      if (res.status !== 201) {
        expect(res).toEqual({
          status: 429,
          json: { error: { code: 'schedule_full', message: expect.stringContaining('5 pending entries') } },
        });
        break;
      }
      ids.push(res.json.scheduled as string);
    }
    expect(ids).toHaveLength(5);
    const first = await call('GET', '/schedule?limit=2&state=scheduled');
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ pending: 5, max_pending: 5 });
    const seen = (first.json.entries as { id: string }[]).map((e) => e.id);
    let cursor = first.json.next_cursor as string | null;
    while (cursor) {
      const next = await call('GET', `/schedule?limit=2&state=scheduled&cursor=${encodeURIComponent(cursor)}`);
      seen.push(...(next.json.entries as { id: string }[]).map((e) => e.id));
      cursor = next.json.next_cursor as string | null;
    }
    expect(seen).toEqual(ids);
    for (const [query, code] of [
      ['limit=0', 'bad_limit'],
      ['limit=5000', 'bad_limit'],
      ['limit=x', 'bad_limit'],
      ['state=lost', 'bad_state'],
      ['cursor=zzz', 'bad_cursor'],
    ]) {
      const res = await call('GET', `/schedule?${query}`);
      expect([res.status, (res.json.error as { code: string }).code], query).toEqual([400, code]);
    }
    for (const id of ids) await call('DELETE', `/schedule/${id}`);
  });

  it('a repeating reminder: POST with a rule, GET shows the rule and its next occurrence, DELETE stops the series', async () => {
    const created = await call('POST', '/schedule', {
      text: 'Stand-up',
      repeat: 'weekdays',
      at: '09:55',
      timezone: 'Europe/Berlin',
      mode: 'dm',
    });
    expect(created.status).toBe(201);
    const id = created.json.scheduled as string;
    const entry = created.json.entry as { fire_at_epoch: number; repeat: unknown };
    expect(entry.repeat).toEqual({ rule: 'weekdays', cron: '55 9 * * 1-5', timezone: 'Europe/Berlin', series: id });
    // The first occurrence is the rule's next time: a weekday, 09:55 on Berlin's clock.
    const wall = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Berlin',
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).format(new Date(entry.fire_at_epoch * 1000));
    expect(wall).toMatch(/^(Mon|Tue|Wed|Thu|Fri) 09:55$/);
    const listed = await call('GET', '/schedule?state=scheduled');
    expect(
      (listed.json.entries as { id: string; repeat?: { rule: string } }[]).find((e) => e.id === id)?.repeat?.rule,
    ).toBe('weekdays');
    const cancelled = await call('DELETE', `/schedule/${id}`);
    expect(cancelled).toMatchObject({ status: 200, json: { entry: { state: 'cancelled', repeat: { series: id } } } });
  });

  it('bad schedule input → 400 with a code', async () => {
    const cases: [unknown, string][] = [
      [{ delay_seconds: 5 }, 'empty_text'],
      [{ text: 'x', delay_seconds: -5 }, 'bad_delay'],
      [{ text: 'x', delay_seconds: 1e12 }, 'bad_delay'],
      [{ text: 'x', delay_seconds: 'soon' }, 'bad_delay'],
      [{ text: 'x', delay_seconds: 5, mode: 'smoke-signal' }, 'unknown_mode'],
      [{ text: 'x', repeat: 'fortnightly-ish' }, 'bad_repeat'],
      [{ text: 'x', repeat: 'daily', at: '25:00' }, 'bad_time'],
      [{ text: 'x', repeat: 'weekdays', at: '09:00', timezone: 'Nowhere/Land' }, 'bad_timezone'],
      [{ text: 'x', repeat: 'daily' }, 'missing_time'],
    ];
    for (const [body, code] of cases) {
      const { status, json } = await call('POST', '/schedule', body);
      expect([status, (json.error as { code: string }).code]).toEqual([400, code]);
    }
  });
});
