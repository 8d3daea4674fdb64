// POST /notify and POST /schedule with an Idempotency-Key and a body nested tens of thousands of
// levels deep (it fits in the 64 KiB JSON limit): the key's request hash used to recurse through the
// body before it was validated and overflowed the stack (500 internal_error). Such a body is a 400,
// with the key as without it, and nothing is delivered or scheduled.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NotifyRequest, NotifyResult } from '../../main/core/api-types.ts';
import { scheduleFilePath } from '../../main/core/notify/schedule-store.ts';
import { createScheduler, type Scheduler } from '../../main/core/notify/scheduler.ts';
import { parseNotifyRequest } from '../../main/core/notify/validation.ts';
import { registerNotifyRoutes } from '../../main/core/sidecar/routes/notify.ts';
import { JSON_BODY_LIMIT } from '../../main/core/contracts/sidecar-limits.ts';
import { createSidecar, type Sidecar } from '../../main/core/sidecar/server.ts';
import { errorCode, rawRequest } from '../helpers/http.ts';

const TOKEN = 'deep-body-token-'.padEnd(40, 'd');
const logger = pino({ level: 'silent' });
let home: string;
let sidecar: Sidecar;
let scheduler: Scheduler;
let port: number;
let delivered: NotifyRequest[];

const notifier = {
  async deliver(req: unknown): Promise<NotifyResult> {
    // The real dispatcher validates first; so does this stand-in (the route passes the body as is).
    delivered.push(parseNotifyRequest(req));
    return { id: 'n-test', status: 'ok', channel: 'dm', results: { dm: { status: 'ok' } }, notified_at: 1 };
  },
};

beforeEach(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'lvb-notify-deep-'));
  delivered = [];
  scheduler = createScheduler({ file: scheduleFilePath(home), notifier, logger });
  sidecar = createSidecar({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    logger,
    routes: [(app) => registerNotifyRoutes(app, { notifier, scheduler })],
  });
  await sidecar.listen();
  port = Number(new URL(sidecar.url).port);
});
afterEach(async () => {
  await sidecar.close();
  await scheduler.stop();
  await rm(home, { recursive: true, force: true });
});

const post = (url: string, body: string, key?: string) =>
  rawRequest({
    port,
    method: 'POST',
    path: url,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      ...(key ? { 'idempotency-key': key } : {}),
    },
    body,
  });

/** `{ ...fields, <field>: [[[…]]] }` nested `depth` arrays deep, as raw JSON text. */
const deepArray = (depth: number, fields: string, field = 'extra') =>
  `{${fields},"${field}":${'['.repeat(depth)}${']'.repeat(depth)}}`;
/** `{ ...fields, <field>: {"a":{"a":…}} }` nested `depth` objects deep. */
const deepObject = (depth: number, fields: string, field = 'extra') =>
  `{${fields},"${field}":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;

const NOTIFY = '"text":"hi","mode":"dm"';
const SCHEDULE = '"text":"hi","delay_seconds":60';

describe('a deeply nested body is a 400, with or without an Idempotency-Key', () => {
  const bodies: [string, string, string, string][] = [
    ['/notify', 'arrays, unknown field', deepArray(30_000, NOTIFY), 'unknown_field'],
    ['/notify', 'objects, unknown field', deepObject(10_000, NOTIFY), 'unknown_field'],
    ['/notify', 'arrays as the text', deepArray(30_000, '"mode":"dm"', 'text'), 'bad_text'],
    ['/schedule', 'arrays, unknown field', deepArray(30_000, SCHEDULE), 'unknown_field'],
    ['/schedule', 'objects, unknown field', deepObject(10_000, SCHEDULE), 'unknown_field'],
    ['/schedule', 'arrays as the title', deepArray(30_000, SCHEDULE, 'title'), 'bad_title'],
  ];

  it.each(bodies)('POST %s, %s', async (url, _what, body, code) => {
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(JSON_BODY_LIMIT); // parsed, not refused as too large
    const without = await post(url, body);
    expect([without.status, errorCode(without)]).toEqual([400, code]);
    const withKey = await post(url, body, `k-deep-${url.slice(1)}`);
    expect([withKey.status, errorCode(withKey)]).toEqual([400, code]);
    // The key is still free: an error answer is not remembered.
    const fine = await post(url, `{${url === '/notify' ? NOTIFY : SCHEDULE}}`, `k-deep-${url.slice(1)}`);
    expect(fine.status).toBe(url === '/notify' ? 200 : 201);
    expect(delivered.length).toBe(url === '/notify' ? 1 : 0);
    expect((await scheduler.list()).entries).toHaveLength(url === '/schedule' ? 1 : 0);
  });

  it('a deep JSON array as the whole body is a 400 invalid_request, with or without a key', async () => {
    const body = `${'['.repeat(32_000)}${']'.repeat(32_000)}`;
    for (const url of ['/notify', '/schedule']) {
      for (const key of [undefined, 'k-deep-whole']) {
        const res = await post(url, body, key);
        expect([url, key, res.status, errorCode(res)]).toEqual([url, key, 400, 'invalid_request']);
      }
    }
  });

  it('a key reused with a different, valid body is still 409 idempotency_key_reused', async () => {
    expect((await post('/notify', `{${NOTIFY}}`, 'k-deep-reuse')).status).toBe(200);
    const other = await post('/notify', '{"text":"other","mode":"dm"}', 'k-deep-reuse');
    expect([other.status, errorCode(other)]).toEqual([409, 'idempotency_key_reused']);
  });
});
