// Claims and start-up, as the user sees them (what was sent, the entry's recorded state):
//  - one claim per delivery attempt, shared by every mode of an `all` reminder;
//  - a refused send is `unavailable` and counts against `all`'s `ok`;
//  - an abandoned claim is recognised by its owner, not only by its pid being gone (same-pid
//    restart, zombie, pid reuse), so the entry does not sit `delivering` until the lease;
//  - start() can wait (bounded) for the destinations before firing overdue reminders.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryMode, DeliveryOutcome, NotifyRequest, NotifyResult } from '../../../main/core/api-types.ts';
import { createNotifier, type DeliverOptions } from '../../../main/core/notify/dispatcher.ts';
import { scheduleFilePath } from '../../../main/core/notify/schedule-store.ts';
import { createScheduler, procStat, type SchedulerOptions } from '../../../main/core/notify/scheduler.ts';
import type { WebhookDispatcher } from '../../../main/core/notify/webhook.ts';
import type { VoiceDelivery } from '../../../main/core/notify/types.ts';
import { ManualClock } from '../../../main/core/contracts/clock.ts';
import { TextInjectionQueue } from '../../../main/core/model/text-injection.ts';
import { readScheduleRows, writeScheduleRows } from '../../helpers/schedule-db.ts';

const logger = pino({ level: 'silent' });
const T0 = 1_800_000_000_000;
let home: string;
let file: string;
let t: number;
let sent: string[];
const clock = { now: () => t };

beforeEach(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'lvb-claims-'));
  file = scheduleFilePath(home);
  t = T0;
  sent = [];
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

/** Sends the entry's text once onSending allows it (dm). */
const simple = {
  async deliver(req: NotifyRequest, options?: DeliverOptions): Promise<NotifyResult> {
    if (options?.onSending && !(await options.onSending('dm')))
      return { id: 'x', status: 'error', results: { dm: { status: 'unavailable' } }, notified_at: t / 1000 };
    sent.push(req.text);
    return { id: 'x', status: 'ok', channel: 'dm', results: { dm: { status: 'ok' } }, notified_at: t / 1000 };
  },
};

function make(over: Partial<SchedulerOptions> = {}) {
  return createScheduler({ file, notifier: simple, clock, logger, ...over });
}

