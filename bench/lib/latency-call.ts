// The latency benchmark's simulated call. The fake Discord and the fake live model (Gemini, OpenAI
// Realtime or GPT-Live: bench/lib/model-fakes.ts) run in THIS process;
// the core runs in a CHILD process started exactly as a user starts it (`npm run headless`: the
// compiled `node dist/main/cli.js headless`),
// so the child's CPU time and RSS (read from /proc) are the core's alone and not mixed with the
// fakes' Opus encoding/decoding. The env block mirrors main/demo/simulated-call.ts (which starts the
// core in-process and so cannot be used here).
//
// The fake model's replies are driven from here rather than by its autoReply, so each reply's start
// and its barge-in are timestamped where they happen; that gives the wire-level figures beside the
// core's own egress and barge-in histograms (bench/lib/latency-wire.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { DEMO_MODEL_REPLY, speechLikeSignal } from '../../main/demo/simulated-call.ts';
import { seededRandom, startFakeDiscord, type FakeDiscord } from '../../main/fakes/discord/index.ts';
import { ensureBuilt } from '../../scripts/lib/core-build.mjs';
import {
  startBenchModel,
  type BenchModelFake,
  type BenchModelOptions,
  type BenchProvider,
  type BenchReply,
} from './model-fakes.ts';
import { CORE_NODE_FLAGS } from '../../main/core/core-node-flags.ts';
import { cpuPercent, cpuWindows, readProc, untilQuiet, type ProcSample } from './latency-proc.ts';
import { modelledFirstAudioMs, TurnClock, turnLatencies, type TurnLatencies, type TurnTiming } from './latency-turn.ts';
import { wireLatencies, type WireResult } from './latency-wire.ts';
import { voicedReply } from './speech-like.ts';

/** The TypeScript source: Node's type stripper (WebAssembly) then stays resident in the core. */
export const SOURCE_CLI = fileURLToPath(new URL('../../main/cli.ts', import.meta.url));
/**
 * The compiled CLI, what every launcher runs (`npm run headless`, the Quick start's demo, the desktop
 * app, an installed package); compiled here first when main/ changed (scripts/lib/core-build.mjs).
 */
export const BUILT_CLI = fileURLToPath(new URL('../../dist/main/cli.js', import.meta.url));
/** LVB_BENCH_CORE=source runs the TypeScript source instead (to compare). */
const CLI = process.env.LVB_BENCH_CORE === 'source' ? SOURCE_CLI : BUILT_CLI;

/** What the fake model says per reply (24 kHz tone), sent at its default 2× real time. */
export const REPLY_MS = 3000;
/** Incoming RMS that makes the fake model stop (the speech-like signal is ≈ 1500-2000 RMS at 16 kHz). */
export const BARGE_IN_RMS = 800;
/** Owner utterance lengths, cycled (seconds). */
const UTTERANCES = [1.6, 2.2, 1.9, 2.5, 1.5, 2.0];
/**
 * After the sidecar answers: start-up work settled. Also past the opt-in idle memory trim (5 s after
 * the last request) of a core started with --expose-gc; the launchers' flags (core-node-flags.ts)
 * leave it off, so by default none runs.
 */
export const IDLE_SETTLE_MS = 6500;

const latencySchema = z.object({
  count: z.number(),
  p50_ms: z.number().nullable(),
  p95_ms: z.number().nullable(),
  p99_ms: z.number().nullable(),
});
const healthSchema = z.object({
  bridge: z.object({ state: z.string() }),
  audio: z.object({ opus: z.object({ impl: z.enum(['native', 'wasm']), library: z.string(), reason: z.string() }) }),
  metrics: z
    .object({
      frames_in: z.number(),
      frames_out: z.number(),
      bytes_to_model: z.number(),
      bytes_from_model: z.number(),
      dropped_frames: z.number(),
      reconnects: z.number(),
      interrupts: z.number(),
      barge_in_holds: z.number(),
      barge_in_holds_released: z.number(),
      ingress_latency: latencySchema,
      egress_latency: latencySchema,
      barge_in_latency: latencySchema,
    })
    .passthrough(),
  memory: z.object({ rss_mb: z.number(), heap_used_mb: z.number() }),
});
export type BenchHealth = z.infer<typeof healthSchema>;

