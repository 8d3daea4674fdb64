// The library floor's call (issue 51 item 6): the same fake Discord call (DAVE on) and the same fake
// Gemini as a provider row of bench:latency, driven by the same owner script and reply driver
// (bench/lib/latency-call.ts), with bench/library-floor.ts in the core's place: the fakes in this
// process, the floor script in a child, so its CPU and RSS from /proc are its own.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startFakeDiscord } from '../../main/fakes/discord/index.ts';
import { CORE_NODE_FLAGS } from '../../main/core/core-node-flags.ts';
import { splitProfile, type ProfileSplit } from './cpu-profile-split.ts';
import { GcLog, untilSettled } from './idle-watch.ts';
import { BARGE_IN_RMS, monotonicUs, ownerScript, ReplyDriver, runBenchCall, stopChild } from './latency-call.ts';
import { cpuPercent, cpuWindows, readProc, untilQuiet, type ProcSample } from './latency-proc.ts';
import { modelledFirstAudioMs } from './latency-turn.ts';
import { startBenchModel, type BenchProvider } from './model-fakes.ts';

const FLOOR_SCRIPT = fileURLToPath(new URL('../library-floor.ts', import.meta.url));
const GEMINI_PATH = '/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent';
const ws = (url: string): string => url.replace(/^http/, 'ws').replace(/\/$/, '');

/** The floor's socket to the provider's fake, from the env the bench gives a core (bench/lib/model-fakes.ts). */
export function floorModelUrl(
  provider: BenchProvider,
  env: Readonly<Record<string, string>>,
  model: string,
): { url: string; key: string } {
  if (provider === 'gemini')
    return {
      url: `${ws(env.GEMINI_LIVE_BASE_URL!)}${GEMINI_PATH}?key=${env.GEMINI_API_KEY}`,
      key: env.GEMINI_API_KEY!,
    };
  if (provider === 'openai-realtime')
    return {
      url: `${ws(env.OPENAI_REALTIME_BASE_URL!)}/realtime?model=${encodeURIComponent(model)}`,
      key: env.OPENAI_API_KEY!,
    };
  return { url: `${ws(env.OPENAI_LIVE_BASE_URL!)}/live/sessions`, key: env.OPENAI_API_KEY! };
}

export interface LibraryFloorResult {
  provider: BenchProvider;
  model: string;
  /** CPU of the floor process (all threads) over the call, % of one core (utime + stime from /proc). */
  cpuPercent: number;
  cpuMs: number;
  cpuWindows10sPercent: number[];
  cpuWorst10sPercent: number | null;
  /** Joined, nobody speaking, the model silent (the library's player idle). */
  idleCallCpuPercent: number;
  rssMb: number;
  utterances: number;
  replies: number;
  repliesCompleted: number;
  bargeInsAtModel: number;
  /** V8's settling pass was over before the call (false: not seen within 120 s of start-up). */
  settledBeforeCall: boolean;
  /** Voice packets the fake Discord received from the floor in the call (its player's output). */
  packetsToDiscord: number;
  fakesProcess: { cpuPercent: number };
  /** The talking part of the call on the monotonic clock (monotonicUs), for a CPU profile's window. */
  callWindowUs: [number, number];
  /** Length of the measured call, s (the provider rows' call length). */
  seconds: number;
  /**
   * The machine's 1-minute load average as the floor's call began and ended: the floor runs after
   * the provider calls, so on a shared machine its load can differ from theirs (machine.load_avg_*).
   */
  loadAvg1m: { before: number; after: number };
}

