// npm run soak:day -- [--minutes N] [--short] [--window-minutes W] [--seed X] [--outage-s S (0: none)] [--kill-at-min M (0: none)] [--out FILE]
// (also: npm run soak -- --profile day ...)
// A working day's call under every fault at once (issue #55): the real core as a child process, the
// fakes (Discord with DAVE v1, Gemini, a webhook receiver) in this one, for N minutes in real time
// (default 120; --short: the 10-minute CI profile). On one seeded schedule: the owner speaking
// numbered phrases with long quiet stretches that park and wake the model, DAVE membership changes
// (bench/lib/soak-day-load.ts), session rotations, hard deadlines with refused resumes, abrupt
// drops, one 60 s model outage, one Discord voice reconnect, reminders in every mode (with a kill -9:
// some due while the core is down, bench/lib/soak-day-kill.ts), the dashboard's /events stream, /say
// and /ask from the CLI. Measured per window and in total
// (bench/lib/soak-day-measure.ts), written to bench/results/soak-day.json. Reports; never fails on
// a number (test/soak/soak-day-ci.test.ts asserts the loss and duplicate counts).
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runSoak, type SoakCallContext, type SoakCycle, type SoakRun } from './lib/soak-call.ts';
import { killGapTally } from './lib/soak-day-kill.ts';
import { modelPortOf, quietSnapshot, sameSnapshot, type QuietSnapshot } from './lib/proc-fds.ts';
import { startDayAgent, type DayAgent } from './lib/soak-day-agent.ts';
import { countAtReceivers, startDayLoad, startWebhookReceiver, type DayLoad } from './lib/soak-day-load.ts';
import { dayWindows, flatChecks, sampleCore, type DaySample, type QuietPoint } from './lib/soak-day-measure.ts';
import { guestPhraseLog, guestVoices, tallyGuestWords, unheardGuestWords } from './lib/soak-day-guests.ts';
import { phraseSignal } from '../main/fakes/shared/phrases.ts';
import { seededRandom } from '../main/fakes/discord/index.ts';
import { SOAK_DAY_DEFINITIONS, soakDayResultSchema, soakDayRows } from './lib/soak-day-report.ts';

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      minutes: { type: 'string' },
      short: { type: 'boolean', default: false },
      'window-minutes': { type: 'string', default: '10' },
      seed: { type: 'string', default: '55' },
      out: { type: 'string' },
      profile: { type: 'string', default: 'day' },
      'outage-s': { type: 'string', default: '60' },
      // Kill -9 the core once and restart it (issue #55 item 5): halfway by default in the day profile,
      // off in --short unless given (it costs the short run a minute of call).
      'kill-at-min': { type: 'string' },
    },
  });
  const minutes = Number(values.minutes ?? (values.short ? 10 : 120));
  const windowMinutes = Number(values['window-minutes']);
  const seed = Number(values.seed);
  if (!(minutes >= 1) || !(windowMinutes > 0) || !Number.isFinite(seed))
    throw new Error('--minutes ≥ 1, --window-minutes > 0 and --seed must be numbers');
  const out = values.out ?? fileURLToPath(new URL('./results/soak-day.json', import.meta.url));
  const callS = minutes * 60;
  const killAtMin = Number(values['kill-at-min'] ?? (values.short ? 0 : minutes / 2));
  if (!(killAtMin >= 0 && killAtMin < minutes)) throw new Error('--kill-at-min: from 0 (never) to under --minutes');
  // The schedule scales with the length: a short run gets each fault at least once.
  const schedule = {
    rotateS: Math.min(600, Math.max(60, Math.round(callS / 8))),
    // Short: before the first quiet stretch can begin (0.8 × quietEveryS) and the outage (0.4 of
    // the call), so the first session meets its deadline on an open socket in every run (at 0.45
    // it fell in the outage: 6 of 16 short runs counted none).
    deadlineS: minutes >= 60 ? 1500 : Math.round(callS * 0.15),
    dropEveryS: Math.min(420, Math.max(90, Math.round(callS / 6))),
    stallEveryS: Math.min(1200, Math.max(150, Math.round(callS / 3))),
    quietEveryS: Math.min(480, Math.max(60, Math.round(callS / 5))),
    quietForS: 75,
    reminderEveryS: minutes >= 60 ? 150 : 45,
    membershipEveryS: minutes >= 60 ? 150 : 50,
    sayEveryS: minutes >= 60 ? 240 : 80,
    outageMs: Number(values['outage-s']) * 1000,
  };
  console.log(
    `soak day: ${minutes} min (real time), windows of ${windowMinutes} min, seed ${seed}; schedule ${JSON.stringify(schedule)}`,
  );
  const loadAtStart = Math.round(os.loadavg()[0]! * 100) / 100;
  const webhook = await startWebhookReceiver();
  const samples: DaySample[] = [];
  const quietPoints: QuietPoint[] = [];
  let load: DayLoad | null = null;
  let agent: DayAgent | null = null;
  // The core's TCP sockets at each quiet point (ports and state): which one differs, when one does.
  const quietSockets: string[][] = [];
  // And its other fds by kind (files, pipes, event fds): which one differs, when one does.
  const quietOtherFds: string[][] = [];
  let call: SoakCallContext | null = null;
  let sampler: NodeJS.Timeout | null = null;
  // The guest and the visitor speak in the owner's pauses (bench/lib/soak-day-guests.ts), on their own seeded random.
  const guests = guestVoices(seededRandom(seed + 1), async (name, k) => {
    if (!call) throw new Error('no call yet');
    return call.discord.speak(call.discord.user(name).id, phraseSignal(k));
  });
  /**
   * A quiet point's reading of one instant: the fds before and after the sample (whose /health
   * gives the active resources) agree, else it is read again (a socket opened or closed between the
   * two reads: up to 5 tries, 1 s apart). The model's socket is counted from the core's own fds.
   */
  const quietPoint = async (c: SoakCallContext): Promise<{ sample: QuietPoint; snapshot: QuietSnapshot } | null> => {
    const ports = [Number(new URL(c.base).port), modelPortOf(c.fake.env())] as const;
    for (let tries = 1; ; tries++) {
      const before = quietSnapshot(c.pid, ...ports);
      const s = await sample();
      const after = quietSnapshot(c.pid, ...ports);
      if (!s) return null;
      if (sameSnapshot(before, after) || tries === 5)
        return {
          sample: {
            ...s,
            fds: before.fds,
            sidecarClients: before.sidecarClients,
            modelSocketsOpen: before.modelSockets,
          },
          snapshot: before,
        };
      await sleep(1000);
    }
  };
  const sample = async (): Promise<DaySample | null> =>
    // Where the RSS is, once a minute (every 12th sample): reading smaps walks the core's mappings.
    call
      ? sampleCore(call.pid, call.base, call.token, call.started, call.fake.openSockets(), samples.length % 12 === 0)
      : null;
  try {
    const run = await runSoak({
      provider: 'gemini',
      minutes,
      rotateS: schedule.rotateS,
      dropEveryS: schedule.dropEveryS,
      stallEveryS: schedule.stallEveryS,
      voiceResetEveryS: 0,
      deadlineS: schedule.deadlineS,
      seed,
      killAtS: killAtMin * 60,
      quietEveryS: schedule.quietEveryS,
      quietForS: schedule.quietForS,
      extraUsers: ['guest', 'visitor'],
      guests,
      coreEnv: {
        DISCORD_VOICE_LIVE_WEBHOOK_AGENT_NOTIFY: webhook.url,
        // The soak's receiver drops a repeated Idempotency-Key (soak-day-load.ts), for as long as the call.
        DISCORD_VOICE_LIVE_WEBHOOK_IDEMPOTENCY_SECONDS: String(Math.max(60, minutes * 60)),
        DISCORD_VOICE_LIVE_PARK_AFTER_S: '60',
        // LVB_CORE_LOG_LEVEL=info with LVB_CORE_LOG=file: the core's log kept for tracing.
        ...(process.env.LVB_CORE_LOG_LEVEL ? { DISCORD_VOICE_LIVE_LOG_LEVEL: process.env.LVB_CORE_LOG_LEVEL } : {}),
      },
      progress: (line) => console.log(line),
      extras: (context) => {
        call = context;
        load = startDayLoad(context, { minutes, ...schedule });
        agent = startDayAgent(context, { everyS: 20, framesEveryS: 15 });
        sampler = setInterval(() => void sample().then((s) => s && samples.push(s)), 5000);
        return {
          quiet: async (ms) => {
            // The quiet point: nobody has spoken for most of the stretch, the model parked.
            if (agent) agent.quiet = true;
            await sleep(Math.max(0, ms - 5000));
            const point = call ? await quietPoint(call) : null;
            if (point) {
              quietPoints.push(point.sample);
              quietSockets.push(point.snapshot.sockets);
              quietOtherFds.push(point.snapshot.otherFds);
            }
            await sleep(Math.min(ms, 5000));
            if (agent) agent.quiet = false;
          },
          stop: async () => {
            await agent?.stop();
            await load?.stop();
            if (sampler) clearInterval(sampler);
          },
          // One reminder per mode due while the core is down, one per mode just after (soak-day-kill.ts).
          beforeKill: async () => (load ? load.beforeKill() : 0),
        };
      },
    });
    if (!call || !load) throw new Error('the call never began');
    const started = call as SoakCallContext;
    const day = load as DayLoad;
    const startedAt = Date.now() - (performance.now() - started.started);
    const received = countAtReceivers(started, webhook, day.voiceTexts);
    const scheduled = day.reminders.filter((r) => r.scheduled);
    // A voice reminder the call could not take (the model unreachable) goes by DM, channel or
    // webhook instead, and its outcome says so: it is counted where it went, not lost.
    const elsewhere = (tag: string): number =>
      (['dm', 'channel', 'webhook'] as const).reduce((n, m) => n + (received[m].get(tag) ?? 0), 0);
    const deliveries = scheduled.map((r) => {
      const instead = r.mode === 'voice' ? elsewhere(r.tag) : 0;
      return { ...r, instead, count: (received[r.mode].get(r.tag) ?? 0) + instead };
    });
    const windowMs = windowMinutes * 60_000;
    const cycles = run.cycles;
    // Windows cover the call; the tail after it (waiting for the last reminders' receivers) is not one.
    const inCall = samples.filter((s) => s.t <= minutes * 60_000);
    const windows = dayWindows(
      inCall,
      cycles,
      deliveries.map((d) => ({ dueAt: d.dueAt, delivered: d.count > 0 })),
      startedAt,
      windowMs,
    );
    const flat = flatChecks(inCall, quietPoints, windows, windowMs);
    const kill = run.kill;
    // Reminders that fell due while the core was down (the kill to the call back): delivered once each?
    const gap = kill
      ? deliveries.filter((d) => d.dueAt >= kill.at && d.dueAt <= (kill.backAt ?? kill.at + 60_000))
      : [];
    const tally = kill && killGapTally(kill, deliveries);
    const killRestart = kill && {
      atMinute: Math.round(((kill.at - startedAt) / 60_000) * 10) / 10,
      callBack: kill.callBack,
      upAfterS: kill.upAt === null ? null : Math.round((kill.upAt - kill.at) / 100) / 10,
      backAfterS: kill.backAt === null ? null : Math.round((kill.backAt - kill.at) / 100) / 10,
      remindersDueDuringGap: gap.length,
      delivered: gap.filter((d) => d.count > 0).length,
      duplicates: gap.reduce((n, d) => n + Math.max(0, d.count - 1), 0),
      notesBefore: kill.notesBefore,
      notesIntact: kill.notesBefore > 0 && kill.notesMissing === 0,
      notesMissing: kill.notesMissing,
    };
    const byMode = Object.fromEntries(
      (['voice', 'dm', 'channel', 'webhook'] as const).map((mode) => {
        const mine = deliveries.filter((d) => d.mode === mode);
        return [
          mode,
          {
            due: mine.length,
            lost: mine.filter((d) => d.count === 0).length,
            duplicated: mine.reduce((n, d) => n + Math.max(0, d.count - 1), 0),
            sentInstead: mine.filter((d) => d.instead > 0).length,
          },
        ];
      }),
    );
    const result = {
      minutes,
      windowMinutes,
      seed,
      schedule,
      wordsSent: cycles.length,
      wordsHeard: cycles.filter((c) => c.heard).length,
      wordsLost: cycles.filter((c) => !c.heard).length,
      // Of them, still in the killed core at the kill -9 (its memory went with it): lost to the kill.
      wordsLostHeldAtKill: kill ? cycles.filter((c) => !c.heard && c.heldAtKill).length : null,
      repliesWhole: cycles.filter((c) => c.replies === 1).length,
      repliesDoubled: cycles.filter((c) => c.replies > 1).length,
      repliesStale: cycles.reduce((n, c) => n + c.staleReplies, 0),
      repliesLate: cycles.reduce((n, c) => n + c.lateReplies, 0),
      repliesLateMaxS: Math.round(Math.max(0, ...cycles.map((c) => c.lateByMs ?? 0)) / 100) / 10,
      repliesUnheard: run.repliesUnheard,
      // The guests' own phrases (in the owner's pauses, some overlapping): said, and heard by the model.
      guestWords: tallyGuestWords(guests.said, guests.turns, guests.cutByLeaving),
      guestWordsLostAt: unheardGuestWords(guests.said, guests.turns, startedAt),
      guestPhrases: guestPhraseLog(guests.said, guests.turns, startedAt),
      // Which utterances were lost or answered twice, and the faults within their cycle (for tracing).
      wordsLostAt: cycles
        .filter((c) => !c.heard)
        .map((c) => ({ n: c.n, at: new Date(c.at).toISOString(), events: c.events })),
      // Each lost word with the fault phase it fell in: the faults just before it and the call's
      // state at /health around it (the samples before and after, 5 s apart), for tracing (#55).
      lostWords: cycles
        .filter((c) => !c.heard)
        .map((c) => ({
          ...lostWordPhase(c, run.events, samples, startedAt, schedule.outageMs),
          killPhase: kill
            ? c.at < kill.at
              ? `said ${((kill.at - c.at) / 1000).toFixed(1)} s before the kill -9${c.heldAtKill ? ', still held by the killed core' : ''}`
              : `said ${((c.at - kill.at) / 1000).toFixed(1)} s after the kill -9`
            : 'no kill',
        })),
      repliesDoubledAt: cycles
        .filter((c) => c.replies > 1)
        .map((c) => ({ n: c.n, at: new Date(c.at).toISOString(), replies: c.replies, events: c.events })),
      killRestart,
      remindersDue: scheduled.length,
      remindersRefused: day.reminders.length - scheduled.length,
      reminderRefusals: day.reminders.flatMap((r) => (r.refusal ? [`${r.tag} (${r.mode}): ${r.refusal}`] : [])),
      remindersLost: deliveries.filter((d) => d.count === 0).length,
      remindersDuplicated: deliveries.reduce((n, d) => n + Math.max(0, d.count - 1), 0),
      remindersByMode: byMode,
      // Across the kill -9 (null without one): due while the core was down, and just after it was back.
      remindersDueInKillGap: tally ? tally.inKillGap.due : null,
      remindersDueInKillGapDelivered: tally ? tally.inKillGap.delivered : null,
      remindersDueInKillGapLost: tally ? tally.inKillGap.lost : null,
      remindersDueInKillGapDuplicated: tally ? tally.inKillGap.duplicated : null,
      remindersDueAfterRestart: tally ? tally.afterRestart.due : null,
      remindersDueAfterRestartDelivered: tally ? tally.afterRestart.delivered : null,
      remindersDueAfterRestartLost: tally ? tally.afterRestart.lost : null,
      remindersDueAfterRestartDuplicated: tally ? tally.afterRestart.duplicated : null,
      killGapReminders: tally,
      webhookReceiver: {
        requests: webhook.requests,
        failed500: webhook.failed,
        rateLimited429: webhook.rateLimited,
        repeatsDropped: webhook.repeatsDropped,
      },
      rssGrowthMbPerHour: flat.rss.rssGrowthMbPerHour,
      fdsFirstQuiet: flat.fds.atQuietPoints[0] ?? null,
      fdsLastQuiet: flat.fds.atQuietPoints.at(-1) ?? null,
      activeResourcesFirstQuiet: flat.activeResources.atQuietPoints[0] ?? null,
      activeResourcesLastQuiet: flat.activeResources.atQuietPoints.at(-1) ?? null,
      quietPoints: quietPoints.length,
      quietPointSockets: quietSockets,
      quietPointOtherFds: quietOtherFds,
      modelSocketsOpenMax: Math.max(0, ...samples.map((s) => s.modelSocketsOpen)),
      childProcessesMax: Math.max(0, ...samples.map((s) => s.children)),
      flat: { pass: flat.rss.pass && flat.fds.pass && flat.activeResources.pass && flat.cpu.pass, ...flat },
      faults: {
        rotations: run.rotations,
        deadlines: run.deadlines,
        freshSessions: run.freshSessions,
        drops: run.events.filter((e) => e.kind === 'drop').length,
        stalls: run.events.filter((e) => e.kind === 'stall').length,
        outages: run.events.filter((e) => e.kind === 'outage').length,
        voiceResets: run.events.filter((e) => e.kind === 'voiceReset').length,
        membershipChanges: day.membershipChanges,
        silentRekeys: day.silentRekeys,
        overlapsRefused: run.overlapsRefused,
      },
      agents: {
        eventsStreamed: day.events.events,
        eventsReconnects: day.events.reconnects,
        cliSays: day.says.sent,
        cliSaysCut: day.says.cut,
        cliSaysFailed: day.says.failed,
        cliExits: day.says.exits,
        // The MCP agent (list tools, then call_status or read_notes, every ~20 s) and frames pushed
        // to POST /frame every ~15 s outside the quiet stretches (bench/lib/soak-day-agent.ts).
        mcp: agent ? (agent as DayAgent).counts.agent : null,
        frames: agent ? (agent as DayAgent).counts.frames : null,
      },
      health: { bridge: run.healthAtEnd.bridge.state, reconnects: run.healthAtEnd.metrics.reconnects },
      machine: {
        cores: os.cpus().length,
        node: process.version,
        loadAverage1m: loadAtStart,
        loadAverage1mAtEnd: Math.round(os.loadavg()[0]! * 100) / 100,
      },
      definitions: SOAK_DAY_DEFINITIONS,
      windows,
      events: run.events.map((e) => ({ ...e, at: new Date(e.at).toISOString() })),
      samples,
    };
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
    for (const [metric, measured, target] of soakDayRows(soakDayResultSchema.parse(result)))
      console.log(`${metric.padEnd(48)}  ${measured.padEnd(28)}  ${target}`);
    // What a CI log must show when the JSON is gone with its temporary folder.
    for (const exit of day.says.exits.filter((e) => !e.includes(': exit 0,'))) console.log(`CLI ${exit}`);
    console.log(`\nwritten ${path.relative(process.cwd(), out)}`);
  } finally {
    if (sampler) clearInterval(sampler);
    await webhook.close();
  }
}

