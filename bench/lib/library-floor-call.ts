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
import { startBenchModel } from './model-fakes.ts';

const FLOOR_SCRIPT = fileURLToPath(new URL('../library-floor.ts', import.meta.url));
const GEMINI_PATH = '/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent';

export interface LibraryFloorResult {
  provider: 'gemini';
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

export async function runLibraryFloorCall(options: { durationMs: number; idleCallMs: number; progress: (line: string) => void; nodeFlags?: readonly string[] }): Promise<LibraryFloorResult> {
  const discord = await startFakeDiscord({ ownerInVoice: true });
  const model = await startBenchModel('gemini', { bargeInRms: BARGE_IN_RMS });
  const modelEnv = model.env();
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
      LVB_FLOOR_MODEL_URL: `${modelEnv.GEMINI_LIVE_BASE_URL!.replace(/^http/, 'ws')}${GEMINI_PATH}?key=${modelEnv.GEMINI_API_KEY}`,
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
      if (child.exitCode !== null || performance.now() > deadline) throw new Error(`library floor did not get ready:\n${output}`);
      await sleep(100);
    }
    const pid = child.pid!;
    const driver = new ReplyDriver(model);
    // A young process's V8 runs its memory reducer's pass (two full GCs) once the allocation rate is
    // low, tens of seconds after start-up (bench/lib/idle-watch.ts): not the floor's cost per call.
    options.progress(`library floor pid ${pid} joined; waits for V8's settling pass (at most 120 s)`);
    const settle = await untilSettled(gcs, startedAt, { maxMs: 120_000 });
    await untilQuiet(pid, { maxMs: 5000 });
    options.progress(`library floor ${settle.settled ? `settled after ${Math.round(settle.waitedMs / 1000)} s` : 'not settled in 120 s'}; nobody speaks for ${options.idleCallMs / 1000} s`);
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
      provider: 'gemini',
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
      fakesProcess: { cpuPercent: (100 * (fakesCpu.user + fakesCpu.system)) / 1000 / (performance.now() - fakesFrom.at) },
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
  "the least any Discord ↔ Gemini Live bridge built on these libraries can cost: bench/library-floor.ts, a bare script on @discordjs/voice (DAVE on), @discordjs/opus, prism-media and ws with none of our logic (naive L+R average and 3:1 decimation to 16 kHz, 100 ms realtimeInput messages, audioStreamEnd when the library's receive stream ends after 100 ms of silence; the model's 24 kHz doubled to 48 kHz stereo into the library's raw-PCM player, stopped on interrupted), on the same fake Discord call and fake Gemini as a provider row, driven by the same owner script and replies, for the same duration; cpuPercent = the floor process's CPU (utime + stime from /proc, all threads) over the call, % of one core, the fakes in the bench's process; rssMb = the floor process's VmRSS at the call's end (the provider rows' core: rssMaxMb / rssEndMb); seconds = the measured call's length; loadAvg1m = the machine's 1-minute load as the floor's call began and ended (it runs after the provider calls); cpuVsFloor in each provider row = coreCpuCallPercent / cpuPercent (target ≤ 1.5; the OpenAI rows too, though their model side differs: 24 kHz input, other events); profile (with --profile): a --cpu-prof of a Gemini core call and of a floor call, each over its talking part, busy main-thread samples by owner (ours = files under main/, library = npm package, node = Node's own JS, v8 = GC and (program)) and the largest entries";

export interface FloorProfile {
  core: ProfileSplit;
  floor: ProfileSplit;
  /** The profiled runs' CPU (% of one core, /proc; the profiler adds its own). */
  coreCpuPercent: number;
  floorCpuPercent: number;
}

/** One profiled Gemini core call and one profiled floor call (bench:latency --profile), split by owner. */
export async function profileAgainstFloor(options: { durationMs: number; idleMs: number; idleCallMs: number; progress: (line: string) => void }): Promise<FloorProfile> {
  const dir = mkdtempSync(path.join(tmpdir(), 'lvb-floor-prof-'));
  try {
    const coreDir = path.join(dir, 'core');
    const floorDir = path.join(dir, 'floor');
    const prof = (out: string) => ['--cpu-prof', `--cpu-prof-dir=${out}`, '--cpu-prof-interval=500'];
    options.progress('profiling a Gemini core call (--cpu-prof) …');
    const call = await runBenchCall({ ...options, provider: 'gemini', nodeFlags: [...CORE_NODE_FLAGS, ...prof(coreDir)] });
    options.progress('profiling a library floor call (--cpu-prof) …');
    const floor = await runLibraryFloorCall({ durationMs: options.durationMs, idleCallMs: options.idleCallMs, progress: options.progress, nodeFlags: prof(floorDir) });
    const only = (d: string): string => path.join(d, readdirSync(d).find((f) => f.endsWith('.cpuprofile')) ?? '');
    return { core: splitProfile(only(coreDir), call.callWindowUs), floor: splitProfile(only(floorDir), floor.callWindowUs), coreCpuPercent: call.core.callCpuPercent, floorCpuPercent: floor.cpuPercent };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
