// Many speakers at once (bench:latency --speakers N): N fake users in the bot's voice channel talk
// continuously for the whole window, the fakes in this process, the core in its own child. Counted
// at both ends: packets the fakes sent, frames the core decoded (GET /health frames_in), frames its
// mixer dropped (dropped_frames, queue full), and the core's ingress latency under that load.
import { setTimeout as sleep } from 'node:timers/promises';
import { speechLikeSignal } from '../../main/demo/simulated-call.ts';
import { startBenchCore } from './latency-call.ts';
import { cpuPercent, readProc, type ProcSample } from './latency-proc.ts';

export interface SpeakersRunResult {
  speakers: number;
  seconds: number;
  framesSent: number;
  framesDecoded: number;
  framesDropped: number;
  /** framesDecoded / framesSent, %. */
  decodedPercent: number;
  ingress: { count: number; p50_ms: number | null; p95_ms: number | null; p99_ms: number | null };
  coreCpuPercent: number;
  rssMaxMb: number;
}

export async function runSpeakers(
  speakers: number,
  durationMs: number,
  progress: (line: string) => void,
): Promise<SpeakersRunResult> {
  const extraUsers = Array.from({ length: speakers - 1 }, (_, i) => `speaker-${i + 2}`);
  const core = await startBenchCore({ extraUsers });
  try {
    const talkers = core.discord.users.filter((u) => !u.bot).slice(0, speakers);
    for (const user of talkers) if (user.id !== core.discord.owner.id) core.discord.userJoinVoice(user.id);
    const joined = await core.request('/join', 'POST');
    if (joined.status !== 200) throw new Error(`POST /join answered ${joined.status}: ${JSON.stringify(joined.body)}`);
    await core.model.firstSocket();
    await sleep(1000);
    const before = await core.health();
    const seconds = durationMs / 1000;
    progress(`${speakers} speaker(s) talk at once for ${seconds} s`);
    const signal = speechLikeSignal(seconds);
    const samples: ProcSample[] = [];
    const sampler = setInterval(() => {
      const s = readProc(core.pid);
      if (s) samples.push(s);
    }, 1000);
    const from = readProc(core.pid)!;
    // Staggered by 3 ms each, as independent clients are; every packet is counted by the sender.
    const results = await Promise.all(
      talkers.map(async (user, i) => {
        await sleep(3 * i);
        return core.discord.speak(user.id, signal, { seed: i + 1 });
      }),
    );
    const to = readProc(core.pid)!;
    clearInterval(sampler);
    await sleep(1500); // the last frames are mixed and the drop counter synced (UI rate)
    const after = await core.health();
    const framesSent = results.reduce((sum, r) => sum + r.packetsSent, 0);
    const framesDecoded = after.metrics.frames_in - before.metrics.frames_in;
    return {
      speakers,
      seconds,
      framesSent,
      framesDecoded,
      framesDropped: after.metrics.dropped_frames - before.metrics.dropped_frames,
      decodedPercent: framesSent === 0 ? 0 : (100 * framesDecoded) / framesSent,
      ingress: after.metrics.ingress_latency,
      coreCpuPercent: cpuPercent(from, to),
      rssMaxMb: Math.max(from.rssMb, to.rssMb, ...samples.map((s) => s.rssMb)),
    };
  } finally {
    await core.close();
  }
}
