// Reminders that fall due while the core is down (kill -9) are delivered once each by the restarted
// core (issue #55 item 5: "the schedule delivers what was due exactly once across a restart"). The
// real headless core with the fake Discord and the day soak's webhook receiver (it honours the
// Idempotency-Key), one reminder per mode as the day soak schedules them right before its kill
// (bench/lib/soak-day-kill.ts), counted where the day soak counts them (countAtReceivers). No call is
// up, so the voice one goes by DM instead, once. The other kill -9 tests run the scheduler alone in a
// child process; this one runs the whole core, whose scheduler waits for the bot's login before it
// fires what came due while it was down (main/core/capabilities/schedule.ts).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, expect, it } from 'vitest';
import { z } from 'zod';
import {
  coreEnv,
  freePort,
  getJson,
  SOURCE_CLI,
  startCoreChild,
  stopChild,
  waitForSidecar,
} from '../../../bench/lib/latency-call.ts';
import { startBenchModel } from '../../../bench/lib/model-fakes.ts';
import { killGapPlan, restartNotBefore } from '../../../bench/lib/soak-day-kill.ts';
import { countAtReceivers, startWebhookReceiver } from '../../../bench/lib/soak-day-load.ts';
import { startFakeDiscord } from '../../../main/fakes/discord/index.ts';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const listSchema = z.object({
  entries: z.array(
    z.object({ id: z.string(), text: z.string(), state: z.string(), late_by_seconds: z.number().optional() }),
  ),
});

it(
  'one reminder per mode due while the core is down: each delivered once after the restart',
  { timeout: 120_000 },
  async () => {
    const discord = await startFakeDiscord();
    cleanups.push(() => discord.close());
    const model = await startBenchModel('gemini', { bargeInRms: null });
    cleanups.push(() => model.close());
    const webhook = await startWebhookReceiver();
    cleanups.push(() => webhook.close());
    const home = mkdtempSync(path.join(tmpdir(), 'lvb-due-while-down-'));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const port = await freePort();
    const token = randomBytes(24).toString('hex');
    const base = `http://127.0.0.1:${port}`;
    const env = {
      ...coreEnv(discord, model, home, port, token),
      DISCORD_VOICE_LIVE_WEBHOOK_AGENT_NOTIFY: webhook.url,
      DISCORD_VOICE_LIVE_WEBHOOK_IDEMPOTENCY_SECONDS: '600',
    };

    const first = startCoreChild(env, home, SOURCE_CLI);
    cleanups.push(() => stopChild(first.child));
    await waitForSidecar(base, token, first.child, first.output);
    // The day soak's gap offsets (0.5-2 s) plus 2 s: time to schedule all four on a busy machine
    // before the kill, so that none is due while this core still runs.
    const gap = killGapPlan().filter((r) => r.window === 'killGap');
    const scheduled = await Promise.all(
      gap.map(async (r) => {
        const res = await fetch(`${base}/schedule`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ text: `reminder ${r.tag}`, delay_seconds: (r.offsetMs + 2000) / 1000, mode: r.mode }),
        });
        expect(res.status).toBe(201);
        return { ...r, dueAt: Date.now() + r.offsetMs + 2000 };
      }),
    );
    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    const killedAt = Date.now();
    first.child.kill('SIGKILL');
    await exited;
    expect(Math.min(...scheduled.map((r) => r.dueAt)), 'all scheduled before they were due').toBeGreaterThan(killedAt);
    const atKill = countAtReceivers({ discord }, webhook, []);
    expect([atKill.dm.size, atKill.channel.size, atKill.webhook.size]).toEqual([0, 0, 0]);

    // Restarted once every one of them is due, as the day soak restarts it.
    await sleep(Math.max(0, restartNotBefore(scheduled) - Date.now()));
    const second = startCoreChild(env, home, SOURCE_CLI);
    cleanups.push(() => stopChild(second.child));
    await waitForSidecar(base, token, second.child, second.output);
    const received = () => countAtReceivers({ discord }, webhook, []);
    const tagsIn = (map: Map<string, number>, tag: string) => map.get(tag) ?? 0;
    const total = (tag: string) => {
      const r = received();
      return tagsIn(r.dm, tag) + tagsIn(r.channel, tag) + tagsIn(r.webhook, tag);
    };
    for (const deadline = Date.now() + 60_000; scheduled.some((r) => total(r.tag) === 0); await sleep(200))
      if (Date.now() > deadline) throw new Error(`not delivered after the restart:\n${second.output()}`);
    // Long enough for a second delivery to show (overdue entries are paced one per second).
    await sleep(3000);

    const r = received();
    const byTag = (tag: string) => [tagsIn(r.dm, tag), tagsIn(r.channel, tag), tagsIn(r.webhook, tag)];
    const tagOf = (mode: string) => scheduled.find((s) => s.mode === mode)!.tag;
    expect(byTag(tagOf('dm'))).toEqual([1, 0, 0]);
    expect(byTag(tagOf('channel'))).toEqual([0, 1, 0]);
    expect(byTag(tagOf('webhook'))).toEqual([0, 0, 1]);
    // No call: the voice reminder goes by DM instead (the first of auto's order that works), once.
    expect(byTag(tagOf('voice'))).toEqual([1, 0, 0]);
    const list = listSchema.parse((await getJson(`${base}/schedule?limit=100`, token)).body);
    const mine = list.entries.filter((e) => scheduled.some((s) => e.text.includes(s.tag)));
    expect(mine.map((e) => e.state)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
  },
);