export interface CallRunOptions {
  /** Which live model carries the call (its fake is started here). Default gemini. */
  provider?: BenchProvider;
  durationMs: number;
  /** Idle window of the started core before the call (its CPU baseline). */
  idleMs: number;
  /** Window in the call, after join, in which nobody speaks and the model is silent. */
  idleCallMs: number;
  progress: (line: string) => void;
  /** The core's start-up options (default: the launchers', CORE_NODE_FLAGS); e.g. with --cpu-prof for a profile. */
  nodeFlags?: readonly string[];
}

/** Now on the monotonic clock V8's CPU profiles use, µs (bench/lib/cpu-profile-split.ts). */
export const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

type Turn = BenchReply;

export interface CallRunResult {
  provider: BenchProvider;
  model: string;
  opus: string | null;
  utterances: number;
  replies: number;
  repliesCompleted: number;
  bargeInsAtModel: number;
  healthAt20s: BenchHealth | null;
  healthAtEnd: BenchHealth;
  core: {
    pid: number;
    idleCpuPercent: number;
    /** In the call, nobody speaking, the model silent. */
    idleCallCpuPercent: number;
    callCpuPercent: number;
    callCpuMs: number;
    /** The same from 60 s into the call to its end (past start-up and JIT warm-up); null for calls ≤ 120 s. */
    callCpuAfter60sPercent: number | null;
    /** The call's CPU per consecutive 10 s window (cpuWindows), and the worst of them. */
    callCpuWindows10sPercent: number[];
    callCpuWorst10sPercent: number | null;
    rssIdleMb: number;
    /** When the idle reading began, ms after the sidecar first answered (IDLE_SETTLE_MS, then until quiet). */
    idleSettledAfterMs: number;
    /** VmHWM just before the call: tells a start-up peak from one during the call. */
    peakRssBeforeCallMb: number;
    rssAt20sMb: number | null;
    rssAtEndMb: number;
    peakRssMb: number;
    /** Highest RSS sampled (1 s) during the idle call and the call. */
    rssMaxMb: number;
    rssSeries: { t_s: number; rss_mb: number }[];
  };
  fakesProcess: { cpuPercent: number; rssMb: number };
  /** Egress and barge-in on the wire (bench/lib/latency-wire.ts). */
  wire: WireResult;
  /** End of speech → the service's end of turn → first reply audio (bench/lib/latency-turn.ts). */
  turn: TurnLatencies;
  /** The talking part of the call on the monotonic clock (monotonicUs), for a CPU profile's window. */
  callWindowUs: [number, number];
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export function coreEnv(
  discord: FakeDiscord,
  model: BenchModelFake,
  home: string,
  port: number,
  token: string,
): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    HERMES_HOME: home,
    // The fake voice gateway is wss:// signed by a throw-away CA (main/fakes/discord/tls.ts).
    NODE_EXTRA_CA_CERTS: discord.caPath,
    DISCORD_BOT_TOKEN: discord.botToken,
    DISCORD_API_BASE_URL: discord.apiBaseUrl,
    DISCORD_VOICE_LIVE_USER_ID: discord.owner.id,
    DISCORD_VOICE_LIVE_TEXT_CHANNEL_ID: discord.textChannelId,
    DISCORD_VOICE_LIVE_PROVIDER: model.provider,
    ...model.env(),
    DISCORD_VOICE_LIVE_PORT: String(port),
    DISCORD_VOICE_LIVE_SIDECAR_TOKEN: token,
    DISCORD_VOICE_LIVE_LOG_LEVEL: 'warn',
    // LVB_BENCH_INPUT_CHUNK_MS: the core's input chunk for an A/B run (the bridge's turn share is up to one chunk).
    ...(process.env.LVB_BENCH_INPUT_CHUNK_MS
      ? { DISCORD_VOICE_LIVE_INPUT_CHUNK_MS: process.env.LVB_BENCH_INPUT_CHUNK_MS }
      : {}),
  };
}

/**
 * Drives the fake model: answers each end of user speech with a reply at once (the fake holds its
 * first audio for the service's modelled delay after its end of turn: bench/lib/latency-turn.ts),
 * records when it started and ended.
 */
