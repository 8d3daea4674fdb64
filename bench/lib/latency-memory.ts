// `npm run bench:latency -- --memory`: the core's memory over time (issue 18), each on a fresh core
// (fakes in this process, the core a child; RSS from /proc/<pid>/status, sampled every second):
// - a 10-minute call (one speaker, the model replying and being barged into): RSS range from 20 s
//   to the end ("flat, ± 5 MB" = range ≤ 10 MB) and drift (end − 20 s);
// - 8,000 sidecar requests in four bursts of 2,000 (GET /health, GET /notes, GET /schedule,
//   POST /schedule, like the probe), 20 at a time: RSS settled idle before, right after,
//   and a minute after (target: within 20 MB of idle).
// - to compare, the idle RSS of the core run from TypeScript source (node main/cli.ts), as every
//   launcher did before they ran the compiled core: Node's type stripper then stays in the process.
// About 13 minutes in all; the default bench run stays short.
import { setTimeout as sleep } from 'node:timers/promises';
import { IDLE_SETTLE_MS, SOURCE_CLI, runBenchCall, startBenchCore, type BenchCore } from './latency-call.ts';
import { readProc } from './latency-proc.ts';

export const MEMORY_TARGETS = { rss_flatness_mb: 10, rss_after_requests_over_idle_mb: 20 } as const;
const LONG_CALL_MS = 600_000;
const BURSTS = ['GET /health', 'GET /notes', 'GET /schedule', 'POST /schedule'] as const;
const PER_BURST = 2000;
const CONCURRENCY = 20;
/** Past the opt-in idle trim (5 s after the last request, with --expose-gc: main/core/idle-memory-trim.ts), when enabled. */
const SETTLE_MS = 8000;
const AFTER_REQUESTS_MS = 60_000;

export interface MemoryRunResult {
  /** Settled idle RSS of the core run from TypeScript source (the comparison, not a target). */
  rssIdleSourceMb: number | null;
  longCall: {
    seconds: number;
    rssAt20sMb: number;
    rssEndMb: number;
    rssMinMb: number;
    rssMaxMb: number;
    flatnessMb: number;
    driftMb: number;
    replies: number;
    cpuPercent: number;
    cpuAfter60sPercent: number | null;
    cpuWorst10sPercent: number | null;
    cpuWindows10sPercent: number[];
  };
  requests: {
    sent: number;
    answered2xx: number;
    errors: number;
    seconds: number;
    rssIdleMb: number;
    rssAfterRequestsMb: number;
    rssAfterRequestsSettledMb: number;
    rssMaxMb: number;
  };
}

async function longCall(progress: (line: string) => void): Promise<MemoryRunResult['longCall']> {
  progress(`memory: ${LONG_CALL_MS / 60_000}-minute call on a fresh core`);
  const call = await runBenchCall({ durationMs: LONG_CALL_MS, idleMs: 1000, idleCallMs: 1000, progress });
  const series = call.core.rssSeries.filter((s) => s.t_s >= 20).map((s) => s.rss_mb);
  const min = Math.min(...series);
  const max = Math.max(...series);
  const at20 = call.core.rssAt20sMb ?? series[0] ?? NaN;
  return {
    seconds: LONG_CALL_MS / 1000,
    rssAt20sMb: at20,
    rssEndMb: call.core.rssAtEndMb,
    rssMinMb: min,
    rssMaxMb: max,
    flatnessMb: max - min,
    driftMb: call.core.rssAtEndMb - at20,
    replies: call.replies,
    cpuPercent: call.core.callCpuPercent,
    cpuAfter60sPercent: call.core.callCpuAfter60sPercent,
    cpuWorst10sPercent: call.core.callCpuWorst10sPercent,
    cpuWindows10sPercent: call.core.callCpuWindows10sPercent,
  };
}