export async function runLibraryFloorCall(options: {
  provider?: BenchProvider;
  durationMs: number;
  idleCallMs: number;
  progress: (line: string) => void;
  nodeFlags?: readonly string[];
}): Promise<LibraryFloorResult> {
  const provider = options.provider ?? 'gemini';
  const discord = await startFakeDiscord({ ownerInVoice: true });
  const model = await startBenchModel(provider, { bargeInRms: BARGE_IN_RMS });
  const socket = floorModelUrl(provider, model.env(), model.model);
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), FLOOR_SCRIPT], {
    cwd: path.dirname(FLOOR_SCRIPT),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      NODE_EXTRA_CA_CERTS: discord.caPath,
      LVB_FLOOR_GATEWAY: discord.gatewayUrl,
      LVB_FLOOR_TOKEN: discord.botToken,
      LVB_FLOOR_GUILD: discord.guildId,
      LVB_FLOOR_CHANNEL: discord.voiceChannelId,
      LVB_FLOOR_OWNER: discord.owner.id,
      LVB_FLOOR_PROVIDER: provider,
      LVB_FLOOR_MODEL_URL: socket.url,
      LVB_FLOOR_KEY: socket.key,
      LVB_FLOOR_MODEL: model.model,
    },
  });
  const startedAt = performance.now();
  const gcs = new GcLog(child.stdout);
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  child.stderr.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  try {
    const deadline = performance.now() + 30_000;
    while (!output.includes('READY')) {
      if (child.exitCode !== null || performance.now() > deadline)
        throw new Error(`library floor did not get ready:\n${output}`);
      await sleep(100);
    }
    const pid = child.pid!;
    const driver = new ReplyDriver(model);
    // A young process's V8 runs its memory reducer's pass (two full GCs) once the allocation rate is
    // low, tens of seconds after start-up (bench/lib/idle-watch.ts): not the floor's cost per call.
    options.progress(`library floor pid ${pid} joined; waits for V8's settling pass (at most 120 s)`);
    const settle = await untilSettled(gcs, startedAt, { maxMs: 120_000 });
    await untilQuiet(pid, { maxMs: 5000 });
    options.progress(
      `library floor ${settle.settled ? `settled after ${Math.round(settle.waitedMs / 1000)} s` : 'not settled in 120 s'}; nobody speaks for ${options.idleCallMs / 1000} s`,
    );
    const idleFrom = readProc(pid)!;
    await sleep(options.idleCallMs);
    const idleTo = readProc(pid)!;
    const packetsBefore = discord.recorder.packets.length;
    const samples: ProcSample[] = [];
    const sampler = setInterval(() => {
      const s = readProc(pid);
      if (s) samples.push(s);
    }, 1000);
    const loadBefore = loadavg()[0]!;
    const callFrom = readProc(pid)!;
    const callFromUs = monotonicUs();
    const fakesFrom = { cpu: process.cpuUsage(), at: performance.now() };
    options.progress(`the owner talks for ${options.durationMs / 1000} s (library floor)`);
    const script = ownerScript(discord, driver, callFrom.at + options.durationMs, modelledFirstAudioMs(model.provider));
    await sleep(Math.max(0, callFrom.at + options.durationMs - performance.now()));
    const callTo = readProc(pid)!;
    const callWindowUs: [number, number] = [callFromUs, monotonicUs()];
    const fakesCpu = process.cpuUsage(fakesFrom.cpu);
    clearInterval(sampler);
    const utterances = await script;
    const windows = cpuWindows(callFrom, samples, callTo);
    return {
      provider,
      model: model.model,
      cpuPercent: cpuPercent(callFrom, callTo),
      cpuMs: callTo.cpuMs - callFrom.cpuMs,
      cpuWindows10sPercent: windows,
      cpuWorst10sPercent: windows.length ? Math.max(...windows) : null,
      idleCallCpuPercent: cpuPercent(idleFrom, idleTo),
      rssMb: callTo.rssMb,
      utterances,
      replies: driver.turns.length,
      repliesCompleted: driver.turns.filter((t) => t.outcome === 'complete').length,
      bargeInsAtModel: driver.turns.filter((t) => t.outcome === 'interrupted').length,
      packetsToDiscord: discord.recorder.packets.length - packetsBefore,
      settledBeforeCall: settle.settled,
      fakesProcess: {
        cpuPercent: (100 * (fakesCpu.user + fakesCpu.system)) / 1000 / (performance.now() - fakesFrom.at),
      },
      callWindowUs,
      seconds: (callTo.at - callFrom.at) / 1000,
      loadAvg1m: { before: loadBefore, after: loadavg()[0]! },
    };
  } finally {
    await stopChild(child);
    await model.close().catch(() => undefined);
    await discord.close().catch(() => undefined);
  }
}

