// POST /tools/local_delegate_execute with a delegate command that cannot start (not installed, a
// typo in DISCORD_VOICE_LIVE_DELEGATE_COMMAND, a missing working folder) is refused at once with
// 503 delegate_unavailable: never a 200 "started" for a task that never ran.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NotifyRequest, NotifyResult } from '../../main/core/api-types.ts';
import {
  createDelegateWatcher,
  type DelegateWatcher,
  type DelegateWatcherOptions,
} from '../../main/core/notify/delegate.ts';
import { scheduleFilePath } from '../../main/core/notify/schedule-store.ts';
import { createScheduler, type Scheduler } from '../../main/core/notify/scheduler.ts';
import { registerNotifyTools } from '../../main/core/notify/tools.ts';
import { registerToolRoutes } from '../../main/core/sidecar/routes/tools.ts';
import { createSidecar, type Sidecar } from '../../main/core/sidecar/server.ts';
import { ToolRegistry } from '../../main/core/tools/registry.ts';
import { errorCode, rawRequest } from '../helpers/http.ts';

const TOKEN = 'delegate-unavailable-token-'.padEnd(40, 'u');
const logger = pino({ level: 'silent' });
let home: string;
let sidecar: Sidecar | undefined;
let scheduler: Scheduler | undefined;
let delegates: DelegateWatcher | undefined;
let delivered: NotifyRequest[];

const notifier = {
  async deliver(req: NotifyRequest): Promise<NotifyResult> {
    delivered.push(req);
    return { id: 'n-test', status: 'ok', channel: 'dm', results: { dm: { status: 'ok' } }, notified_at: 1 };
  },
};

beforeEach(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'lvb-delegate-unavailable-'));
  delivered = [];
});
afterEach(async () => {
  await delegates?.close();
  await sidecar?.close();
  await scheduler?.stop();
  sidecar = undefined;
  scheduler = undefined;
  delegates = undefined;
  await rm(home, { recursive: true, force: true });
});

async function serve(over: Partial<DelegateWatcherOptions>): Promise<(body: unknown) => ReturnType<typeof rawRequest>> {
  scheduler = createScheduler({ file: scheduleFilePath(home), notifier, logger });
  const registry = new ToolRegistry();
  delegates = createDelegateWatcher({
    command: [process.execPath, '-e', 'setTimeout(() => {}, 100)'],
    cwd: home,
    logDir: path.join(home, 'delegates'),
    notifier,
    logger,
    redact: (t) => t,
    ...over,
  });
  registerNotifyTools(registry, { notifier, scheduler, delegates, canDelegate: () => true });
  sidecar = createSidecar({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    logger,
    routes: [(app) => registerToolRoutes(app, { registry })],
  });
  await sidecar.listen();
  const port = Number(new URL(sidecar.url).port);
  return (body) =>
    rawRequest({
      port,
      method: 'POST',
      path: '/tools/local_delegate_execute',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
}

describe('POST /tools/local_delegate_execute: a command that cannot start', () => {
  it('a command that does not exist → 503 delegate_unavailable, no session left running, nobody notified', async () => {
    const call = await serve({ command: [path.join(home, 'no-such-agent'), 'run', '{prompt}'] });
    const res = await call({ prompt: 'fix the build' });
    expect([res.status, errorCode(res)]).toEqual([503, 'delegate_unavailable']);
    expect(res.json).not.toHaveProperty('started');
    expect(res.json).not.toHaveProperty('session');
    expect((res.json as { error: { message: string } }).error.message).toContain('nothing was started');
    const listed = await call({ list: true });
    expect(listed.status).toBe(200);
    expect(listed.json).toEqual({ sessions: [] });
    await new Promise((r) => setTimeout(r, 50));
    expect(delivered).toEqual([]);
  });

  it('a working folder that does not exist → 503 delegate_unavailable', async () => {
    const call = await serve({ cwd: path.join(home, 'no-such-folder') });
    const res = await call({ prompt: 'fix the build' });
    expect([res.status, errorCode(res)]).toEqual([503, 'delegate_unavailable']);
    expect((await call({ list: true })).json).toEqual({ sessions: [] });
  });

  it('a body nested tens of thousands of levels deep is a 400, never a 500 (and starts nothing)', async () => {
    const call = await serve({});
    const port = Number(new URL(sidecar!.url).port);
    const raw = (body: string) =>
      rawRequest({
        port,
        method: 'POST',
        path: '/tools/local_delegate_execute',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body,
      });
    const deepPrompt = await raw(`{"prompt":${'['.repeat(30_000)}${']'.repeat(30_000)}}`);
    expect([deepPrompt.status, errorCode(deepPrompt)]).toEqual([400, 'invalid_args']);
    const deepWhole = await raw(`${'['.repeat(32_000)}${']'.repeat(32_000)}`);
    expect(deepWhole.status).toBe(400);
    expect((await call({ list: true })).json).toEqual({ sessions: [] });
  });

  it('a command that exists still answers 200 started, with the running pid', async () => {
    const call = await serve({});
    const res = await call({ prompt: 'fix the build', label: 'build' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      started: expect.stringMatching(/^d-/),
      session: { state: 'running', label: 'build', pid: expect.any(Number) },
    });
  });
});