/** The probe: BURSTS × PER_BURST sidecar requests, CONCURRENCY at a time. Counts the answers. */
export async function sendRequestBursts(
  core: Pick<BenchCore, 'base' | 'token'>,
): Promise<{ sent: number; answered2xx: number; errors: number }> {
  let answered2xx = 0;
  let errors = 0;
  const headers = { authorization: `Bearer ${core.token}`, 'content-type': 'application/json' };
  for (const burst of BURSTS) {
    const [method, route] = burst.split(' ') as [string, string];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < PER_BURST) {
        const i = next++;
        const body =
          method === 'POST'
            ? JSON.stringify({ text: `bench reminder ${i}`, delay_seconds: 86_400, mode: 'dm' })
            : undefined;
        try {
          const res = await fetch(`${core.base}${route}`, {
            method,
            headers: body ? headers : { authorization: headers.authorization },
            ...(body ? { body } : {}),
          });
          await res.arrayBuffer();
          if (res.status < 300) answered2xx++;
          else errors++;
        } catch {
          errors++;
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  }
  return { sent: BURSTS.length * PER_BURST, answered2xx, errors };
}

async function requestBursts(progress: (line: string) => void): Promise<MemoryRunResult['requests']> {
  const core = await startBenchCore();
  try {
    await sleep(SETTLE_MS);
    const rss = () => readProc(core.pid)?.rssMb ?? NaN;
    const rssIdleMb = rss();
    let rssMaxMb = rssIdleMb;
    const sampler = setInterval(() => (rssMaxMb = Math.max(rssMaxMb, rss())), 1000);
    progress(`memory: ${BURSTS.length * PER_BURST} requests on a fresh core (idle ${rssIdleMb.toFixed(1)} MB)`);
    const started = performance.now();
    const { answered2xx, errors } = await sendRequestBursts(core);
    const seconds = (performance.now() - started) / 1000;
    const rssAfterRequestsMb = rss();
    await sleep(AFTER_REQUESTS_MS);
    clearInterval(sampler);
    return {
      sent: BURSTS.length * PER_BURST,
      answered2xx,
      errors,
      seconds,
      rssIdleMb,
      rssAfterRequestsMb,
      rssAfterRequestsSettledMb: rss(),
      rssMaxMb,
    };
  } finally {
    await core.close();
  }
}

async function sourceIdle(progress: (line: string) => void): Promise<number | null> {
  progress('memory: idle RSS of the core run from TypeScript source, to compare');
  const core = await startBenchCore({ cli: SOURCE_CLI });
  try {
    await sleep(IDLE_SETTLE_MS + 3000);
    return readProc(core.pid)?.rssMb ?? null;
  } finally {
    await core.close();
  }
}

export async function runMemory(progress: (line: string) => void): Promise<MemoryRunResult> {
  const rssIdleSourceMb = await sourceIdle(progress);
  const requests = await requestBursts(progress);
  const call = await longCall(progress);
  return { rssIdleSourceMb, longCall: call, requests };
}

interface MemoryRow {
  metric: string;
  measured: string;
  target: string;
  status: string;
}

const pct = (v: number | null) => (v === null || !Number.isFinite(v) ? '—' : `${v.toFixed(2)} %`);
const mb = (v: number | null) => (v === null || !Number.isFinite(v) ? '—' : `${v.toFixed(1)} MB`);
const r2 = (v: number | null) => (v === null || !Number.isFinite(v) ? null : Math.round(v * 100) / 100);
const r1 = (v: number | null) => (v === null || !Number.isFinite(v) ? null : Math.round(v * 10) / 10);

/** Printed rows, beside the default run's; `rssIdleMb` is the main call's settled idle (target ≤ 120 MB). */
export function memoryRows(m: MemoryRunResult, rssIdleMb: number, cpuTargetPercent: number): MemoryRow[] {
  const q = m.requests;
  const settledOver = q.rssAfterRequestsSettledMb - q.rssIdleMb;
  return [
    {
      metric: 'core RSS idle, run from TypeScript source (node main/cli.ts)',
      measured: mb(m.rssIdleSourceMb),
      target: `reference: the compiled core above, ${rssIdleMb.toFixed(1)} MB`,
      status: m.rssIdleSourceMb === null ? 'no data' : `+${(m.rssIdleSourceMb - rssIdleMb).toFixed(1)} MB`,
    },
    {
      metric: `core CPU over a ${m.longCall.seconds / 60}-minute call (one speaker, model replying): whole call / after the first minute`,
      measured: `${pct(m.longCall.cpuPercent)} / ${pct(m.longCall.cpuAfter60sPercent)} of one core (worst 10 s: ${pct(m.longCall.cpuWorst10sPercent)})`,
      target: `≤ ${cpuTargetPercent} %`,
      status:
        Math.max(m.longCall.cpuPercent, m.longCall.cpuAfter60sPercent ?? Infinity) <= cpuTargetPercent
          ? 'ok'
          : 'MISSED',
    },
    {
      metric: `core RSS over a ${m.longCall.seconds / 60}-minute call, 20 s → end: range (drift)`,
      measured: `${mb(m.longCall.flatnessMb)} (${m.longCall.driftMb >= 0 ? '+' : ''}${m.longCall.driftMb.toFixed(1)}), ${mb(m.longCall.rssMinMb)}–${mb(m.longCall.rssMaxMb)}`,
      target: `flat: range ≤ ${MEMORY_TARGETS.rss_flatness_mb} MB (± 5)`,
      status: m.longCall.flatnessMb <= MEMORY_TARGETS.rss_flatness_mb ? 'ok' : 'MISSED',
    },
    {
      metric: `core RSS, ${q.sent} requests: idle / right after / a minute after`,
      measured: `${mb(q.rssIdleMb)} / ${mb(q.rssAfterRequestsMb)} / ${mb(q.rssAfterRequestsSettledMb)} (${q.answered2xx} answered 2xx, ${q.errors} errors, ${q.seconds.toFixed(1)} s)`,
      target: `a minute after ≤ idle + ${MEMORY_TARGETS.rss_after_requests_over_idle_mb} MB`,
      status: settledOver <= MEMORY_TARGETS.rss_after_requests_over_idle_mb && q.errors === 0 ? 'ok' : 'MISSED',
    },
  ];
}

/** latency.json fields: headline figures (top level), their definitions, and the details. */
export function memoryJson(m: MemoryRunResult) {
  const q = m.requests;
  return {
    headline: {
      rssIdleSourceMb: r1(m.rssIdleSourceMb),
      rssFlatness10minMb: r1(m.longCall.flatnessMb),
      coreCpuLongCallPercent: r2(m.longCall.cpuPercent),
      coreCpuLongCallAfter60sPercent: r2(m.longCall.cpuAfter60sPercent),
      coreCpuLongCallWorst10sPercent: r2(m.longCall.cpuWorst10sPercent),
      rssAfterRequestsIdleMb: r1(q.rssIdleMb),
      rssAfterRequestsMb: r1(q.rssAfterRequestsMb),
      rssAfterRequestsSettledMb: r1(q.rssAfterRequestsSettledMb),
    },
    definitions: {
      rssIdleSourceMb:
        "the same settled idle VmRSS for the core run from TypeScript source (node main/cli.ts), which loads Node's type stripper: a comparison (no launcher runs it), not a target",
      rssFlatness10minMb: `highest minus lowest core VmRSS (1 s samples) from 20 s to the end of a ${m.longCall.seconds / 60}-minute call (one speaker, the model replying and barged into), fresh core; "flat ± 5 MB" = ≤ ${MEMORY_TARGETS.rss_flatness_mb}`,
      coreCpuLongCallPercent: `core process CPU time (utime + stime from /proc) / wall time, % of one core, over the whole ${m.longCall.seconds / 60}-minute call (one speaker, the model replying and barged into), fresh core`,
      coreCpuLongCallAfter60sPercent:
        'the same from 60 s into that call to its end: the steady cost of a call, past start-up and JIT warm-up (coreCpuCallPercent is a 60 s call, warm-up included)',
      coreCpuLongCallWorst10sPercent:
        'the worst 10 s window of that call (CPU time over each consecutive 10 s between the 1 s /proc readings): its worst case beside the average',
      rssAfterRequestsIdleMb: 'settled idle VmRSS of the fresh core the requests were sent to, just before them',
      rssAfterRequestsMb: `core VmRSS right after ${q.sent} sidecar requests (4 bursts of 2,000: GET /health, GET /notes, GET /schedule, POST /schedule; 20 at a time)`,
      rssAfterRequestsSettledMb: `the same a minute later (target: ≤ rssAfterRequestsIdleMb + ${MEMORY_TARGETS.rss_after_requests_over_idle_mb})`,
    },
    detail: {
      targets: MEMORY_TARGETS,
      long_call: {
        ...m.longCall,
        cpuWindows10sPercent: m.longCall.cpuWindows10sPercent.map(r2),
        rssAt20sMb: r1(m.longCall.rssAt20sMb),
        rssEndMb: r1(m.longCall.rssEndMb),
        flatnessMb: r1(m.longCall.flatnessMb),
        driftMb: r1(m.longCall.driftMb),
      },
      requests: { ...q, seconds: r1(q.seconds), rssMaxMb: r1(q.rssMaxMb) },
    },
  };
}