export class ReplyDriver {
  readonly turns: Turn[] = [];
  /** The user turn each of `turns` answers (null: the service cut the owner mid-utterance). */
  readonly answered: (TurnTiming | null)[] = [];
  readonly clock = new TurnClock();
  /** The model's voice: speech-like, not a tone (bench/lib/speech-like.ts voicedReply). */
  readonly #voice = voicedReply(REPLY_MS);
  #waiters: ((turn: Turn) => void)[] = [];

  constructor(model: BenchModelFake) {
    model.onUserTurn((userTurn) => {
      const timing = this.clock.turnEnded(Date.now(), userTurn.serviceQuietMs);
      const turn = userTurn.respond({
        toneMs: REPLY_MS,
        pcm: this.#voice,
        transcript: DEMO_MODEL_REPLY,
        inputTranscript: '(owner speech)',
      });
      if (!turn) return;
      this.turns.push(turn);
      this.answered.push(timing);
      for (const waiter of this.#waiters.splice(0)) waiter(turn);
    });
  }

  nextReply(timeoutMs: number): Promise<Turn | null> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== onTurn);
        resolve(null);
      }, timeoutMs);
      const onTurn = (turn: Turn) => {
        clearTimeout(timer);
        resolve(turn);
      };
      this.#waiters.push(onTurn);
    });
  }
}

/**
 * The owner's script: utterances of 1.5-2.5 s; two replies in three are barged into 450-850 ms
 * after their first audio (the fake's modelled delay after the turn end, when the driver answered),
 * the third is heard to its end, then a pause.
 */
export async function ownerScript(
  discord: FakeDiscord,
  driver: ReplyDriver,
  until: number,
  firstAudioDelayMs: number,
): Promise<number> {
  const random = seededRandom(6);
  const signals = UTTERANCES.map((s) => speechLikeSignal(s));
  let utterances = 0;
  for (let k = 0; performance.now() < until - 4500; k++) {
    const replyStarts = driver.nextReply(6000);
    const signal = signals[k % signals.length]!;
    await discord.speak(discord.owner.id, signal, driver.clock.utterance(signal));
    utterances++;
    const turn = await replyStarts;
    if (!turn) continue;
    if (k % 3 !== 2) {
      await sleep(firstAudioDelayMs + 450 + random() * 400);
      continue;
    }
    await turn.done;
    const sendingMs = (turn.endedAt ?? Date.now()) - turn.startedAt;
    await sleep(Math.max(0, REPLY_MS - sendingMs) + 600 + random() * 600);
  }
  return utterances;
}

export async function getJson(url: string, token: string, method = 'GET'): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { method, headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: await res.json().catch(() => null) };
}

export async function health(base: string, token: string): Promise<BenchHealth> {
  return healthSchema.parse((await getJson(`${base}/health`, token)).body);
}

/** `nodeFlags`: the core's start-up options, by default those every launcher passes (core-node-flags.ts). */
export function startCoreChild(
  env: NodeJS.ProcessEnv,
  cwd: string,
  cli = CLI,
  nodeFlags: readonly string[] = CORE_NODE_FLAGS,
): { child: ChildProcess; output: () => string } {
  if (cli === BUILT_CLI && !ensureBuilt()) throw new Error('could not compile the core into dist/ (tsc output above)');
  const child = spawn(process.execPath, [...nodeFlags, cli, 'headless'], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  // LVB_CORE_LOG=file: the core's whole output is kept there too (to trace a soak's losses).
  const log = process.env.LVB_CORE_LOG ? createWriteStream(process.env.LVB_CORE_LOG, { flags: 'a' }) : null;
  const keep = (chunk: Buffer) => {
    log?.write(chunk);
    tail = (tail + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, output: () => tail };
}

export async function waitForSidecar(
  base: string,
  token: string,
  child: ChildProcess,
  output: () => string,
): Promise<void> {
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`core exited (${child.exitCode}) before its sidecar answered:\n${output()}`);
    const ok = await health(base, token).then(
      () => true,
      () => false,
    );
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`core sidecar did not answer within 30 s:\n${output()}`);
}

export async function stopChild(child: ChildProcess): Promise<void> {
  // A child ended by a signal (a kill -9) has no exit code, only its signal: it exited all the same.
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timeout = sleep(5000).then(() => 'timeout' as const);
  if ((await Promise.race([exited, timeout])) === 'timeout') {
    child.kill('SIGKILL');
    await exited;
  }
}

