// POST /notify and POST /schedule: unknown fields are refused (never silently dropped), and an
// optional Idempotency-Key makes a retry or a concurrent duplicate return the first answer.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DiscordTextPort } from '../../main/core/ports.ts';
import { createNotifier } from '../../main/core/notify/dispatcher.ts';
import { scheduleFilePath } from '../../main/core/notify/schedule-store.ts';
import { readScheduleRows } from '../helpers/schedule-db.ts';
import { createScheduler, type Scheduler } from '../../main/core/notify/scheduler.ts';
import { registerNotifyTools } from '../../main/core/notify/tools.ts';
import { registerNotifyRoutes } from '../../main/core/sidecar/routes/notify.ts';
import { createSidecar, type Sidecar } from '../../main/core/sidecar/server.ts';
import { ToolRegistry } from '../../main/core/tools/registry.ts';

const logger = pino({ level: 'silent' });
const TOKEN = 'guard-test-token-'.padEnd(40, 'g');
let home: string;
let sidecar: Sidecar;
let scheduler: Scheduler;
let posts: string[];
let notifier: ReturnType<typeof createNotifier>;

const port: DiscordTextPort = {
  async sendDirectMessage(_user, text) {
    posts.push(`dm:${text}`);
    return { messageId: String(posts.length), channelId: 'dm' };
  },
  async postToChannel(_channel, text) {
    await new Promise((r) => setTimeout(r, 20)); // slow enough for concurrent duplicates to overlap
    posts.push(`channel:${text}`);
    return { messageId: String(posts.length), channelId: 'c' };
  },
};

async function start(): Promise<void> {
  scheduler = createScheduler({ file: scheduleFilePath(home), notifier, logger });
  sidecar = createSidecar({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    logger,
    routes: [(app) => registerNotifyRoutes(app, { notifier, scheduler })],
  });
  await sidecar.listen();
}
async function stop(): Promise<void> {
  await sidecar.close();
  await scheduler.stop();
}

beforeEach(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'lvb-notify-guards-'));
  posts = [];
  notifier = createNotifier({
    voice: () => null,
    discordText: port,
    ownerId: '200000000000000001',
    textChannelId: '200000000000000002',
    sfxEnabled: false,
    logger,
  });
  await start();
});
afterEach(async () => {
  await stop();
  await rm(home, { recursive: true, force: true });
});

/** The fields these tests read from an answer. */
interface Answer {
  error: { code: string; message: string };
  status: string;
  scheduled: string;
  entries: { id: string; text: string }[];
  entry: { repeat?: unknown };
}

async function call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(sidecar.url + url, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Answer };
}

const scheduledEntries = async () => (await call('GET', '/schedule')).json.entries as { id: string; text: string }[];

describe('unknown fields are refused with 400 unknown_field', () => {
  it('POST /notify with delay_seconds (a /schedule field) is refused and nothing is delivered now', async () => {
    const { status, json } = await call('POST', '/notify', {
      text: 'meant for later',
      mode: 'channel',
      delay_seconds: 3600,
    });
    expect(status).toBe(400);
    expect(json.error.code).toBe('unknown_field');
    expect(json.error.message).toContain('"delay_seconds"');
    expect(json.error.message).toContain('/schedule');
    expect(posts).toEqual([]);
  });

  it('POST /schedule with urgent, tz and foo names every unknown field and creates nothing', async () => {
    const { status, json } = await call('POST', '/schedule', {
      text: 'x',
      delay_seconds: 60,
      urgent: true,
      tz: 'Europe/Berlin',
      foo: 1,
    });
    expect(status).toBe(400);
    expect(json.error.code).toBe('unknown_field');
    for (const f of ['"urgent"', '"tz"', '"foo"']) expect(json.error.message).toContain(f);
    expect(json.error.message).toContain('did you mean timezone?');
    expect(await scheduledEntries()).toEqual([]);
  });

  it('every documented field still works, including source as the MCP tools and the CLI send it', async () => {
    const n = await call('POST', '/notify', {
      source: 'mcp',
      text: 'all fields',
      mode: 'dm',
      title: 'T',
      urgent: false,
    });
    expect(n.status).toBe(200);
    expect(n.json.status).toBe('ok');
    const s = await call('POST', '/schedule', {
      source: 'mcp',
      text: 'later',
      delay_seconds: 600,
      mode: 'dm',
      title: 'T',
    });
    expect(s.status).toBe(201);
    const r = await call('POST', '/schedule', {
      source: 'cli',
      text: 'daily',
      repeat: 'daily',
      at: '09:00',
      timezone: 'Europe/Berlin',
      mode: 'auto',
    });
    expect(r.status).toBe(201);
    expect(r.json.entry.repeat).toMatchObject({ timezone: 'Europe/Berlin' });
  });

  it('the live model tools: what they declare still passes; an undeclared argument is refused', async () => {
    const registry = new ToolRegistry();
    registerNotifyTools(registry, { notifier, scheduler });
    const declared = registry.declarations().find((d) => d.name === 'local_notify')!.parameters as {
      properties: Record<string, unknown>;
    };
    expect(Object.keys(declared.properties).sort()).toEqual(['mode', 'source', 'text', 'title', 'urgent']);
    expect(
      await registry.invoke(
        'local_notify',
        { text: 'hi', mode: 'dm', title: 't', source: 's', urgent: true },
        { caller: 'model' },
      ),
    ).toMatchObject({ ok: true });
    expect(
      await registry.invoke(
        'local_notify_schedule',
        { text: 'later', delay_seconds: 60, mode: 'dm', title: 't' },
        { caller: 'model' },
      ),
    ).toMatchObject({ ok: true });
    expect(
      await registry.invoke(
        'local_notify_schedule',
        { text: 'r', repeat: 'weekdays', at: '08:00', timezone: 'UTC' },
        { caller: 'model' },
      ),
    ).toMatchObject({ ok: true });
    expect(
      await registry.invoke('local_notify', { text: 'later please', delay_seconds: 60 }, { caller: 'model' }),
    ).toMatchObject({ ok: false });
    expect(posts).toEqual(['dm:**t**\nhi\n-# from s']);
  });
});

