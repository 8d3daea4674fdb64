import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NotifyRequest, NotifyResult, SidecarEvent } from '../../../main/core/api-types.ts';
import { EventHub } from '../../../main/core/event-hub.ts';
import { scheduleFilePath } from '../../../main/core/notify/schedule-store.ts';
import { createNotifier, type DeliverOptions } from '../../../main/core/notify/dispatcher.ts';
import { createWebhookDispatcher } from '../../../main/core/notify/webhook.ts';
import { readScheduleRows, writeScheduleRows } from '../../helpers/schedule-db.ts';
import { createScheduler, type SchedulerOptions } from '../../../main/core/notify/scheduler.ts';

const logger = pino({ level: 'silent' });
const T0 = 1_800_000_000_000;

let home: string;
let file: string;
let t: number;
let delivered: NotifyRequest[];
/** `error`: nothing reachable, nothing sent; `sent-error`: a send went out and failed. */
let nextResults: (NotifyResult['status'] | 'sent-error')[];

beforeEach(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'lvb-sched-'));
  file = scheduleFilePath(home);
  t = T0;
  delivered = [];
  nextResults = [];
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const clock = { now: () => t };
// Like the real dispatcher: asks onSending right before a send, and sends nothing when refused.
const notifier = {
  async deliver(req: NotifyRequest, options?: DeliverOptions): Promise<NotifyResult> {
    const kind = nextResults.shift() ?? 'ok';
    if (kind === 'error') {
      const results: NotifyResult['results'] = {
        dm: { status: 'unavailable', detail: 'Discord bot is not connected' },
        webhook: { status: 'unavailable', detail: 'no webhook URL configured' },
      };
      return { id: 'n-test', status: 'error', results, notified_at: t / 1000 };
    }
    if (options?.onSending && !(await options.onSending('dm'))) {
      return {
        id: 'n-test',
        status: 'error',
        results: { dm: { status: 'skipped', detail: 'not sent' } },
        notified_at: t / 1000,
      };
    }
    delivered.push(req);
    const results: NotifyResult['results'] =
      kind === 'ok'
        ? { voice: { status: 'unavailable', detail: 'no live call' }, dm: { status: 'ok', message_id: '1' } }
        : kind === 'partial'
          ? {
              voice: { status: 'unavailable', detail: 'no live call' },
              dm: { status: 'ok', message_id: '1' },
              channel: { status: 'ok' },
              webhook: { status: 'ok' },
            }
          : { dm: { status: 'error', detail: 'Discord 503' } };
    const status = kind === 'sent-error' ? 'error' : kind;
    return {
      id: 'n-test',
      status,
      ...(status === 'error' ? {} : { channel: 'dm' as const }),
      results,
      notified_at: t / 1000,
    };
  },
};

function make(over: Partial<SchedulerOptions> = {}) {
  return createScheduler({ file, notifier, clock, logger, ...over });
}

/** The rows as any other process reads them from the database (each validated). */
async function fileRecords(): Promise<Record<string, unknown>[]> {
  return readScheduleRows(file).map((e): Record<string, unknown> => ({ ...e }));
}

