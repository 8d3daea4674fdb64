// Every client mistake over `POST /tools/<name>` is a 4xx with the same specific code the dedicated
// route gives (never `500 tool_failed`); a fault of ours is a 500 logged once with its cause.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createNotifier } from '../../main/core/notify/dispatcher.ts';
import { createDelegateWatcher } from '../../main/core/notify/delegate.ts';
import { scheduleFilePath } from '../../main/core/notify/schedule-store.ts';
import { createScheduler, type Scheduler } from '../../main/core/notify/scheduler.ts';
import { registerNotifyTools } from '../../main/core/notify/tools.ts';
import { registerToolRoutes } from '../../main/core/sidecar/routes/tools.ts';
import { createSidecar, type Sidecar } from '../../main/core/sidecar/server.ts';
import { defineTool, ToolRegistry } from '../../main/core/tools/registry.ts';
import { errorCode, rawRequest } from '../helpers/http.ts';

const TOKEN = 'tool-errors-token-'.padEnd(40, 'k');
const logLines: string[] = [];
const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) });
let home: string;
let sidecar: Sidecar;
let scheduler: Scheduler;
let registry: ToolRegistry;
let port: number;

beforeAll(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'lvb-tool-errors-'));
  const notifier = createNotifier({ voice: () => null, discordText: null, sfxEnabled: false, logger });
  scheduler = createScheduler({ file: scheduleFilePath(home), notifier, logger });
  await scheduler.start();
  registry = new ToolRegistry();
  const delegates = createDelegateWatcher({
    command: [process.execPath, '-e', 'setTimeout(() => {}, 50)'],
    cwd: home,
    logDir: path.join(home, 'delegates'),
    notifier,
    logger,
    redact: (t) => t,
  });
  registerNotifyTools(registry, { notifier, scheduler, delegates, canDelegate: (ctx) => ctx.caller !== 'model' });
  registry.register(
    defineTool({
      name: 'list_tool',
      description: 'takes a list of ids',
      args: z.object({ ids: z.array(z.string()) }).strict(),
      run: () => 'ok',
    }),
  );
  registry.register(
    defineTool({
      name: 'broken_tool',
      description: 'a bug of ours',
      args: z.object({}),
      run: () => {
        throw new Error('null pointer in our code');
      },
    }),
  );
  sidecar = createSidecar({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    logger,
    routes: [(app) => registerToolRoutes(app, { registry })],
  });
  await sidecar.listen();
  port = Number(new URL(sidecar.url).port);
});
afterAll(async () => {
  await sidecar.close();
  await scheduler.stop();
  await rm(home, { recursive: true, force: true });
});

const tool = (name: string, body: unknown) =>
  rawRequest({
    port,
    method: 'POST',
    path: `/tools/${name}`,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('POST /tools/<name>: client mistakes are 4xx with a specific code', () => {
  it.each([
    ['local_notify_schedule', { text: 'x', delay_seconds: -5 }, 400, 'bad_delay'],
    ['local_notify_schedule', { delay_seconds: 5 }, 400, 'empty_text'],
    ['local_notify_schedule', { list: true, cancel_id: 'n-1' }, 400, 'ambiguous_form'],
    ['local_notify_schedule', { cancel_id: 'n-doesnotexist' }, 404, 'not_found'],
    ['local_notify', { text: '' }, 400, 'invalid_args'],
    ['local_notify', { text: 'x', mode: 'sms' }, 400, 'invalid_args'],
    ['local_delegate_execute', { prompt: '' }, 400, 'empty_prompt'],
    ['local_delegate_execute', { status_id: 'd-nope' }, 404, 'not_found'],
    ['no_such_tool', {}, 404, 'unknown_tool'],
  ])('%s %j → %i %s', async (name, body, status, code) => {
    const res = await tool(name, body);
    expect([res.status, errorCode(res)]).toEqual([status, code]);
  });

  it('invalid_args for a huge wrong body stays a small answer: every issue is not listed', async () => {
    const wrongItems = await tool('list_tool', { ids: Array.from({ length: 20_000 }, (_, i) => i) });
    expect([wrongItems.status, errorCode(wrongItems)]).toEqual([400, 'invalid_args']);
    expect(Buffer.byteLength(wrongItems.text)).toBeLessThan(1024);
    const unknownKeys = await tool(
      'list_tool',
      Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`key${i}`, i])),
    );
    expect([unknownKeys.status, errorCode(unknownKeys)]).toEqual([400, 'invalid_args']);
    expect(Buffer.byteLength(unknownKeys.text)).toBeLessThan(1024);
  });

  it('cancelling twice: the second is 409 conflict, not a 500', async () => {
    const created = await tool('local_notify_schedule', { text: 'stretch', delay_seconds: 600 });
    expect(created.status).toBe(200);
    const id = (created.json as { scheduled: string }).scheduled;
    expect((await tool('local_notify_schedule', { cancel_id: id })).status).toBe(200);
    const again = await tool('local_notify_schedule', { cancel_id: id });
    expect([again.status, errorCode(again)]).toEqual([409, 'conflict']);
  });

  it('a delegate start the caller may not make is 403 forbidden', async () => {
    const outcome = await registry.invoke(
      'local_delegate_execute',
      { prompt: 'rm -rf the world' },
      { caller: 'model' },
    );
    expect(outcome).toMatchObject({ ok: false, error: { code: 'forbidden', status: 403 } });
  });

  it('our own fault is a 500 tool_failed, logged once with its cause, and the cause stays out of the answer', async () => {
    const before = logLines.length;
    const res = await tool('broken_tool', {});
    expect([res.status, errorCode(res)]).toEqual([500, 'tool_failed']);
    expect(JSON.stringify(res.json)).not.toContain('null pointer');
    const logged = logLines.slice(before).filter((l) => l.includes('null pointer in our code'));
    expect(logged).toHaveLength(1);
  });
});