/** Rewrites the only entry in the database as claimed by `owner`/`pid`. */
async function claimAs(owner: string, pid: number): Promise<void> {
  const [record] = readScheduleRows(file);
  writeScheduleRows(file, [
    { ...record, state: 'delivering', attempts: 1, claim: { owner, pid, lease_until: T0 / 1000 + 600 } },
  ]);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('one claim per delivery attempt', () => {
  it('every mode of a scheduled `all` may send: the modes share the claim (attempts 1), nothing refused', async () => {
    const answers: Record<string, boolean> = {};
    const concurrent = {
      async deliver(req: NotifyRequest, options?: DeliverOptions): Promise<NotifyResult> {
        const modes: DeliveryMode[] = ['voice', 'dm', 'channel', 'webhook'];
        // Like `all`: every mode asks at once.
        const go = await Promise.all(modes.map((m) => options!.onSending!(m)));
        modes.forEach((m, i) => (answers[m] = go[i]!));
        for (const m of modes) if (answers[m]) sent.push(`${m}:${req.text}`);
        const results = Object.fromEntries(
          modes.map((m) => [m, { status: answers[m] ? 'ok' : 'unavailable' }]),
        ) as NotifyResult['results'];
        return {
          id: 'x',
          status: modes.every((m) => answers[m]) ? 'ok' : 'partial',
          channels: modes.filter((m) => answers[m]),
          results,
          notified_at: t / 1000,
        };
      },
    };
    const s = make({ notifier: concurrent });
    const entry = await s.schedule({ text: 'all of them', delay_seconds: 0, mode: 'all' });
    await s.tick();
    expect(answers).toEqual({ voice: true, dm: true, channel: true, webhook: true });
    expect(sent.sort()).toEqual(['channel:all of them', 'dm:all of them', 'voice:all of them', 'webhook:all of them']);
    const [view] = (await s.list()).entries;
    expect(view).toMatchObject({ id: entry.id, state: 'delivered', attempts: 1 });
    expect(view!.last_error).toBeUndefined();
  });

  it('a cancelled entry refuses every mode of the attempt and sends nothing', async () => {
    let id = '';
    const cancelling = {
      async deliver(_req: NotifyRequest, options?: DeliverOptions): Promise<NotifyResult> {
        await s.cancel(id);
        const go = await Promise.all((['dm', 'channel', 'webhook'] as const).map((m) => options!.onSending!(m)));
        expect(go).toEqual([false, false, false]);
        return { id: 'x', status: 'error', results: {}, notified_at: t / 1000 };
      },
    };
    const s = make({ notifier: cancelling }); // deliver() runs later, at tick
    id = (await s.schedule({ text: 'cancel me', delay_seconds: 0, mode: 'all' })).id;
    await s.tick();
    expect((await s.list()).entries[0]).toMatchObject({ state: 'cancelled', attempts: 0 });
  });
});

describe('dispatcher: a refused send is `unavailable` and counted', () => {
  const port = {
    async sendDirectMessage(): Promise<{ messageId: string; channelId: string }> {
      sent.push('dm');
      return { messageId: '1', channelId: 'c' };
    },
    async postToChannel(): Promise<{ messageId: string; channelId: string }> {
      sent.push('channel');
      return { messageId: '2', channelId: 'c' };
    },
  };
  const webhook: WebhookDispatcher = {
    configured: true,
    async emit(_event, hooks): Promise<DeliveryOutcome> {
      // Like the real sender: a refused beforeSend sends nothing and says `skipped`.
      if (hooks?.beforeSend && !(await hooks.beforeSend())) return { status: 'skipped', detail: 'not sent: refused' };
      sent.push('webhook');
      return { status: 'ok' };
    },
    stats: () => ({ sent: 0, failed: 0, throttled: 0, dropped: 0, urgent: 0, retries: 0, unknown: 0 }),
    close() {},
  };
  const notifier = createNotifier({
    voice: () => null,
    discordText: port,
    ownerId: '1',
    textChannelId: '2',
    webhook,
    sfxEnabled: false,
    logger,
  });

  it('`all` with one destination refused is `partial`, the refused one `unavailable`', async () => {
    const result = await notifier.deliver({ text: 'x', mode: 'all' }, { onSending: (mode) => mode !== 'channel' });
    expect(sent.sort()).toEqual(['dm', 'webhook']);
    expect(result.status).toBe('partial');
    expect(result.channels).toEqual(['dm', 'webhook']);
    expect(result.results.channel).toMatchObject({ status: 'unavailable' });
  });

  it('a refused webhook (beforeSend) is `unavailable` too, so `all` is not reported `ok`', async () => {
    const result = await notifier.deliver({ text: 'x', mode: 'all' }, { onSending: (mode) => mode !== 'webhook' });
    expect(sent.sort()).toEqual(['channel', 'dm']);
    expect(result.status).toBe('partial');
    expect(result.results.webhook).toMatchObject({ status: 'unavailable' });
  });
});

describe('abandoned claims are recognised by their owner', () => {
  it('a claim left by a stopped scheduler in THIS process (in-process restart) is recovered at once', async () => {
    let hang: () => void = () => undefined;
    const hanging = {
      async deliver(_req: NotifyRequest, options?: DeliverOptions): Promise<NotifyResult> {
        await options!.onSending!('dm');
        await new Promise<void>((r) => (hang = r)); // the send never finishes before the restart
        return { id: 'x', status: 'ok', channel: 'dm', results: { dm: { status: 'ok' } }, notified_at: t / 1000 };
      },
    };
    const old = make({ notifier: hanging, stopWaitMs: 20 });
    const entry = await old.schedule({ text: 'claimed then restarted', delay_seconds: 0 });
    const ticking = old.tick();
    for (let i = 0; i < 200 && !readScheduleRows(file).some((e) => e.state === 'delivering'); i++) await sleep(5);
    await old.stop();

    const fresh = make(); // same pid, new core
    await fresh.tick();
    const [view] = (await fresh.list()).entries;
    expect(view).toMatchObject({ id: entry.id, state: 'failed', attempts: 1 });
    expect(view!.last_error).toMatch(/^interrupted during delivery attempt 1/);
    expect(sent).toEqual([]);
    hang();
    await ticking;
    await fresh.stop();
  });

  it('a claim written with our pid by an owner that is not running here is recovered (e.g. PID 1 in a restarted container)', async () => {
    const s0 = make();
    await s0.schedule({ text: 'same pid, other owner', delay_seconds: 0 });
    await claimAs(`${process.pid}:12345-cafe`, process.pid);
    const s = make();
    expect(await s.tick()).toBe(0);
    expect((await s.list()).entries[0]).toMatchObject({ state: 'failed' });
    await expect(s.cancel((await s.list()).entries[0]!.id)).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('already failed'),
    });
    expect(sent).toEqual([]);
  });

  it('a claim by a zombie process is recovered, not held until the lease', async () => {
    if (!procStat(process.pid)) return; // needs /proc
    // `sleep 0` exits; its parent became `sleep 30` (exec) which never reaps it: a zombie.
    const holder = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const zombie = await new Promise<number>((resolve) =>
        holder.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))),
      );
      for (let i = 0; i < 200 && !procStat(zombie)?.zombie; i++) await sleep(5);
      expect(procStat(zombie)?.zombie).toBe(true);
      const s0 = make();
      await s0.schedule({ text: 'zombie claim', delay_seconds: 0 });
      await claimAs(`${zombie}:abcd`, zombie);
      const s = make();
      await s.tick();
      expect((await s.list()).entries[0]).toMatchObject({ state: 'failed' });
      expect(sent).toEqual([]);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('a claim whose pid now belongs to another process (pid reuse: start time differs) is recovered', async () => {
    if (!procStat(process.ppid)) return;
    const s0 = make();
    await s0.schedule({ text: 'reused pid', delay_seconds: 0 });
    await claimAs(`${process.ppid}:1-beef`, process.ppid); // "started at tick 1": not the process now holding that pid
    const s = make();
    await s.tick();
    expect((await s.list()).entries[0]).toMatchObject({ state: 'failed' });
  });

  it('a claim by a live process with the same start time is left alone until its lease', async () => {
    const start = procStat(process.ppid)?.start;
    if (!start) return;
    const s0 = make();
    await s0.schedule({ text: 'live elsewhere', delay_seconds: 0 });
    await claimAs(`${process.ppid}:${start}-beef`, process.ppid);
    const s = make();
    await s.tick();
    expect((await s.list()).entries[0]!.state).toBe('delivering');
    t += 601_000;
    await s.tick();
    expect((await s.list()).entries[0]!.state).toBe('failed');
    expect(sent).toEqual([]);
  });

  it('our own claims carry our start time in the owner', async () => {
    let owner = '';
    const peek = {
      async deliver(req: NotifyRequest, options?: DeliverOptions): Promise<NotifyResult> {
        await options!.onSending!('dm');
        owner = readScheduleRows(file)[0]!.claim!.owner;
        return simple.deliver(req);
      },
    };
    const s = make({ notifier: peek });
    await s.schedule({ text: 'mine', delay_seconds: 0 });
    await s.tick();
    const start = procStat(process.pid)?.start;
    expect(owner).toMatch(
      start ? new RegExp(`^${process.pid}:${start}-[0-9a-f]{8}$`) : new RegExp(`^${process.pid}:[0-9a-f]{8}$`),
    );
  });
});

