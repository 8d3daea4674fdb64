// The soak's simulated call. As in the latency benchmark, the fake Discord and the fake live model
// (any provider: bench/lib/model-fakes.ts) run in THIS process and the core in a CHILD process
// started as a user starts it (`npm run headless`: `node dist/main/cli.js headless`), so CPU and RSS read from /proc are the
// core's alone.
//
// The fake user speaks numbered phrases: phrase n is a tone whose pitch encodes n mod PHRASES. The
// fake model "transcribes" each utterance it receives by measuring that pitch (zero crossings of
// the PCM the core sent it, at the service's input rate: main/fakes/shared/phrases.ts), answers
// with a reply tone, and so tells which phrase it heard.
// Audio is paced like a real call on both sides: the fake speaker sends one 20 ms RTP packet per
// 20 ms of wall time, the fake model sends its reply at 2× real time in 40 ms chunks (the service
// does too), and the core's player sends 20 ms per 20 ms. The soak therefore runs in real time:
// `--minutes 30` takes 30 minutes.
//
// Meanwhile the fake model ends its session every `rotateS` on its service's terms (Gemini: goAway,
// then its 1011 deadline close, resumed with a handle; OpenAI Realtime: `session_expired` + close
// 1001; GPT-Live: `session.closed` reason `expired`; both OpenAI adapters reconnect with history
// replay), and the driver injects drops (1006 and 1011 without warning), model stalls (Gemini only)
// and voice socket resets (4015 resume, 4006 new session) at the given intervals.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { seededRandom, startFakeDiscord, type FakeDiscord } from '../../main/fakes/discord/index.ts';
import { PHRASES, phraseSignal, transcribePhrase } from '../../main/fakes/shared/phrases.ts';
import {
  BARGE_IN_RMS,
  coreEnv,
  freePort,
  getJson,
  health,
  startCoreChild,
  stopChild,
  waitForSidecar,
  type BenchHealth,
} from './latency-call.ts';
import { spokenReplyToTurn } from '../../main/core/model/injected-text.ts';
import { transcribePhrases } from './soak-day-guests.ts';
import { cpuPercent, percentiles, readProc, type Percentiles, type ProcSample } from './latency-proc.ts';
import { startBenchModel, type BenchModelFake, type BenchModelOptions, type BenchProvider } from './model-fakes.ts';

export { PHRASES };

const REPLY_MS = 1500;
/** The model's answer to a text turn (a /say, an /ask, a voice reminder). */
const TEXT_REPLY_MS = 1200;
/** An utterance the model has not answered within this long is lost. */
const REPLY_TIMEOUT_MS = 12_000;
/** Decoded peak above which a played 20 ms packet carries the reply. */
const LOUD_PEAK = 1000;
/** A pause in the packet stream itself (not quiet packets) this long counts as silence heard. */
const STREAM_PAUSE_MS = 200;
const FRAME_VALUES = 1920;

export type SoakEventKind =
  'rotation' | 'drop' | 'stall' | 'voiceReset' | 'deadline' | 'outage' | 'membership' | 'kill';

/** What the day soak's extra load (bench/lib/soak-day-load.ts) is given once the call is up. */
export interface SoakCallContext {
  base: string;
  token: string;
  pid: number;
  discord: FakeDiscord;
  fake: BenchModelFake;
  random: () => number;
  /** performance.now() when the call began. */
  started: number;
  event(kind: SoakEventKind, detail: string): void;
}

export interface SoakExtras {
  /** Nobody speaks from now for `ms` (a long quiet stretch); resolves when the stretch is over. */
  quiet(ms: number): Promise<void>;
  /** Before /stop: ends the extra load (its report is the extras' own). */
  stop(): Promise<void>;
  /** Right before the kill -9: resolves with the earliest the restart may begin (Date.now(); 0: at once). */
  beforeKill?(): Promise<number>;
}