/** Where a lost word fell: seconds into the call, the outage phase, the last faults before it, the call's state. */
function lostWordPhase(
  cycle: SoakCycle,
  events: SoakRun['events'],
  samples: DaySample[],
  startedAt: number,
  outageMs: number,
) {
  const t = cycle.at - startedAt;
  const outage = events.find((e) => e.kind === 'outage');
  const sinceOutage = outage ? (cycle.at - outage.at) / 1000 : null;
  const outagePhase =
    sinceOutage === null
      ? 'no outage'
      : sinceOutage < 0
        ? 'before the outage'
        : sinceOutage * 1000 < outageMs
          ? `in the outage (${sinceOutage.toFixed(1)} s of ${outageMs / 1000})`
          : `${(sinceOutage - outageMs / 1000).toFixed(1)} s after the outage ended`;
  const before = samples.filter((s) => s.t <= t).at(-1);
  const after = samples.find((s) => s.t > t);
  return {
    n: cycle.n,
    at: new Date(cycle.at).toISOString(),
    secondsIntoCall: Math.round(t / 100) / 10,
    outagePhase,
    faultsBefore: events
      .filter((e) => e.at <= cycle.at && e.at >= cycle.at - 30_000)
      .map((e) => `${e.kind} ${((cycle.at - e.at) / 1000).toFixed(1)} s before: ${e.detail}`),
    eventsInCycle: cycle.events,
    callStateBefore: before?.bridge ?? null,
    callStateAfter: after?.bridge ?? null,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) await main(process.argv.slice(2));