describe('start() waits (bounded) for the destinations before firing overdue reminders', () => {
  it('an overdue reminder waits until ready, then goes', async () => {
    const s0 = make();
    await s0.schedule({ text: 'overdue', delay_seconds: 5 });
    t += 60_000; // came due while we were down
    let up = false;
    const s = make();
    await s.start({ ready: () => up });
    await sleep(400);
    expect(sent).toEqual([]);
    expect((await s.list()).entries[0]!.state).toBe('scheduled');
    up = true;
    for (let i = 0; i < 200 && sent.length === 0; i++) await sleep(10);
    expect(sent).toEqual(['overdue']);
    await s.stop();
  });

  it('gives up waiting after maxWaitMs and delivers anyway', async () => {
    const s0 = make();
    await s0.schedule({ text: 'late anyway', delay_seconds: 0 });
    const s = make();
    const started = Date.now();
    await s.start({ ready: () => false, maxWaitMs: 300 });
    for (let i = 0; i < 200 && sent.length === 0; i++) await sleep(10);
    expect(sent).toEqual(['late anyway']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    await s.stop();
  });

  it('stopped while waiting: nothing is sent, the entry stays scheduled', async () => {
    const s0 = make();
    await s0.schedule({ text: 'never while stopping', delay_seconds: 0 });
    const s = make();
    await s.start({ ready: () => false, maxWaitMs: 200 });
    await s.stop();
    await sleep(400);
    expect(sent).toEqual([]);
    expect((await make().list()).entries[0]!.state).toBe('scheduled');
  });
});

describe('a voice reminder is claimed at the pause it is spoken in, not while it waits for one', () => {
  /** A live call whose model is talking: texts wait in the session's queue, as on the bridge. */
  function busyCall() {
    const queue = new TextInjectionQueue({
      clock: new ManualClock(),
      deliver: (texts) => (sent.push(...texts.map((x) => `voice:${x}`)), true),
    });
    queue.modelActivity();
    const voice: VoiceDelivery = {
      speak: (text, options) =>
        new Promise((resolve) =>
          queue.enqueue(text, {
            deadlineMs: options.withinMs,
            beforeHandOver: options.beforeHandOver,
            onSettled: (o) => resolve(o.delivered ? { delivered: true } : { delivered: false, reason: o.reason }),
          }),
        ),
    };
    return { queue, voice };
  }
  const stored = async () => (await make().list()).entries[0]!;

  it('waits unclaimed (`scheduled`, 0 attempts), is claimed and spoken at the pause, recorded delivered once', async () => {
    const call = busyCall();
    const s = make({
      notifier: createNotifier({ voice: () => call.voice, discordText: null, sfxEnabled: false, logger }),
    });
    await s.schedule({ text: 'stand-up', delay_seconds: 0, mode: 'voice' });
    const delivery = s.tick();
    await sleep(50);
    expect(sent).toEqual([]);
    expect(await stored()).toMatchObject({ state: 'scheduled', attempts: 0 });
    call.queue.modelTurnEnded(); // the pause
    await delivery;
    expect(sent).toEqual([expect.stringMatching(/^voice:.*stand-up/)]);
    expect(await stored()).toMatchObject({ state: 'delivered', attempts: 1 });
  });

  it('a process that dies while its reminder waits for a pause leaves it to the next start, which delivers it (not "may have been delivered")', async () => {
    const dead = busyCall();
    const first = make({
      notifier: createNotifier({ voice: () => dead.voice, discordText: null, sfxEnabled: false, logger }),
    });
    await first.schedule({ text: 'pay rent', delay_seconds: 0, mode: 'voice' });
    void first.tick(); // it never gets its pause: the process is gone
    await sleep(50);
    const next = busyCall();
    next.queue.modelTurnEnded();
    const second = make({
      notifier: createNotifier({ voice: () => next.voice, discordText: null, sfxEnabled: false, logger }),
    });
    await second.tick();
    expect(sent).toEqual([expect.stringMatching(/^voice:.*pay rent/)]);
    expect(await stored()).toMatchObject({ state: 'delivered', attempts: 1 });
    expect((await stored()).last_error).toBeUndefined();
  });
});