export interface SoakOptions {
  provider: BenchProvider;
  minutes: number;
  rotateS: number;
  /** 0 disables a fault. */
  dropEveryS: number;
  stallEveryS: number;
  voiceResetEveryS: number;
  /** Gemini: the service session's hard deadline, in seconds (0: the fake's default, 58 min). */
  deadlineS: number;
  seed: number;
  progress: (line: string) => void;
  /** A long quiet stretch (nobody speaks) about every `quietEveryS`, `quietForS` long (0: none). */
  quietEveryS?: number;
  quietForS?: number;
  /** More variables for the core (the day soak's webhook URL). */
  coreEnv?: Record<string, string>;
  /** More people in the channel (fake Discord users by name). */
  extraUsers?: string[];
  /** More load beside the call (the day soak), started once the call is up. */
  extras?: (call: SoakCallContext) => SoakExtras;
  /** Kill -9 the core this many seconds into the call and start it again on the same home (0: never). */
  killAtS?: number;
  /**
   * Other speakers (bench/lib/soak-day-guests.ts): the fake model reads every phrase code of a turn,
   * turns with no owner phrase are left out of the owner's counts, and this runs in each pause
   * between the owner's cycles (it may return before its speaker is done: an overlap).
   */
  guests?: { between(): Promise<void>; turns: { ks: number[]; at: number }[] };
}

/** The kill -9 mid-call (issue #55 item 5): when, how long until the call was back, the notes either side. */
export interface SoakKill {
  /** Date.now() of the kill, when the restarted core's sidecar answered, and when its call had a model socket again. */
  at: number;
  upAt: number | null;
  backAt: number | null;
  callBack: boolean;
  notesBefore: number;
  /** Notes of the first half (before the kill) missing after the restart. */
  notesMissing: number;
}

export interface SoakCycle {
  n: number;
  /** Date.now() when the utterance began. */
  at: number;
  /** The model transcribed this utterance as the phrase said (matched in order over the whole run). */
  heard: boolean;
  /** Replies the model gave to this utterance (2 or more: a doubled reply). */
  replies: number;
  /** Replies during this cycle's window to some other phrase (late for the previous one, or misheard). */
  strayReplies: number;
  /**
   * After the whole run is aligned (alignReplies): replies that answered this utterance after a later
   * one had begun, and replies in this cycle's window that answered nothing said (stale).
   */
  lateReplies: number;
  /** Of a late answer: from the utterance's start to when the model got the turn. */
  lateByMs?: number;
  staleReplies: number;
  /** Speech end (fake speaker done) → first loud packet of the reply at the fake Discord. */
  latencyMs: number | null;
  /** Longest silence inside the reply as played (quiet packets or a pause in the stream). */
  innerGapMs: number | null;
  events: SoakEventKind[];
  /** Never heard, and still in the killed core at the kill -9 (heldAtKill). */
  heldAtKill?: boolean;
}

export interface SoakRun {
  provider: BenchProvider;
  model: string;
  cycles: SoakCycle[];
  events: { kind: SoakEventKind; at: number; detail: string }[];
  rotations: number;
  overlapsRefused: number;
  deadlines: number;
  freshSessions: number;
  replayedMs: number;
  coreCpuPercent: number;
  rssStartMb: number;
  rssEndMb: number;
  peakRssMb: number;
  rssSeries: { t_s: number; rss_mb: number }[];
  healthAtEnd: BenchHealth;
  fakeSockets: number;
  kill: SoakKill | null;
  /** Replies the fake began whose socket ended before their first audio (nobody heard them). */
  repliesUnheard: number;
}

interface HeardReply {
  k: number;
  /** Date.now() when the fake model got the user's turn it answers. */
  at: number;
  done: Promise<unknown>;
  /**
   * The fake sent this reply's first audio. The services answer after a first-audio delay
   * (main/fakes/shared/service-timing.ts): a socket that drops inside it ends a reply nobody heard,
   * and the bridge rightly says the unanswered words again on the next socket. Only replies that
   * spoke count as answers (a second one that spoke is a doubled reply).
   */
  spoke(): boolean;
  /** A turn of other speakers only (options.guests): not an answer to the owner. */
  guestOnly: boolean;
}

/**
 * Whether a reply's first audio reached the client: the fake marks it sent even on a socket that had
 * stalled (its socket then sends nothing), so a reply begun after its socket stalled spoke to nobody.
 * Run 9 of the day soak counted the one begun 0.12 s before a stall's first audio and the one the
 * resumed socket gave to the replayed utterance as a doubled reply.
 */
export function firstAudioHeard(firstAudioAt: number | null, socketStalledAt: number | undefined): boolean {
  return firstAudioAt !== null && (socketStalledAt === undefined || firstAudioAt < socketStalledAt);
}

