import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NotifyRequest, NotifyResult } from '../../../main/core/api-types.ts';
import { createDelegateWatcher } from '../../../main/core/notify/delegate.ts';
import { scheduleFilePath } from '../../../main/core/notify/schedule-store.ts';
import { createScheduler } from '../../../main/core/notify/scheduler.ts';
import { registerNotifyTools } from '../../../main/core/notify/tools.ts';
import { ToolRegistry } from '../../../main/core/tools/registry.ts';

const logger = pino({ level: 'silent' });
let home: string;
let delivered: NotifyRequest[];

const notifier = {
  async deliver(req: NotifyRequest): Promise<NotifyResult> {
    delivered.push(req);
    return { id: 'n-test', status: 'ok', channel: 'voice', results: { voice: { status: 'ok' } }, notified_at: 1 };
  },
};

beforeEach(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'lvb-tools-'));
  delivered = [];
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

function registry(withDelegates = false) {
  const r = new ToolRegistry();
  const scheduler = createScheduler({
    file: scheduleFilePath(home),
    notifier,
    logger,
    clock: { now: () => 1_800_000_000_000 },
  });
  const delegates = withDelegates
    ? createDelegateWatcher({
        command: [process.execPath, '-e', 'console.log("ok")'],
        cwd: home,
        logDir: path.join(home, 'voice-users', 'delegates'),
        notifier,
        logger,
        redact: (t) => t,
      })
    : undefined;
  registerNotifyTools(r, { notifier, scheduler, delegates, canDelegate: (ctx) => ctx.caller === 'owner' });
  return { r, scheduler };
}

describe('local_notify', () => {
  it('declares a JSON schema the model can use and delivers with the caller as source', async () => {
    const { r } = registry();
    const decl = r.declarations().find((d) => d.name === 'local_notify')!;
    expect(decl.parameters).toMatchObject({
      type: 'object',
      required: ['text'],
      properties: { mode: { enum: ['voice', 'dm', 'channel', 'webhook', 'auto', 'all'] } },
    });
    const outcome = await r.invoke('local_notify', { text: 'hello', mode: 'voice' }, { caller: 'model' });
    expect(outcome).toEqual({
      ok: true,
      result: { id: 'n-test', status: 'ok', channel: 'voice', results: { voice: { status: 'ok' } }, notified_at: 1 },
    });
    expect(delivered).toEqual([{ text: 'hello', mode: 'voice', source: 'model' }]);
  });

  it('empty text and unknown mode are invalid_args, nothing delivered', async () => {
    const { r } = registry();
    expect(await r.invoke('local_notify', { text: '' }, { caller: 'model' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_args' },
    });
    expect(await r.invoke('local_notify', { text: 'x', mode: 'sms' }, { caller: 'model' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_args' },
    });
    expect(delivered).toEqual([]);
  });
});

describe('local_notify_schedule: three forms on one tool', () => {
  it('refuses an unknown argument (tz for timezone) as invalid_args naming it; nothing scheduled', async () => {
    const { r } = registry();
    const refused = await r.invoke(
      'local_notify_schedule',
      { text: 'Stand-up', repeat: 'daily', at: '09:00', tz: 'Europe/Berlin' },
      { caller: 'model' },
    );
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'invalid_args', status: 400, message: expect.stringContaining('"tz"') },
    });
    expect(await r.invoke('local_notify_schedule', { list: true }, { caller: 'model' })).toMatchObject({
      ok: true,
      result: { entries: [] },
    });
  });

  it('schedule → {scheduled, fire_at_epoch}; list; cancel', async () => {
    const { r } = registry();
    const scheduled = await r.invoke(
      'local_notify_schedule',
      { text: 'Tea is ready', delay_seconds: 300, mode: 'voice' },
      { caller: 'model' },
    );
    expect(scheduled).toEqual({
      ok: true,
      result: { scheduled: expect.stringMatching(/^n-/), fire_at_epoch: 1_800_000_300 },
    });
    const id = (scheduled as { result: { scheduled: string } }).result.scheduled;
    const listed = await r.invoke('local_notify_schedule', { list: true }, { caller: 'model' });
    expect(listed).toMatchObject({
      ok: true,
      result: { entries: [{ id, text: 'Tea is ready', mode: 'voice', state: 'scheduled', source: 'model' }] },
    });
    const cancelled = await r.invoke('local_notify_schedule', { cancel_id: id }, { caller: 'model' });
    expect(cancelled).toMatchObject({ ok: true, result: { cancelled: id, entry: { state: 'cancelled' } } });
  });

  it('clear errors: bad delay, missing text, unknown cancel id, two forms at once', async () => {
    const { r } = registry();
    const msg = async (args: unknown) => {
      const o = await r.invoke('local_notify_schedule', args, { caller: 'model' });
      expect(o.ok).toBe(false);
      return (o as { error: { message: string } }).error.message;
    };
    expect(await msg({ text: 'x', delay_seconds: -3 })).toBe('delay_seconds: delay_seconds must not be negative');
    expect(await msg({ delay_seconds: 3 })).toBe('text is required');
    expect(await msg({ cancel_id: 'n-nope' })).toBe('no scheduled notification with id "n-nope"');
    expect(await msg({ list: true, cancel_id: 'n-x' })).toBe('give one form only, not list and cancel');
  });
});

describe('local_delegate_execute', () => {
  it('is owner-only for start and runs the configured command', async () => {
    const { r } = registry(true);
    const refused = await r.invoke('local_delegate_execute', { prompt: 'fix the build' }, { caller: 'model' });
    expect(refused).toMatchObject({
      ok: false,
      error: { message: 'only the owner can start or cancel delegate sessions' },
    });
    const started = await r.invoke(
      'local_delegate_execute',
      { prompt: 'fix the build', label: 'build' },
      { caller: 'owner' },
    );
    expect(started).toMatchObject({
      ok: true,
      result: {
        started: expect.stringMatching(/^d-/),
        session: { state: 'running', label: 'build', pid: expect.any(Number) },
      },
    });
    const listed = await r.invoke('local_delegate_execute', { list: true }, { caller: 'model' });
    expect((listed as { result: { sessions: unknown[] } }).result.sessions).toHaveLength(1);
  });

  it('a delegate command that cannot start is refused (503 delegate_unavailable), never reported as started', async () => {
    const r = new ToolRegistry();
    const scheduler = createScheduler({ file: scheduleFilePath(home), notifier, logger });
    const delegates = createDelegateWatcher({
      command: [path.join(home, 'no-such-agent')],
      cwd: home,
      logDir: path.join(home, 'voice-users', 'delegates'),
      notifier,
      logger,
      redact: (t) => t,
    });
    registerNotifyTools(r, { notifier, scheduler, delegates, canDelegate: () => true });
    const outcome = await r.invoke('local_delegate_execute', { prompt: 'fix the build' }, { caller: 'owner' });
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'delegate_unavailable', status: 503, message: expect.stringContaining('nothing was started') },
    });
    const listed = await r.invoke('local_delegate_execute', { list: true }, { caller: 'model' });
    expect(listed).toEqual({ ok: true, result: { sessions: [] } });
    expect(delivered).toEqual([]);
  });

  it('is not registered without a delegate watcher', () => {
    expect(registry(false).r.has('local_delegate_execute')).toBe(false);
  });
});