describe('schedule, list, cancel', () => {
  it('persists one row per entry in the database under voice-users (0600) and lists it', async () => {
    const s = make();
    const entry = await s.schedule({ text: 'Drink water', delay_seconds: 90, mode: 'dm', title: 'Reminder' });
    expect(entry.id).toMatch(/^n-[0-9a-f]{12}$/);
    expect(entry.fire_at_epoch).toBe(T0 / 1000 + 90);
    expect(file).toBe(path.join(home, 'voice-users', 'notifications-schedule.jsonl'));
    expect(existsSync(file)).toBe(false); // the old file is only read (imported), never written
    if (process.platform !== 'win32')
      expect(statSync(path.join(home, 'voice-users', 'live-voice-bridge.sqlite')).mode & 0o777).toBe(0o600);
    const [record] = await fileRecords();
    expect(record).toEqual({
      id: entry.id,
      text: 'Drink water',
      mode: 'dm',
      title: 'Reminder',
      delay_seconds: 90,
      fire_at_epoch: T0 / 1000 + 90,
      created_at: T0 / 1000,
      state: 'scheduled',
      attempts: 0,
      updated_at: T0 / 1000,
    });
    expect((await s.list()).entries).toEqual([entry]);
  });

  it('fires when due (not before), then keeps the entry as delivered', async () => {
    const hub = new EventHub();
    const events: SidecarEvent[] = [];
    hub.subscribe((e) => events.push(e));
    const s = make({ hub });
    const entry = await s.schedule({ text: 'Stretch', delay_seconds: 10 });
    t += 9_000;
    expect(await s.tick()).toBe(0);
    expect(delivered).toEqual([]);
    t += 1_000;
    expect(await s.tick()).toBe(1);
    expect(delivered).toEqual([{ text: 'Stretch', mode: 'auto', title: undefined, source: 'scheduler' }]);
    const [record] = await fileRecords();
    expect(record).toMatchObject({ id: entry.id, state: 'delivered', attempts: 1, delivered_at: T0 / 1000 + 10 });
    expect(record).not.toHaveProperty('claim');
    expect(await s.tick()).toBe(0); // never twice
    const states = events.map((e) => (e.type === 'schedule' ? e.data.changed[0]?.state : null));
    expect(states).toEqual(['scheduled', 'delivering', 'delivered']);
  });

  it('cancel marks the entry cancelled so it never fires; unknown or finished ids are refused', async () => {
    const s = make();
    const entry = await s.schedule({ text: 'Call mum', delay_seconds: 5 });
    const cancelled = await s.cancel(entry.id);
    expect(cancelled.state).toBe('cancelled');
    t += 60_000;
    expect(await s.tick()).toBe(0);
    expect(delivered).toEqual([]);
    await expect(s.cancel(entry.id)).rejects.toMatchObject({
      code: 'conflict',
      message: `notification ${entry.id} is already cancelled`,
    });
    await expect(s.cancel('n-000000000000')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('rejects bad input with clear codes', async () => {
    const s = make();
    const cases: [unknown, string][] = [
      [{ delay_seconds: 5 }, 'empty_text'],
      [{ text: '  ', delay_seconds: 5 }, 'empty_text'],
      [{ text: 'x', delay_seconds: -1 }, 'bad_delay'],
      [{ text: 'x', delay_seconds: Number.NaN }, 'bad_delay'],
      [{ text: 'x', delay_seconds: Number.POSITIVE_INFINITY }, 'bad_delay'],
      [{ text: 'x', delay_seconds: 31 * 24 * 3600 }, 'bad_delay'],
      [{ text: 'x', delay_seconds: '5' }, 'bad_delay'],
      [{ text: 'x' }, 'bad_delay'],
      [{ text: 'x', delay_seconds: 5, mode: 'pigeon' }, 'unknown_mode'],
      [null, 'invalid_request'],
    ];
    for (const [input, code] of cases)
      await expect(s.schedule(input), JSON.stringify(input)).rejects.toMatchObject({ code });
    expect((await s.list()).entries).toEqual([]);
  });
});

describe('restarts, retries and damage', () => {
  it('a new scheduler on the same file fires entries overdue after downtime, oldest first', async () => {
    const a = make();
    const late = await a.schedule({ text: 'second', delay_seconds: 20 });
    const early = await a.schedule({ text: 'first', delay_seconds: 10 });
    await a.stop();
    t += 3_600_000; // the app was down for an hour
    const b = make();
    expect(await b.tick()).toBe(1); // paced: one overdue entry per second, in due order
    expect(await b.tick()).toBe(0);
    t += 1_000;
    expect(await b.tick()).toBe(1);
    expect(delivered.map((d) => d.text)).toEqual(['first (late by 59 min)', 'second (late by 59 min)']);
    const states = Object.fromEntries((await b.list()).entries.map((e) => [e.id, e.state]));
    expect(states).toEqual({ [early.id]: 'delivered', [late.id]: 'delivered' });
  });

  it('a send that went out and failed is not retried as a whole (no duplicates); the reason is kept', async () => {
    const s = make();
    const entry = await s.schedule({ text: 'once', delay_seconds: 0 });
    nextResults = ['sent-error'];
    expect(await s.tick()).toBe(1);
    t += 3_600_000;
    expect(await s.tick()).toBe(0);
    expect(delivered).toHaveLength(1);
    const [view] = (await s.list()).entries;
    expect(view).toMatchObject({ id: entry.id, state: 'failed', attempts: 1 });
    expect(view!.last_error).toBe(
      'dm: error (Discord 503) (sending was attempted; not retried as a whole, so it is never delivered twice)',
    );
  });

  it('retries an attempt that sent nothing with backoff, then marks it failed with the reason', async () => {
    const s = make({ maxAttempts: 3, retryBaseSeconds: 30 });
    const entry = await s.schedule({ text: 'Meeting', delay_seconds: 0 });
    nextResults = ['error', 'error', 'error'];
    expect(await s.tick()).toBe(1);
    let [view] = (await s.list()).entries;
    expect(view).toMatchObject({
      state: 'scheduled',
      attempts: 1,
      next_attempt_at: T0 / 1000 + 30,
      last_error: 'dm: unavailable (Discord bot is not connected); webhook: unavailable (no webhook URL configured)',
    });
    t += 29_000;
    expect(await s.tick()).toBe(0);
    t += 1_000;
    expect(await s.tick()).toBe(1);
    [view] = (await s.list()).entries;
    expect(view).toMatchObject({ state: 'scheduled', attempts: 2, next_attempt_at: T0 / 1000 + 30 + 60 });
    t += 60_000;
    expect(await s.tick()).toBe(1);
    [view] = (await s.list()).entries;
    expect(view).toMatchObject({
      id: entry.id,
      state: 'failed',
      attempts: 3,
      last_error:
        'dm: unavailable (Discord bot is not connected); webhook: unavailable (no webhook URL configured) (after 3 attempts; nothing was sent)',
    });
    expect(view!.next_attempt_at).toBeUndefined();
    t += 3_600_000;
    expect(await s.tick()).toBe(0);
    expect(delivered).toHaveLength(0); // nothing ever went out
  });

  it('a retry that then succeeds is delivered once', async () => {
    const s = make();
    await s.schedule({ text: 'x', delay_seconds: 0 });
    nextResults = ['error', 'ok'];
    await s.tick();
    t += 30_000;
    await s.tick();
    const [view] = (await s.list()).entries;
    expect(view).toMatchObject({ state: 'delivered', attempts: 2 });
    expect(view!.last_error).toBeUndefined();
  });

  it('partial delivery (all mode) counts as delivered and records what failed', async () => {
    const s = make();
    await s.schedule({ text: 'x', delay_seconds: 0, mode: 'all' });
    nextResults = ['partial'];
    await s.tick();
    const [view] = (await s.list()).entries;
    expect(view).toMatchObject({ state: 'delivered', last_error: 'partial: voice: unavailable (no live call)' });
  });

  it('an old schedule file with a torn last line and a corrupt middle line is imported once without them, and kept', async () => {
    const line = (id: string, text: string, delay: number): string =>
      JSON.stringify({
        id,
        text,
        mode: 'auto',
        delay_seconds: delay,
        fire_at_epoch: T0 / 1000 + delay,
        created_at: T0 / 1000,
        state: 'scheduled',
        attempts: 0,
      });
    const lineA = line('n-00000000000a', 'kept A', 100);
    const lineB = line('n-00000000000b', 'kept B', 200);
    const old = `${lineA}\n{not json at all\n${lineB}\n${lineB.slice(0, 25)}`;
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, old);
    const s = make();
    expect((await s.list()).entries.map((e) => e.text)).toEqual(['kept A', 'kept B']);
    await s.start();
    await s.stop();
    expect((await fileRecords()).map((r) => r.id)).toEqual(['n-00000000000a', 'n-00000000000b']);
    expect(await readFile(file, 'utf8')).toBe(old); // the backup is left as it was
    await s.cancel('n-00000000000a');
    const again = make(); // a second start does not import it again (the cancel stands)
    expect((await again.list()).entries.map((e) => e.state)).toEqual(['cancelled', 'scheduled']);
  });

  it('an entry claimed by a process that died is marked failed (interrupted), never re-sent', async () => {
    const s0 = make();
    const entry = await s0.schedule({ text: 'maybe sent', delay_seconds: 0 });
    const deadPid = spawnSync(process.execPath, ['-e', '0']).pid!;
    const [record] = readScheduleRows(file);
    writeScheduleRows(file, [
      {
        ...record,
        state: 'delivering',
        attempts: 1,
        claim: { owner: `${deadPid}:abcd`, pid: deadPid, lease_until: T0 / 1000 + 600 },
      },
    ]);
    const s = make();
    expect(await s.tick()).toBe(0);
    expect(delivered).toEqual([]);
    const [view] = (await s.list()).entries;
    expect(view).toMatchObject({ id: entry.id, state: 'failed', attempts: 1 });
    expect(view!.last_error).toMatch(/^interrupted during delivery attempt 1/);
  });

  it('a live claim by another process is left alone until its lease expires', async () => {
    const s0 = make();
    await s0.schedule({ text: 'in flight elsewhere', delay_seconds: 0 });
    const [record] = readScheduleRows(file);
    // process.ppid is alive for the whole test.
    writeScheduleRows(file, [
      {
        ...record,
        state: 'delivering',
        attempts: 1,
        claim: { owner: `${process.ppid}:beef`, pid: process.ppid, lease_until: T0 / 1000 + 600 },
      },
    ]);
    const s = make();
    await s.tick();
    expect((await s.list()).entries[0]!.state).toBe('delivering');
    t += 601_000;
    await s.tick();
    expect((await s.list()).entries[0]!.state).toBe('failed');
    expect(delivered).toEqual([]);
  });

  it('prunes finished entries after the retention period', async () => {
    const s = make({ retentionSeconds: 3600 });
    const done = await s.schedule({ text: 'old', delay_seconds: 0 });
    await s.tick();
    t += 3_601_000;
    const fresh = await s.schedule({ text: 'new', delay_seconds: 100 });
    await s.start(); // pruning runs at start-up and daily
    await s.stop();
    expect((await s.list()).entries.map((e) => e.id)).toEqual([fresh.id]);
    expect(done.id).not.toBe(fresh.id);
  });

  it('start() polls on its own and fires a due entry; stop() ends polling', async () => {
    const s = make({ pollMs: 20 });
    await s.schedule({ text: 'polled', delay_seconds: 1 });
    await s.start();
    t += 1_000;
    for (let i = 0; i < 200 && delivered.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    await s.stop();
    expect(delivered.map((d) => d.text)).toEqual(['polled']);
    await s.schedule({ text: 'after stop', delay_seconds: 0 });
    await new Promise((r) => setTimeout(r, 100));
    expect(delivered).toHaveLength(1);
  });
});

describe('cap, lateness and expiry (fake clock)', () => {
  it('refuses a new entry at the pending cap with the cap in the message; a cancel makes room', async () => {
    const s = make({ maxPending: 2 });
    const first = await s.schedule({ text: 'one', delay_seconds: 60 });
    await s.schedule({ text: 'two', delay_seconds: 60 });
    await expect(s.schedule({ text: 'three', delay_seconds: 60 })).rejects.toMatchObject({
      code: 'schedule_full',
      message: expect.stringContaining('2 pending entries'),
    });
    await s.cancel(first.id);
    await expect(s.schedule({ text: 'three', delay_seconds: 60 })).resolves.toMatchObject({ state: 'scheduled' });
    expect((await s.list()).pending).toBe(2);
  });

  it('a delivery later than the tolerance says "late by …" in what is delivered and records it', async () => {
    const s = make();
    const onTime = await s.schedule({ text: 'on time', delay_seconds: 10 });
    t += 10_000 + 30_000; // 30 s late: within the 60 s tolerance
    await s.tick();
    const late = await s.schedule({ text: 'Take the cake out', delay_seconds: 10 });
    t += 10_000 + 5 * 60_000;
    await s.tick();
    expect(delivered.map((d) => d.text)).toEqual(['on time', 'Take the cake out (late by 5 min)']);
    const byId = new Map((await s.list()).entries.map((e) => [e.id, e]));
    expect(byId.get(onTime.id)!.late_by_seconds).toBeUndefined();
    expect(byId.get(late.id)).toMatchObject({ state: 'delivered', late_by_seconds: 300 });
  });

  it('an entry later than the maximum is marked expired, not delivered, and shows so in the list and the file', async () => {
    const s = make({ maxLatenessSeconds: 3600 });
    const entry = await s.schedule({ text: 'stale', delay_seconds: 10 });
    t += 10_000 + 2 * 3600_000;
    await s.tick();
    expect(delivered).toEqual([]);
    const [view] = (await s.list({ state: 'expired' })).entries;
    expect(view).toMatchObject({ id: entry.id, state: 'expired' });
    expect(view!.last_error).toBe('expired: due 2 h ago, beyond the 1 h maximum lateness; not delivered');
    expect((await fileRecords()).find((r) => r.id === entry.id)).toMatchObject({ state: 'expired' });
    await expect(s.cancel(entry.id)).rejects.toMatchObject({ code: 'conflict' });
  });

  it('expires at the 24 h default', async () => {
    const s = make();
    await s.schedule({ text: 'yesterday', delay_seconds: 0 });
    t += 25 * 3600_000;
    await s.tick();
    expect(delivered).toEqual([]);
    expect((await s.list()).entries[0]!.state).toBe('expired');
  });
});

describe('claim at the last moment, concurrency per destination', () => {
  const until = async (cond: () => boolean | Promise<boolean>, what: string): Promise<void> => {
    for (let i = 0; i < 500 && !(await cond()); i++) await new Promise((r) => setTimeout(r, 10));
    expect(await cond(), what).toBe(true);
  };

  const receivers: Server[] = [];
  afterEach(async () => {
    for (const r of receivers.splice(0)) {
      r.closeAllConnections();
      await new Promise((done) => r.close(done));
    }
  });

  /** The real dispatcher and webhook sender posting to a loopback receiver; throttle waits are held until released. */
  async function realNotifier() {
    const posts: string[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        posts.push((JSON.parse(body) as { embeds: { description: string }[] }).embeds[0]!.description);
        res.end('ok');
      });
    });
    receivers.push(receiver);
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const sleeps: (() => void)[] = [];
    const webhook = createWebhookDispatcher({
      url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
      logger,
      clock,
      throttleSeconds: 2,
      sleep: (_ms, signal) =>
        new Promise<void>((resolve) => {
          sleeps.push(resolve);
          signal?.addEventListener('abort', () => resolve(), { once: true });
        }),
    });
    const real = createNotifier({ voice: () => null, discordText: null, webhook, sfxEnabled: false, logger, clock });
    return { real, posts, sleeps };
  }

  it('an entry waiting for its webhook throttle slot holds no claim; stopped there, it is retried later and sent once', async () => {
    const { real, posts, sleeps } = await realNotifier();
    const s1 = make({ notifier: real, stopWaitMs: 50 });
    const a = await s1.schedule({ text: 'A', delay_seconds: 0, mode: 'webhook' });
    const b = await s1.schedule({ text: 'B', delay_seconds: 0, mode: 'webhook' });
    const ticking = s1.tick();
    await until(
      () => sleeps.length === 1,
      `B waits for its throttle slot (posts: ${posts.join()}, sleeps: ${sleeps.length})`,
    );
    await until(
      async () => posts.length === 1 && (await fileRecords()).some((r) => r.id === a.id && r.state === 'delivered'),
      'A delivered',
    );
    expect(posts).toEqual(['A']);
    const records = new Map((await fileRecords()).map((r) => [r.id, r]));
    expect(records.get(a.id)).toMatchObject({ state: 'delivered', attempts: 1 });
    expect(records.get(b.id)).toMatchObject({ state: 'scheduled', attempts: 0 });
    expect(records.get(b.id)).not.toHaveProperty('claim');

    await s1.stop(); // shutdown while B waits: it must not be claimed or sent afterwards
    sleeps.shift()!();
    await ticking;
    expect(posts).toEqual(['A']);
    expect((await fileRecords()).find((r) => r.id === b.id)).toMatchObject({ state: 'scheduled' });

    const next = await realNotifier(); // the next start: a fresh process
    const s2 = make({ notifier: next.real });
    expect(await s2.tick()).toBe(1);
    expect(next.posts).toEqual(['B']);
    const views = new Map((await s2.list()).entries.map((e) => [e.id, e]));
    expect(views.get(b.id)).toMatchObject({ state: 'delivered', attempts: 1 });
  });

  it('one slow destination delays only itself', async () => {
    let releaseWebhook: () => void = () => undefined;
    const sent: string[] = [];
    const slow = {
      async deliver(req: NotifyRequest, options?: DeliverOptions): Promise<NotifyResult> {
        const mode = req.mode === 'webhook' ? 'webhook' : 'dm';
        await options?.onSending?.(mode);
        if (mode === 'webhook') await new Promise<void>((r) => (releaseWebhook = r));
        sent.push(req.text);
        return { id: 'x', status: 'ok', channel: mode, results: { [mode]: { status: 'ok' } }, notified_at: t / 1000 };
      },
    };
    const s = make({ notifier: slow });
    await s.schedule({ text: 'slow webhook', delay_seconds: 0, mode: 'webhook' });
    await s.schedule({ text: 'quick dm', delay_seconds: 1, mode: 'dm' });
    t += 1_000;
    const ticking = s.tick();
    await until(() => sent.includes('quick dm'), 'the DM went out while the webhook hangs');
    expect(sent).toEqual(['quick dm']);
    releaseWebhook();
    await ticking;
    expect(sent).toEqual(['quick dm', 'slow webhook']);
  });
});
