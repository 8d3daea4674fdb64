// `node bench/idle-memory.ts`: what each documented start-up option does to the idle core, in one
// run (issue 38, "Memory without internals"). For each variant a fresh compiled core (fakes in this
// process, the core a child started with the variant's options and nothing else; RSS and CPU from
// /proc): RSS settled after start-up; the CPU of a quiet call joined right then (nobody speaks, the
// moment the idle trim's GC and V8's memory reducer may land in it); RSS right after 8,000 sidecar
// requests (bench/lib/latency-memory.ts's probe) and a minute later. Writes
// bench/results/idle-memory.json. The active phases run one after another; the minute-long waits
// overlap the next variants' phases, so the run stays under 5 minutes.
// `--quick`: two variants and a 10 s wait, to prove the script works.
import { writeFileSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { IDLE_SETTLE_MS, startBenchCore, type BenchCore } from './lib/latency-call.ts';
import { sendRequestBursts } from './lib/latency-memory.ts';
import { cpuPercent, readProc } from './lib/latency-proc.ts';

export const IDLE_TARGETS = { rss_idle_mb: 120, quiet_call_cpu_percent: 0.5 } as const;

interface Variant {
  name: string;
  flags: readonly string[];
  what: string;
}

const VARIANTS: readonly Variant[] = [
  { name: 'none', flags: [], what: "V8 defaults: no gc exposed, so no idle trim; V8's memory reducer alone" },
  {
    name: 'max-semi-space-size=1',
    flags: ['--max-semi-space-size=1'],
    what: 'young generation capped at 3 × 1 MiB; no trim',
  },
  {
    name: 'max-semi-space-size=2',
    flags: ['--max-semi-space-size=2'],
    what: 'young generation capped at 3 × 2 MiB; no trim',
  },
  {
    name: 'max-old-space-size=256',
    flags: ['--max-old-space-size=256'],
    what: 'old generation capped at 256 MiB; no trim',
  },
  { name: 'expose-gc', flags: ['--expose-gc'], what: 'the idle trim runs globalThis.gc() once quiet' },
  {
    name: 'expose-gc + max-semi-space-size=2',
    flags: ['--expose-gc', '--max-semi-space-size=2'],
    what: 'the idle trim, and the young generation capped at 3 × 2 MiB',
  },
];

const QUICK = process.argv.includes('--quick');
const QUIET_CALL_MS = 10_000;
const MINUTE_LATER_MS = QUICK ? 10_000 : 60_000;

interface VariantResult {
  name: string;
  flags: readonly string[];
  what: string;
  rss_after_start_mb: number;
  quiet_call_cpu_percent: number;
  rss_after_burst_mb: number;
  rss_minute_later_mb: number;
  requests: { sent: number; answered2xx: number; errors: number; seconds: number };
}

const r1 = (v: number): number => Math.round(v * 10) / 10;
const r2 = (v: number): number => Math.round(v * 100) / 100;
const rssOf = (core: BenchCore): number => readProc(core.pid)?.rssMb ?? NaN;

/** Start-up, quiet call, burst; `later`: the reading a minute later (the core closes after it). */
async function measure(variant: Variant): Promise<{ later: Promise<VariantResult> }> {
  const core = await startBenchCore({ nodeFlags: variant.flags });
  try {
    await sleep(IDLE_SETTLE_MS);
    const rssAfterStart = rssOf(core);
    const joined = await core.request('/join', 'POST');
    if (joined.status !== 200) throw new Error(`POST /join answered ${joined.status}: ${JSON.stringify(joined.body)}`);
    await core.model.firstSocket();
    await sleep(1000); // the join's own work (voice handshake, session set-up) settles
    const from = readProc(core.pid)!;
    await sleep(QUIET_CALL_MS);
    const to = readProc(core.pid)!;
    await core.request('/leave');
    const started = performance.now();
    const burst = await sendRequestBursts(core);
    const seconds = (performance.now() - started) / 1000;
    const rssAfterBurst = rssOf(core);
    const partial = {
      name: variant.name,
      flags: variant.flags,
      what: variant.what,
      rss_after_start_mb: r1(rssAfterStart),
      quiet_call_cpu_percent: r2(cpuPercent(from, to)),
      rss_after_burst_mb: r1(rssAfterBurst),
      requests: { ...burst, seconds: r1(seconds) },
    };
    process.stdout.write(
      `${variant.name}: idle ${partial.rss_after_start_mb} MB, quiet call ${partial.quiet_call_cpu_percent} %, after ${burst.sent} requests ${partial.rss_after_burst_mb} MB\n`,
    );
    const later = sleep(MINUTE_LATER_MS)
      .then(() => ({ ...partial, rss_minute_later_mb: r1(rssOf(core)) }))
      .finally(() => core.close());
    return { later };
  } catch (err) {
    await core.close();
    throw err;
  }
}

const variants = QUICK ? VARIANTS.filter((v) => v.name === 'none' || v.name === 'expose-gc') : VARIANTS;
const startedAt = Date.now();
const load = loadavg()[0]!;
const pending: Promise<VariantResult>[] = [];
for (const variant of variants) pending.push((await measure(variant)).later);
const results = await Promise.all(pending);
const out = {
  generated_at: new Date().toISOString(),
  quick: QUICK,
  node: process.version,
  load_average_1m_before: r2(load),
  seconds: Math.round((Date.now() - startedAt) / 1000),
  note: 'A shared, loaded machine (other jobs on its 2 cores): CPU figures are upper bounds, read one 10 s window each.',
  targets: IDLE_TARGETS,
  definitions: {
    rss_after_start_mb: `core VmRSS ${IDLE_SETTLE_MS / 1000} s after its sidecar first answered (the idle trim runs 5 s after the last request)`,
    quiet_call_cpu_percent: `core CPU, % of one core, over ${QUIET_CALL_MS / 1000} s of a call nobody speaks in, joined right after that reading`,
    rss_after_burst_mb:
      'core VmRSS right after 8,000 sidecar requests (4 bursts of 2,000, 20 at a time), the call left first',
    rss_minute_later_mb: `core VmRSS ${MINUTE_LATER_MS / 1000} s after the burst`,
  },
  variants: results,
};
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL('./results/idle-memory.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
process.stdout.write(`wrote bench/results/idle-memory.json (${out.seconds} s)\n`);