/** The fake model: answers every end of user speech, on every socket of the session. */
class ModelDriver {
  readonly replies: HeardReply[] = [];
  /** Date.now() each stalled socket went silent (by the fake's socket index). */
  readonly stalledAt = new Map<number, number>();
  #waiters: ((reply: HeardReply) => void)[] = [];

  constructor(model: BenchModelFake, guests?: SoakOptions['guests']) {
    // A /say, an /ask or a voice reminder: the service answers a text turn as it answers speech, so
    // the CLI's outcome is the model's (spoken, or cut by someone speaking), not a fake that never
    // answers text ("no reply within 30 s" in short runs 11 and 12). Not an answer to anyone's words:
    // not in `replies`.
    model.onTextTurn?.(
      (turn) =>
        void turn.respond({
          toneMs: TEXT_REPLY_MS,
          chunkMs: 40,
          paceMs: 20,
          transcript: spokenReplyToTurn(turn.text, 'noted'),
          inputTranscript: '',
        }),
    );
    model.onUserTurn((turn) => {
      const ks = guests ? transcribePhrases(turn.pcm, turn.rate) : [];
      guests?.turns.push({ ks, at: Date.now() });
      const k = guests ? (ks.find((c) => c < PHRASES) ?? -1) : transcribePhrase(turn.pcm, turn.rate);
      const guestOnly = guests !== undefined && k === -1 && ks.length > 0;
      if (process.env.SOAK_DEBUG)
        console.error(
          `${new Date().toISOString()} fake model socket ${turn.socket}: turn of ${turn.pcm.length} samples (${turn.endedBy}) transcribed as phrase ${k}`,
        );
      // A stalled socket sends nothing: that reply is never heard, so it does not count as one.
      const replied = turn.respond({
        toneMs: REPLY_MS,
        chunkMs: 40,
        paceMs: 20,
        transcript: `reply to phrase ${k}`,
        inputTranscript: `phrase ${k}`,
      });
      if (!replied) {
        if (process.env.SOAK_DEBUG)
          console.error(`${new Date().toISOString()} socket ${turn.socket} stalled: no reply`);
        return;
      }
      const reply = {
        k,
        at: Date.now(),
        done: replied.done,
        spoke: () => firstAudioHeard(replied.firstAudioSentAt(), this.stalledAt.get(turn.socket)),
        guestOnly,
      };
      this.replies.push(reply);
      if (guestOnly) return;
      for (const waiter of this.#waiters.splice(0)) waiter(reply);
    });
  }

  nextReply(timeoutMs: number): Promise<HeardReply | null> {
    return new Promise((resolve) => {
      const onReply = (reply: HeardReply) => {
        clearTimeout(timer);
        resolve(reply);
      };
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== onReply);
        resolve(null);
      }, timeoutMs);
      this.#waiters.push(onReply);
    });
  }
}

/** Latency and the longest silence inside the reply, from what the fake Discord received. */
function analysePlayback(
  discord: FakeDiscord,
  speechEnd: number,
): { latencyMs: number | null; innerGapMs: number | null } {
  const packets = discord.recorder.packets;
  const pcm = discord.recorder.pcm();
  if (pcm.length !== packets.length * FRAME_VALUES) {
    if (process.env.SOAK_DEBUG)
      console.error('unaligned', pcm.length / FRAME_VALUES, packets.length, discord.recorder.decodeErrors);
    return { latencyMs: null, innerGapMs: null };
  }
  const loud: number[] = [];
  for (let p = 0; p < packets.length; p++) {
    let peak = 0;
    for (let i = p * FRAME_VALUES; i < (p + 1) * FRAME_VALUES; i++) peak = Math.max(peak, Math.abs(pcm[i]!));
    if (peak > LOUD_PEAK && packets[p]!.receivedAt >= speechEnd - 100) loud.push(p);
  }
  if (loud.length === 0) {
    if (process.env.SOAK_DEBUG) console.error('no loud packet', packets.length);
    return { latencyMs: null, innerGapMs: null };
  }
  let gap = 0;
  for (let i = 1; i < loud.length; i++) {
    const quiet = (loud[i]! - loud[i - 1]! - 1) * 20;
    const pause = packets[loud[i]!]!.receivedAt - packets[loud[i - 1]!]!.receivedAt - 20;
    gap = Math.max(gap, quiet, pause >= STREAM_PAUSE_MS ? pause : 0);
  }
  return { latencyMs: packets[loud[0]!]!.receivedAt - speechEnd, innerGapMs: gap };
}

