// The day soak's load beside the call (bench/soak-day.ts, issue #55): reminders in every mode counted
// at their receivers, DAVE membership churn, one 60 s model outage, one Discord voice reconnect, the
// dashboard's /events stream, and /say from the CLI, all on the soak's seeded random. It reuses the
// fakes' own controls (userJoinVoice/userLeaveVoice, faults.room.silentRekey, closeVoice,
// setUnavailable) as bench/lib/voice-churn.ts and the outage test do.
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { BUILT_CLI } from './latency-call.ts';
import type { SoakCallContext } from './soak-call.ts';
import { killGapPlan, restartNotBefore, type KillWindow } from './soak-day-kill.ts';

export const REMINDER_MODES = ['voice', 'dm', 'channel', 'webhook'] as const;
export type ReminderMode = (typeof REMINDER_MODES)[number];

export interface DayLoadOptions {
  minutes: number;
  /** Mean seconds between reminders (each falls due 15-45 s after it is scheduled). */
  reminderEveryS: number;
  /** Mean seconds between DAVE membership changes. */
  membershipEveryS: number;
  sayEveryS: number;
  outageMs: number;
}

export interface ReminderRecord {
  tag: string;
  mode: ReminderMode;
  /** Date.now() the core was asked to deliver it. */
  dueAt: number;
  scheduled: boolean;
  /** The core's answer when it refused the reminder (status and error code). */
  refusal?: string;
  /** Scheduled right before the kill -9 to fall due in its gap or just after the restart (soak-day-kill.ts). */
  window?: KillWindow;
}

/**
 * The webhook receiver: answers 500 to every 5th request (the 2nd, 7th, 12th…) and 429 (Retry-After: 1)
 * to every 7th (the 4th, 11th…): counted from the 5th and 7th, the short run's four webhook POSTs never
 * met either (runs 7 and 8). It honours the Idempotency-Key (a repeat of a key it acted on is answered
 * 200, not acted on again).
 * `actedOn` counts per reminder tag what it acted on.
 */
export interface WebhookReceiver {
  url: string;
  actedOn: Map<string, number>;
  requests: number;
  failed: number;
  rateLimited: number;
  repeatsDropped: number;
  close(): Promise<void>;
}

/** soakday-r<n>: the reminders every few minutes; soakday-k<n>: those around the kill (soak-day-kill.ts). */
const TAG = /soakday-[rk]\d+/g;