/** What `libraryFloor` in bench/results/latency.json says each field is. */
export const LIBRARY_FLOOR_DEFINITION =
  "the least any Discord ↔ live model bridge built on these libraries can cost: bench/library-floor.ts, a bare script on @discordjs/voice (DAVE on), @discordjs/opus, prism-media and ws with none of our logic (bench/lib/library-floor-pcm.ts: L+R averaged and decimated without a filter to the provider's input rate, 3:1 to Gemini's 16 kHz, 2:1 to OpenAI's 24 kHz; bench/lib/library-floor-models.ts: 100 ms audio messages of the provider's protocol, the end of the user's audio when the library's receive stream ends after 100 ms of silence — Gemini audioStreamEnd, OpenAI paced digital silence for the service's detector —, the model's 24 kHz doubled to 48 kHz stereo into the library's raw-PCM player, stopped on the service's barge-in signal), on the same fake Discord call and the same provider's fake as a provider row, driven by the same owner script and replies, for the same duration; one floor per provider of the run (perProvider; the fields at the top are Gemini's); cpuPercent = the floor process's CPU (utime + stime from /proc/<pid>/stat, all threads) over the call, % of one core, read as coreCpuCallPercent is for the core, the fakes in the bench's process; rssMb = the floor process's VmRSS at the call's end (the core's: rssEndMb); seconds = the measured call's length; loadAvg1m = the machine's 1-minute load as that floor's call began and ended (the floors run after the provider calls); cpuVsFloor in each provider row = coreCpuCallPercent / the cpuPercent of the floor on floorProvider (the row's own provider when its floor ran; target ≤ 1.5); profile (with --profile): a --cpu-prof of a Gemini core call and of a Gemini floor call, each over its talking part, busy main-thread samples by owner (ours = files under main/, library = npm package, node = Node's own JS, v8 = GC and (program)) and the largest entries";

export interface FloorProfile {
  core: ProfileSplit;
  floor: ProfileSplit;
  /** The profiled runs' CPU (% of one core, /proc; the profiler adds its own). */
  coreCpuPercent: number;
  floorCpuPercent: number;
}

/** One profiled Gemini core call and one profiled floor call (bench:latency --profile), split by owner. */
export async function profileAgainstFloor(options: {
  durationMs: number;
  idleMs: number;
  idleCallMs: number;
  progress: (line: string) => void;
}): Promise<FloorProfile> {
  const dir = mkdtempSync(path.join(tmpdir(), 'lvb-floor-prof-'));
  try {
    const coreDir = path.join(dir, 'core');
    const floorDir = path.join(dir, 'floor');
    const prof = (out: string) => ['--cpu-prof', `--cpu-prof-dir=${out}`, '--cpu-prof-interval=500'];
    options.progress('profiling a Gemini core call (--cpu-prof) …');
    const call = await runBenchCall({
      ...options,
      provider: 'gemini',
      nodeFlags: [...CORE_NODE_FLAGS, ...prof(coreDir)],
    });
    options.progress('profiling a library floor call (--cpu-prof) …');
    const floor = await runLibraryFloorCall({
      durationMs: options.durationMs,
      idleCallMs: options.idleCallMs,
      progress: options.progress,
      nodeFlags: prof(floorDir),
    });
    const only = (d: string): string => path.join(d, readdirSync(d).find((f) => f.endsWith('.cpuprofile')) ?? '');
    return {
      core: splitProfile(only(coreDir), call.callWindowUs),
      floor: splitProfile(only(floorDir), floor.callWindowUs),
      coreCpuPercent: call.core.callCpuPercent,
      floorCpuPercent: floor.cpuPercent,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