/**
 * Matches the model's transcriptions, in order, to the utterances said: each reply (its phrase `k`
 * and when the fake model got the turn, `at`) answers an utterance already begun by then
 * (`utteranceAt`, Date.now() per utterance) whose phrase is `k`, among the last PHRASES said (one
 * per phrase). Preferred: the latest not yet answered at or after the last one answered (a run of
 * lost utterances is skipped, not filled from behind); then the latest earlier one not yet answered
 * (a late reply); then the latest one already answered (a doubled reply). None: stray.
 * (Matching in order by phrase alone, without the times, could not skip more than two lost
 * utterances: after the day soak's outage it counted the next replies as doubles of the utterances
 * before the gap and the rest of the run as lost.)
 */
export function alignReplies(
  utteranceAt: readonly number[],
  replies: readonly { k: number; at: number }[],
): { counts: number[]; stray: number; answered: (number | null)[]; late: boolean[] } {
  const counts = new Array<number>(utteranceAt.length).fill(0);
  const answered: (number | null)[] = [];
  const late: boolean[] = [];
  let next = 0;
  let stray = 0;
  for (const { k, at } of replies) {
    let spoken = 0;
    while (spoken < utteranceAt.length && utteranceAt[spoken]! <= at) spoken++;
    const said: number[] = [];
    for (let j = spoken - 1; j >= Math.max(0, spoken - PHRASES); j--) if (j % PHRASES === k) said.push(j);
    const j = said.find((c) => c >= next && counts[c] === 0) ?? said.find((c) => counts[c] === 0) ?? said[0];
    answered.push(j ?? null);
    // Late: the speaker had begun a later utterance before the model got this turn (speech held
    // through an outage and handed over after it, answered after what was said since).
    late.push(j !== undefined && j < spoken - 1);
    if (j === undefined) {
      stray++;
      continue;
    }
    counts[j]!++;
    if (j >= next) next = j + 1;
  }
  return { counts, stray, answered, late };
}

/**
 * Per utterance, after the whole run is aligned: replies that answered it late, and replies in its
 * window (from its start to the next one's) that answered nothing said: stale ones.
 */
export function repliesPerUtterance(
  utteranceAt: readonly number[],
  replies: readonly { at: number }[],
  aligned: { answered: readonly (number | null)[]; late: readonly boolean[] },
): { late: number[]; lateByMs: number[]; stale: number[] } {
  const late = new Array<number>(utteranceAt.length).fill(0);
  const lateByMs = new Array<number>(utteranceAt.length).fill(0);
  const stale = new Array<number>(utteranceAt.length).fill(0);
  replies.forEach((reply, r) => {
    const j = aligned.answered[r];
    if (j !== null && j !== undefined) {
      if (aligned.late[r]) {
        late[j]!++;
        lateByMs[j] = Math.max(lateByMs[j]!, reply.at - utteranceAt[j]!);
      }
      return;
    }
    let window = -1;
    while (window + 1 < utteranceAt.length && utteranceAt[window + 1]! <= reply.at) window++;
    if (window >= 0) stale[window]!++;
  });
  return { late, lateByMs, stale };
}

/**
 * Utterances the killed core still held at a kill -9: said before the kill, after the last one the
 * model heard before it, and never heard. Speech held while the model is unreachable (or handed over
 * one per model turn after it is back) lives in the core's memory, so a kill ends it with the process:
 * run 7 of the day soak lost the last two of its outage so, killed 4.6 s after the model was back.
 * Told apart from the losses of a running core (issue #55).
 */
export function heldAtKill(
  utteranceAt: readonly number[],
  replies: readonly { k: number; at: number }[],
  heard: readonly boolean[],
  killAt: number,
): boolean[] {
  const before = utteranceAt.filter((at) => at < killAt);
  const { counts } = alignReplies(
    before,
    replies.filter((r) => r.at < killAt),
  );
  const lastHeard = counts.reduce((last, n, i) => (n > 0 ? i : last), -1);
  return utteranceAt.map((at, i) => at < killAt && i > lastHeard && !heard[i]);
}