export interface BenchCore {
  discord: FakeDiscord;
  model: BenchModelFake;
  base: string;
  token: string;
  pid: number;
  health(): Promise<BenchHealth>;
  request(route: string, method?: string): Promise<{ status: number; body: unknown }>;
  close(): Promise<void>;
}

/**
 * The fakes in this process, the core in a child (`node dist/main/cli.js headless`), its sidecar answering.
 * `extraUsers` become members of the guild who may speak (DISCORD_VOICE_LIVE_ALLOWED_SPEAKERS).
 * LVB_CORE_NODE_OPTIONS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) is passed to the core for profiling.
 */
export async function startBenchCore(
  options: {
    provider?: BenchProvider;
    extraUsers?: string[];
    bargeInRms?: number;
    cli?: string;
    env?: Record<string, string>;
    nodeFlags?: readonly string[];
    transcribe?: BenchModelOptions['transcribe'];
  } = {},
): Promise<BenchCore> {
  const home = mkdtempSync(path.join(tmpdir(), 'lvb-bench-'));
  const discord = await startFakeDiscord({
    ownerInVoice: true,
    ...(options.extraUsers ? { extraUsers: options.extraUsers } : {}),
  });
  const model = await startBenchModel(options.provider ?? 'gemini', {
    bargeInRms: options.bargeInRms ?? BARGE_IN_RMS,
    ...(options.transcribe ? { transcribe: options.transcribe } : {}),
  });
  const port = await freePort();
  const token = randomBytes(24).toString('hex');
  const base = `http://127.0.0.1:${port}`;
  const env = coreEnv(discord, model, home, port, token);
  if (options.extraUsers)
    env.DISCORD_VOICE_LIVE_ALLOWED_SPEAKERS = discord.users
      .filter((u) => !u.bot)
      .map((u) => u.id)
      .join(',');
  if (process.env.LVB_CORE_NODE_OPTIONS) env.NODE_OPTIONS = process.env.LVB_CORE_NODE_OPTIONS;
  Object.assign(env, options.env);
  const { child, output } = startCoreChild(env, home, options.cli, options.nodeFlags);
  const close = async (): Promise<void> => {
    await stopChild(child);
    await model.close().catch(() => undefined);
    await discord.close().catch(() => undefined);
    rmSync(home, { recursive: true, force: true });
  };
  try {
    await waitForSidecar(base, token, child, output);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    discord,
    model,
    base,
    token,
    pid: child.pid!,
    health: () => health(base, token),
    request: (route, method = 'GET') => getJson(`${base}${route}`, token, method),
    close,
  };
}