function body(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const keys = new Set<string>();
  const receiver: Omit<WebhookReceiver, 'url' | 'close'> = {
    actedOn: new Map(),
    requests: 0,
    failed: 0,
    rateLimited: 0,
    repeatsDropped: 0,
  };
  const server: Server = createServer((request, reply) => {
    void body(request).then((text) => {
      const n = ++receiver.requests;
      if (n % 5 === 2) {
        receiver.failed++;
        reply.writeHead(500).end('{"message":"soak receiver fails this one"}');
        return;
      }
      if (n % 7 === 4) {
        receiver.rateLimited++;
        reply
          .writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' })
          .end('{"message":"You are being rate limited.","retry_after":1}');
        return;
      }
      const key = z.string().safeParse(request.headers['idempotency-key']);
      if (key.success && keys.has(key.data)) {
        receiver.repeatsDropped++;
      } else {
        if (key.success) keys.add(key.data);
        for (const tag of new Set(text.match(TAG) ?? []))
          receiver.actedOn.set(tag, (receiver.actedOn.get(tag) ?? 0) + 1);
      }
      reply.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/webhook`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** Counts per reminder tag what a receiver got: DM and channel messages at the fake Discord, voice text at the fake model. */
export function countAtReceivers(
  call: Pick<SoakCallContext, 'discord'>,
  webhook: WebhookReceiver,
  voiceTexts: readonly string[],
): Record<ReminderMode, Map<string, number>> {
  const count = (texts: Iterable<string>): Map<string, number> => {
    const map = new Map<string, number>();
    for (const text of texts) for (const tag of new Set(text.match(TAG) ?? [])) map.set(tag, (map.get(tag) ?? 0) + 1);
    return map;
  };
  const ownerDm = (m: { dmRecipientId: string | null }) => m.dmRecipientId === call.discord.owner.id;
  return {
    dm: count(call.discord.messages.filter(ownerDm).map((m) => m.content)),
    channel: count(
      call.discord.messages.filter((m) => m.channelId === call.discord.textChannelId).map((m) => m.content),
    ),
    // The model hears a voice reminder as text; a fresh session seeded with the call repeats it, so only "heard at all" is told here.
    voice: new Map([...count(voiceTexts).keys()].map((tag) => [tag, 1])),
    webhook: webhook.actedOn,
  };
}

/** The dashboard's live stream: connected for the whole call, reconnected if the core ends it. */
function followEvents(
  call: SoakCallContext,
  until: { done: boolean },
  counts: { events: number; reconnects: number },
): Promise<void> {
  return (async () => {
    while (!until.done) {
      const controller = new AbortController();
      const stop = setInterval(() => until.done && controller.abort(), 500);
      try {
        const res = await fetch(`${call.base}/events`, {
          headers: { authorization: `Bearer ${call.token}` },
          signal: controller.signal,
        });
        const reader = res.body!.getReader();
        const decoder = new TextDecoder();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          counts.events += (decoder.decode(value).match(/^event:/gm) ?? []).length;
        }
      } catch {
        // aborted at the end, or the core closed it
      } finally {
        clearInterval(stop);
      }
      if (!until.done) {
        counts.reconnects++;
        await sleep(1000);
      }
    }
  })();
}

/** Runs the compiled CLI; its exit code and, with `--json`, the outcome it printed (GET /say/{id}). */
function cli(call: SoakCallContext, args: string[]): Promise<{ code: number | null; outcome: string }> {
  const port = new URL(call.base).port;
  const child = spawn(process.execPath, [BUILT_CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', DISCORD_VOICE_LIVE_PORT: port, DISCORD_VOICE_LIVE_SIDECAR_TOKEN: call.token },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      const said = z.object({ outcome: z.string(), reason: z.string().nullable().optional() }).safeParse(
        (() => {
          try {
            return JSON.parse(out) as unknown;
          } catch {
            return null;
          }
        })(),
      );
      resolve({
        code,
        outcome: said.success
          ? `${said.data.outcome}${said.data.reason ? ` (${said.data.reason})` : ''}`
          : out.trim().slice(0, 200),
      });
    }),
  );
}

export interface DayLoad {
  reminders: ReminderRecord[];
  voiceTexts: string[];
  events: { events: number; reconnects: number };
  /** `exits`: per say/ask, in order, when it ended, the CLI's exit code and the outcome (GET /say/{id}). */
  /** CLI say/ask: spoken (exit 0), cut (4: partly heard, someone spoke over it, by design), failed (any other exit). */
  says: { sent: number; cut: number; failed: number; exits: string[] };
  membershipChanges: number;
  silentRekeys: number;
  /**
   * Right before the kill -9: schedules the kill gap's reminders (soak-day-kill.ts) and returns when
   * the restart may begin (Date.now()): once the last one due in the gap is due.
   */
  beforeKill(): Promise<number>;
  stop(): Promise<void>;
}

/** POST /schedule; the record says when it is due and whether the core accepted it. */
async function scheduleReminder(
  call: SoakCallContext,
  tag: string,
  mode: ReminderMode,
  delayS: number,
  window?: KillWindow,
): Promise<ReminderRecord> {
  const res = await fetch(`${call.base}/schedule`, {
    method: 'POST',
    headers: { authorization: `Bearer ${call.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: `reminder ${tag}`, delay_seconds: delayS, mode }),
  }).catch(() => null);
  const refusal = res?.ok
    ? undefined
    : `${res?.status ?? 'no answer'} ${res ? JSON.stringify(await res.json().catch(() => null)) : ''}`;
  return {
    tag,
    mode,
    dueAt: Date.now() + delayS * 1000,
    scheduled: res?.ok === true,
    ...(refusal ? { refusal } : {}),
    ...(window ? { window } : {}),
  };
}

/** Starts the load; `stop()` waits for every reminder already scheduled to fall due. */
export function startDayLoad(call: SoakCallContext, options: DayLoadOptions): DayLoad {
  const until = { done: false };
  const load: DayLoad = {
    reminders: [],
    voiceTexts: [],
    events: { events: 0, reconnects: 0 },
    says: { sent: 0, cut: 0, failed: 0, exits: [] },
    membershipChanges: 0,
    silentRekeys: 0,
    beforeKill: async () => {
      const planned = await Promise.all(
        killGapPlan().map((r) => scheduleReminder(call, r.tag, r.mode, r.offsetMs / 1000, r.window)),
      );
      load.reminders.push(...planned);
      return restartNotBefore(planned.filter((r) => r.scheduled));
    },
    stop: async () => undefined,
  };
  call.fake.onClientText?.((json) => void (json.includes('soakday-') && load.voiceTexts.push(json)));
  const end = call.started + options.minutes * 60_000;
  const timers: NodeJS.Timeout[] = [];
  const every = (seconds: number, fire: (count: number) => void | Promise<void>): void => {
    let count = 0;
    // A fire still running at stop() must not schedule the next one (it would keep this process alive).
    const schedule = (): void =>
      void (
        until.done ||
        timers.push(
          setTimeout(
            () => void Promise.resolve(fire(count++)).finally(schedule),
            seconds * 1000 * (0.6 + 0.8 * call.random()),
          ),
        )
      );
    schedule();
  };
  every(options.reminderEveryS, async (i) => {
    const delayS = 15 + Math.floor(call.random() * 30);
    if (performance.now() + delayS * 1000 > end - 20_000) return;
    const mode = REMINDER_MODES[i % REMINDER_MODES.length]!;
    load.reminders.push(await scheduleReminder(call, `soakday-r${i}`, mode, delayS));
  });
  const guest = call.discord.user('guest');
  const visitor = call.discord.user('visitor');
  call.discord.userJoinVoice(guest.id);
  let visitorIn = false;
  const toggleVisitor = (): void => {
    if (visitorIn) call.discord.userLeaveVoice(visitor.id);
    else call.discord.userJoinVoice(visitor.id);
    visitorIn = !visitorIn;
  };
  every(options.membershipEveryS, (i) => {
    const group = call.discord.dave();
    if (i % 6 === 5) {
      // Everyone but the owner out, and back a few seconds later.
      call.discord.userLeaveVoice(guest.id);
      if (visitorIn) call.discord.userLeaveVoice(visitor.id);
      visitorIn = false;
      timers.push(setTimeout(() => call.discord.userJoinVoice(guest.id), 4000));
      call.event('membership', 'everyone out and back');
      load.membershipChanges += 2;
    } else if (i % 4 === 3 && group) {
      call.discord.voice.faults.room.silentRekey(guest.id, group);
      load.silentRekeys++;
      call.event('membership', 'guest re-keys silently');
    } else if (i === 2) {
      // A stale epoch: the bot's socket drops while the group re-keys, so its resume is refused 4006.
      call.discord.closeVoice(4015);
      toggleVisitor();
      call.event('voiceReset', '4015 while the group re-keys (stale-epoch 4006 on resume)');
      load.membershipChanges++;
    } else {
      toggleVisitor();
      call.event('membership', visitorIn ? 'visitor joins' : 'visitor leaves');
      load.membershipChanges++;
    }
  });
  const at = (fraction: number, fire: () => void) =>
    void timers.push(setTimeout(fire, options.minutes * 60_000 * fraction));
  if (options.outageMs > 0)
    at(0.4, () => {
      call.fake.setUnavailable?.(true);
      call.event('outage', `model unavailable for ${options.outageMs / 1000} s`);
      timers.push(setTimeout(() => call.fake.setUnavailable?.(false), options.outageMs));
    });
  at(0.65, () => {
    call.discord.closeVoice(4015);
    call.event('voiceReset', 'Discord voice reconnect (4015)');
  });
  every(options.sayEveryS, async (i) => {
    const verb = i % 2 === 0 ? 'say' : 'ask';
    const { code, outcome } = await cli(call, [verb, '--json', `soak day note ${i}`]);
    load.says.exits.push(`${verb} ${i} at ${new Date().toISOString()}: exit ${code}, ${outcome}`);
    if (code === 0) load.says.sent++;
    else if (code === 4) load.says.cut++;
    else load.says.failed++;
  });
  const events = followEvents(call, until, load.events);
  load.stop = async () => {
    until.done = true;
    for (const timer of timers) clearTimeout(timer);
    call.fake.setUnavailable?.(false);
    const lastDue = Math.max(0, ...load.reminders.map((r) => r.dueAt));
    // Every reminder due, then its slowest receiver: the webhook's retries after 500 and 429.
    await sleep(Math.max(0, lastDue - Date.now()) + 15_000);
    await events;
  };
  return load;
}