/**
 * The fake model a soak talks to. Barge-in is on, as the services' default is
 * (START_OF_ACTIVITY_INTERRUPTS; OpenAI's server VAD `interrupt_response`): with guests, a person
 * often speaks while the model still answers someone else, and a model that cannot be cut off
 * would drop that turn — a loss of the harness, not of the bridge (short run 12's lost words).
 */
export function soakModelOptions(options: Pick<SoakOptions, 'rotateS' | 'deadlineS'>): BenchModelOptions {
  return {
    bargeInRms: BARGE_IN_RMS,
    sessionLifetimeMs: options.rotateS * 1000,
    sessionDeadlineMs: options.deadlineS * 1000,
  };
}

export async function runSoak(options: SoakOptions): Promise<SoakRun> {
  // Only the Gemini adapter watches for a silent socket; a stall on an OpenAI socket would never end.
  if (options.stallEveryS > 0 && options.provider !== 'gemini')
    throw new Error(
      `--stall-every-s: stalls are injected on gemini only (the ${options.provider} adapter has no stall watchdog; docs/providers.md)`,
    );
  const home = mkdtempSync(path.join(tmpdir(), 'lvb-soak-'));
  const random = seededRandom(options.seed);
  // The recorder keeps 30 s: each cycle clears it, and its PCM must stay aligned with its packets.
  const discord = await startFakeDiscord({
    ownerInVoice: true,
    recorder: { maxSeconds: 30 },
    ...(options.extraUsers ? { extraUsers: options.extraUsers } : {}),
  });
  if (options.deadlineS > 0 && options.provider !== 'gemini')
    throw new Error(`--deadline-s: the session deadline is modelled on gemini only`);
  const fake = await startBenchModel(options.provider, soakModelOptions(options));
  const port = await freePort();
  const token = randomBytes(24).toString('hex');
  const base = `http://127.0.0.1:${port}`;
  const env = { ...coreEnv(discord, fake, home, port, token), ...options.coreEnv };
  // As latency-call.ts's startCore: LVB_CORE_NODE_OPTIONS (e.g. `--heapsnapshot-signal=SIGUSR2`) reaches the core.
  if (process.env.LVB_CORE_NODE_OPTIONS) env.NODE_OPTIONS = process.env.LVB_CORE_NODE_OPTIONS;
  // Other voices the model hears must be allowed speakers (otherwise they are listeners, never sent).
  if (options.guests)
    env.DISCORD_VOICE_LIVE_ALLOWED_SPEAKERS = discord.users
      .filter((u) => !u.bot)
      .map((u) => u.id)
      .join(',');
  let { child, output } = startCoreChild(env, home);
  let pid = child.pid!;
  let kill: SoakKill | null = null;
  const events: SoakRun['events'] = [];
  const model = new ModelDriver(fake, options.guests);
  let pendingCause: SoakEventKind | null = null;
  fake.onReplacement((socket, planned) => {
    // A socket that replaces one the service ended on its terms, with no fault injected since, is a planned rotation.
    if (planned && pendingCause === null) events.push({ kind: 'rotation', at: Date.now(), detail: `socket ${socket}` });
    if (planned || pendingCause !== null) pendingCause = null;
  });
  fake.onDeadline(() => {
    pendingCause = 'deadline';
    events.push({ kind: 'deadline', at: Date.now(), detail: 'session deadline: 1011 "Deadline expired"' });
  });
  const timers: NodeJS.Timeout[] = [];
  const every = (seconds: number, fire: (count: number) => void): void => {
    if (seconds <= 0) return;
    let count = 0;
    const schedule = (): void => {
      const delay = seconds * 1000 * (0.8 + 0.4 * random());
      timers.push(
        setTimeout(() => {
          fire(count++);
          schedule();
        }, delay),
      );
    };
    schedule();
  };
  try {
    await waitForSidecar(base, token, child, output);
    await sleep(1000);
    const joined = await getJson(`${base}/join`, token, 'POST');
    if (joined.status !== 200) throw new Error(`POST /join answered ${joined.status}: ${JSON.stringify(joined.body)}`);
    await fake.firstSocket();
    const started = performance.now();
    const end = started + options.minutes * 60_000;

    every(options.dropEveryS, (count) => {
      const target = fake.latestOpen();
      if (!target) return;
      pendingCause = 'drop';
      const abrupt = count % 2 === 0;
      events.push({ kind: 'drop', at: Date.now(), detail: abrupt ? '1006 (no close frame)' : '1011 without warning' });
      if (abrupt) target.drop();
      else target.closeWithError();
    });
    every(options.stallEveryS, () => {
      const target = fake.latestOpen();
      if (!target?.stall) return;
      pendingCause = 'stall';
      model.stalledAt.set(target.index, Date.now());
      events.push({ kind: 'stall', at: Date.now(), detail: `socket ${target.index} goes silent` });
      target.stall();
    });
    every(options.voiceResetEveryS, (count) => {
      const code = count % 2 === 0 ? 4015 : 4006;
      events.push({ kind: 'voiceReset', at: Date.now(), detail: String(code) });
      discord.closeVoice(code);
    });

    const samples: ProcSample[] = [];
    const sampler = setInterval(() => {
      const s = readProc(pid);
      if (s) samples.push(s);
    }, 5000);
    const cycles: SoakCycle[] = [];
    const signals = Array.from({ length: PHRASES }, (_, k) => phraseSignal(k));
    const progress = setInterval(() => {
      const lost = cycles.filter((c) => !c.heard).length;
      options.progress(
        `  ${Math.round((performance.now() - started) / 1000)} s: ${cycles.length} utterances, ${lost} lost, ${events.length} events, core RSS ${samples.at(-1)?.rssMb.toFixed(1) ?? '?'} MB`,
      );
    }, 30_000);
    let from = readProc(pid)!;
    const context: SoakCallContext = {
      base,
      token,
      // The restarted core's after a kill.
      get pid() {
        return pid;
      },
      discord,
      fake,
      random,
      started,
      event: (kind, detail) => void events.push({ kind, at: Date.now(), detail }),
    };
    const extras = options.extras?.(context);
    const killAt = options.killAtS ? started + options.killAtS * 1000 : Infinity;
    // Kill -9 and start again as the tray does (same home, port and token), then join the call again.
    const killAndRestart = async (): Promise<SoakKill> => {
      // The killed call's own notes (by its id), so the restarted call's new ones push none out of the page.
      let callId: string | undefined;
      const notes = async (): Promise<string[]> => {
        const res = await getJson(
          `${base}/notes?limit=500${callId ? `&call=${encodeURIComponent(callId)}` : ''}`,
          token,
        ).catch(() => null);
        const list =
          (res?.body as { notes?: { id?: unknown; ts?: unknown; text?: unknown; callId?: unknown }[] } | undefined)
            ?.notes ?? [];
        callId ??= list.map((n) => n.callId).find((c): c is string => typeof c === 'string');
        return list.map((n) => JSON.stringify([n.id, n.ts, n.text]));
      };
      await notes();
      const before = await notes();
      // Reminders due in the gap are scheduled now; the restart waits until they are due.
      const restartAt = (await extras?.beforeKill?.()) ?? 0;
      const at = Date.now();
      events.push({ kind: 'kill', at, detail: `kill -9 of the core (pid ${pid})` });
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await exited;
      await sleep(Math.max(0, restartAt - Date.now()));
      const sockets = fake.sockets();
      ({ child, output } = startCoreChild(env, home));
      pid = child.pid!;
      await waitForSidecar(base, token, child, output);
      const upAt = Date.now();
      const joined = await getJson(`${base}/join`, token, 'POST').catch(() => null);
      let backAt: number | null = null;
      for (const deadline = Date.now() + 60_000; joined?.status === 200 && Date.now() < deadline; await sleep(200)) {
        if (fake.sockets() > sockets) {
          backAt = Date.now();
          break;
        }
      }
      from = readProc(pid) ?? from;
      const after = new Set(await notes());
      return {
        at,
        upAt,
        backAt,
        callBack: backAt !== null,
        notesBefore: before.length,
        notesMissing: before.filter((n) => !after.has(n)).length,
      };
    };
    let nextQuiet = options.quietEveryS ? started + options.quietEveryS * 1000 * (0.8 + 0.4 * random()) : Infinity;

    for (let n = 0; performance.now() < end - 5000; n++) {
      if (!kill && performance.now() >= killAt) {
        // A restart that fails is reported (callBack false), the call goes on being measured.
        const at = Date.now();
        kill = await killAndRestart().catch((err: unknown) => {
          options.progress(`  the restart after the kill failed: ${err instanceof Error ? err.message : String(err)}`);
          return { at, upAt: null, backAt: null, callBack: false, notesBefore: 0, notesMissing: 0 };
        });
      }
      if (
        extras &&
        performance.now() >= nextQuiet &&
        performance.now() + (options.quietForS ?? 0) * 1000 < end - 10_000
      ) {
        await extras.quiet((options.quietForS ?? 0) * 1000);
        nextQuiet = performance.now() + options.quietEveryS! * 1000 * (0.8 + 0.4 * random());
      }
      const k = n % PHRASES;
      discord.recorder.clear();
      const cycleStart = Date.now();
      const repliesBefore = model.replies.length;
      const replied = model.nextReply(REPLY_TIMEOUT_MS);
      await discord.speak(discord.owner.id, signals[k]!);
      const speechEnd = Date.now();
      const reply = await replied;
      if (reply) {
        await reply.done;
        await sleep(REPLY_MS + 700); // the player plays at real time, behind the model's 2× sending
      }
      const played = reply ? analysePlayback(discord, speechEnd) : { latencyMs: null, innerGapMs: null };
      const mine = model.replies.slice(repliesBefore).filter((r) => r.spoke() && !r.guestOnly);
      const cycleEnd = Date.now();
      cycles.push({
        n,
        at: cycleStart,
        heard: mine.some((r) => r.k === k),
        replies: mine.filter((r) => r.k === k).length,
        strayReplies: mine.filter((r) => r.k !== k).length,
        lateReplies: 0,
        staleReplies: 0,
        ...played,
        events: [...new Set(events.filter((e) => e.at >= cycleStart - 1500 && e.at <= cycleEnd).map((e) => e.kind))],
      });
      await sleep(300 + random() * 1200);
      await options.guests?.between();
    }
    // A reply that arrives after its cycle ended still counts for that utterance (doubled check).
    await sleep(2000);
    const spoken = model.replies.filter((r) => r.spoke() && !r.guestOnly);
    const aligned = alignReplies(
      cycles.map((c) => c.at),
      spoken,
    );
    const perUtterance = repliesPerUtterance(
      cycles.map((c) => c.at),
      spoken,
      aligned,
    );
    cycles.forEach((cycle, i) => {
      cycle.heard = aligned.counts[i]! > 0;
      cycle.replies = aligned.counts[i]!;
      cycle.lateReplies = perUtterance.late[i]!;
      if (perUtterance.late[i]) cycle.lateByMs = perUtterance.lateByMs[i]!;
      cycle.staleReplies = perUtterance.stale[i]!;
    });
    if (kill) {
      const held = heldAtKill(
        cycles.map((c) => c.at),
        spoken,
        cycles.map((c) => c.heard),
        kill.at,
      );
      cycles.forEach((cycle, i) => (cycle.heldAtKill = held[i]!));
    }
    await extras?.stop();
    const to = readProc(pid)!;
    clearInterval(sampler);
    clearInterval(progress);
    const healthAtEnd = await health(base, token);
    await getJson(`${base}/stop`, token);
    const warm = samples.find((s) => s.at - started >= Math.min(60_000, (options.minutes * 60_000) / 5)) ?? from;
    return {
      provider: fake.provider,
      model: fake.model,
      cycles,
      events,
      rotations: events.filter((e) => e.kind === 'rotation').length,
      overlapsRefused: fake.overlapsRefused(),
      deadlines: fake.deadlines(),
      freshSessions: fake.freshSessions(),
      replayedMs: fake.replayedMs(),
      coreCpuPercent: cpuPercent(from, to),
      rssStartMb: warm.rssMb,
      rssEndMb: to.rssMb,
      peakRssMb: to.peakRssMb,
      rssSeries: samples.map((s) => ({
        t_s: Math.round((s.at - started) / 1000),
        rss_mb: Math.round(s.rssMb * 10) / 10,
      })),
      healthAtEnd,
      fakeSockets: fake.sockets(),
      repliesUnheard: model.replies.filter((r) => !r.guestOnly).length - spoken.length,
      kill,
    };
  } finally {
    for (const timer of timers) clearTimeout(timer);
    await stopChild(child);
    await fake.close().catch(() => undefined);
    await discord.close().catch(() => undefined);
    rmSync(home, { recursive: true, force: true });
  }
}

export type { Percentiles };
export { percentiles };