export async function runBenchCall(options: CallRunOptions): Promise<CallRunResult> {
  const core = await startBenchCore({
    provider: options.provider ?? 'gemini',
    ...(options.nodeFlags ? { nodeFlags: options.nodeFlags } : {}),
  });
  const { discord, model, base, token, pid } = core;
  try {
    options.progress(`core pid ${pid} on ${base}; settles, then idle ${options.idleMs / 1000} s for a CPU baseline`);
    // Let start-up work (bot login, module JIT) settle: the core's real idle state (with --expose-gc
    // its opt-in idle trim, main/core/idle-memory-trim.ts, would have run 5 s after the last request).
    await sleep(IDLE_SETTLE_MS);
    const settleQuietMs = await untilQuiet(pid);
    const idleFrom = readProc(pid)!;
    await sleep(options.idleMs);
    const idleTo = readProc(pid)!;

    const joined = await getJson(`${base}/join`, token, 'POST');
    if (joined.status !== 200) throw new Error(`POST /join answered ${joined.status}: ${JSON.stringify(joined.body)}`);
    const driver = new ReplyDriver(model);
    await model.firstSocket();
    const samples: ProcSample[] = [];
    const sampler = setInterval(() => {
      const s = readProc(pid);
      if (s) samples.push(s);
    }, 1000);
    options.progress(`call connected; nobody speaks for ${options.idleCallMs / 1000} s (idle call)`);
    await sleep(1000); // the join's own work (voice handshake, session set-up) settles
    const idleCallFrom = readProc(pid)!;
    await sleep(options.idleCallMs);
    const idleCallTo = readProc(pid)!;

    const callFrom = readProc(pid)!;
    const callFromUs = monotonicUs();
    const fakesFrom = { cpu: process.cpuUsage(), at: performance.now() };
    options.progress(`the owner talks for ${options.durationMs / 1000} s`);
    let healthAt20s: BenchHealth | null = null;
    const at20 = setTimeout(
      () =>
        void health(base, token).then(
          (h) => (healthAt20s = h),
          () => undefined,
        ),
      20_000,
    );
    const progress = setInterval(
      () =>
        options.progress(
          `  ${Math.round((performance.now() - callFrom.at) / 1000)} s: ${driver.turns.length} replies, ${driver.turns.filter((t) => t.outcome === 'interrupted').length} barged into`,
        ),
      15_000,
    );

    const script = ownerScript(discord, driver, callFrom.at + options.durationMs, modelledFirstAudioMs(model.provider));
    await sleep(Math.max(0, callFrom.at + options.durationMs - performance.now()));
    const callTo = readProc(pid)!;
    const callWindowUs: [number, number] = [callFromUs, monotonicUs()];
    const fakesCpu = process.cpuUsage(fakesFrom.cpu);
    const fakesPercent = (100 * (fakesCpu.user + fakesCpu.system)) / 1000 / (performance.now() - fakesFrom.at);
    clearInterval(sampler);
    clearInterval(progress);
    clearTimeout(at20);
    const utterances = await script;
    await Promise.all(driver.turns.map((t) => t.done));
    // Let the last reply play out (and its egress/barge-in samples land) before reading the histograms.
    const lastStart = driver.turns.at(-1)?.startedAt ?? 0;
    await sleep(Math.max(300, lastStart + modelledFirstAudioMs(model.provider) + REPLY_MS + 400 - Date.now()));
    const healthAtEnd = await health(base, token);
    await getJson(`${base}/stop`, token);

    const windows = cpuWindows(callFrom, samples, callTo);
    const wire = wireLatencies(discord.recorder.packets, discord.recorder.pcm(), driver.turns, driver.clock.onsets);
    const sampleNear = (seconds: number) => samples.find((s) => s.at - callFrom.at >= seconds * 1000 - 500) ?? null;
    return {
      provider: model.provider,
      model: model.model,
      opus: healthAtEnd.audio.opus.library,
      utterances,
      replies: driver.turns.length,
      repliesCompleted: driver.turns.filter((t) => t.outcome === 'complete').length,
      bargeInsAtModel: driver.turns.filter((t) => t.outcome === 'interrupted').length,
      healthAt20s,
      healthAtEnd,
      core: {
        pid,
        idleCpuPercent: cpuPercent(idleFrom, idleTo),
        idleCallCpuPercent: cpuPercent(idleCallFrom, idleCallTo),
        callCpuPercent: cpuPercent(callFrom, callTo),
        callCpuMs: callTo.cpuMs - callFrom.cpuMs,
        callCpuAfter60sPercent: options.durationMs > 120_000 ? cpuPercent(sampleNear(60) ?? callFrom, callTo) : null,
        callCpuWindows10sPercent: windows,
        callCpuWorst10sPercent: windows.length ? Math.max(...windows) : null,
        rssIdleMb: idleTo.rssMb,
        idleSettledAfterMs: IDLE_SETTLE_MS + settleQuietMs,
        peakRssBeforeCallMb: idleTo.peakRssMb,
        rssAt20sMb: sampleNear(20)?.rssMb ?? null,
        rssAtEndMb: callTo.rssMb,
        peakRssMb: callTo.peakRssMb,
        rssMaxMb: Math.max(idleCallFrom.rssMb, callTo.rssMb, ...samples.map((x) => x.rssMb)),
        rssSeries: samples.map((s) => ({
          t_s: Math.round((s.at - callFrom.at) / 100) / 10,
          rss_mb: Math.round(s.rssMb * 10) / 10,
        })),
      },
      fakesProcess: { cpuPercent: fakesPercent, rssMb: process.memoryUsage().rss / 1048576 },
      wire,
      turn: turnLatencies(model.provider, driver.clock, driver.answered, wire.firstAudioAt),
      callWindowUs,
    };
  } finally {
    await core.close();
  }
}