describe('Idempotency-Key on POST /notify', () => {
  it('a retry with the same key gets the first answer and delivers nothing again', async () => {
    const body = { text: 'deploy done', mode: 'dm' };
    const first = await call('POST', '/notify', body, { 'idempotency-key': 'k-notify-1' });
    const again = await call('POST', '/notify', body, { 'idempotency-key': 'k-notify-1' });
    expect(first.status).toBe(200);
    expect(again).toEqual(first);
    expect(posts).toEqual(['dm:**Agent notification**\ndeploy done']);
  });

  it('concurrent identical POSTs with one key deliver once and answer the same', async () => {
    const body = { text: 'only once', mode: 'channel' };
    const answers = await Promise.all(
      [1, 2, 3].map(() => call('POST', '/notify', body, { 'idempotency-key': 'k-concurrent' })),
    );
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(posts.filter((p) => p.includes('only once'))).toHaveLength(1);
  });

  it('the same key with a different body is 409 idempotency_key_reused; no key keeps the old behaviour', async () => {
    await call('POST', '/notify', { text: 'one', mode: 'dm' }, { 'idempotency-key': 'k-reuse' });
    const other = await call('POST', '/notify', { text: 'two', mode: 'dm' }, { 'idempotency-key': 'k-reuse' });
    expect(other.status).toBe(409);
    expect(other.json.error.code).toBe('idempotency_key_reused');
    await call('POST', '/notify', { text: 'three', mode: 'dm' });
    await call('POST', '/notify', { text: 'three', mode: 'dm' });
    expect(posts.filter((p) => p.includes('three'))).toHaveLength(2);
    expect(
      (await call('POST', '/notify', { text: 'x' }, { 'idempotency-key': 'bad key with spaces' })).json.error.code,
    ).toBe('bad_idempotency_key');
  });

  it('an error answer is not remembered: the retry is processed', async () => {
    const bad = await call('POST', '/notify', { text: '', mode: 'dm' }, { 'idempotency-key': 'k-err' });
    expect(bad.status).toBe(400);
    const ok = await call('POST', '/notify', { text: '', mode: 'dm' }, { 'idempotency-key': 'k-err' });
    expect(ok.status).toBe(400);
    const fixed = await call('POST', '/notify', { text: 'fixed', mode: 'dm' }, { 'idempotency-key': 'k-err-2' });
    expect(fixed.status).toBe(200);
  });
});

describe('Idempotency-Key on POST /schedule (durable)', () => {
  it('a retry gets the same 201 body and creates no second entry, even after a restart', async () => {
    const body = { text: 'stand up', delay_seconds: 3600, mode: 'dm' };
    const first = await call('POST', '/schedule', body, { 'idempotency-key': 'k-sched-1' });
    expect(first.status).toBe(201);
    const again = await call('POST', '/schedule', body, { 'idempotency-key': 'k-sched-1' });
    expect(again).toEqual(first);
    expect((await scheduledEntries()).map((e) => e.text)).toEqual(['stand up']);
    // The key is on the entry's row in the database, and is not part of the API view.
    expect(readScheduleRows(scheduleFilePath(home)).map((e) => e.idempotency?.key)).toEqual(['k-sched-1']);
    expect(first.json.entry).not.toHaveProperty('idempotency');

    await stop();
    await start(); // a new process on the same file
    const afterRestart = await call('POST', '/schedule', body, { 'idempotency-key': 'k-sched-1' });
    expect(afterRestart).toEqual(first);
    expect(await scheduledEntries()).toHaveLength(1);
  });

  it('concurrent identical POSTs with one key create one entry', async () => {
    const body = { text: 'once', delay_seconds: 600 };
    const answers = await Promise.all(
      [1, 2, 3, 4].map(() => call('POST', '/schedule', body, { 'idempotency-key': 'k-sched-c' })),
    );
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201]);
    expect(new Set(answers.map((a) => a.json.scheduled)).size).toBe(1);
    expect(await scheduledEntries()).toHaveLength(1);
  });

  it('the same key with a different body is 409 idempotency_key_reused and creates nothing', async () => {
    await call('POST', '/schedule', { text: 'a', delay_seconds: 60 }, { 'idempotency-key': 'k-sched-r' });
    const other = await call('POST', '/schedule', { text: 'b', delay_seconds: 60 }, { 'idempotency-key': 'k-sched-r' });
    expect(other.status).toBe(409);
    expect(other.json.error.code).toBe('idempotency_key_reused');
    expect((await scheduledEntries()).map((e) => e.text)).toEqual(['a']);
  });

  it('a replay answers with the entry as it was created, even after it was cancelled', async () => {
    const body = { text: 'c', delay_seconds: 60 };
    const first = await call('POST', '/schedule', body, { 'idempotency-key': 'k-sched-x' });
    await call('DELETE', `/schedule/${first.json.scheduled}`);
    const again = await call('POST', '/schedule', body, { 'idempotency-key': 'k-sched-x' });
    expect(again).toEqual(first);
  });
});
