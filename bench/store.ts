// `npm run bench:store`: what the schedule and the notes cost as they grow. For each size the
// schedule file is filled (written directly, the documented format) to 0 / 1k / 10k / 100k pending
// entries, then a fresh core process (bench/lib/store-core.ts: scheduler + notifier + notes behind
// the real sidecar routes) loads it and is measured from outside: start-up, create / cancel / list
// latency over HTTP (p95 and worst; beside it the core's own share, from the x-core-ms header the
// bench's core adds), idle CPU and RSS from /proc. The client is node:http on one keep-alive
// socket: fetch (undici) added ~0.5 ms of its own to every round trip, and most of the jitter that
// made one size's p95 swing between runs (docs/notifications.md). Then 100 calls of an hour of
// notes: /calls, /notes, /notes?call=, /notes?q=. Prints each figure beside its target and writes
// bench/results/store.json. Env: BENCH_STORE_SIZES (comma list), BENCH_STORE_IDLE_MS (default 60000:
// /proc counts CPU in 10 ms ticks, so 60 s resolves 0.017 % of a core; 15 s only 0.067 %).
// Each size runs in a fresh process whose code is not yet compiled by V8's JIT: WARMUP untimed
// creates, list pages and cancels run first, so the figures are the steady state of a running core
// (the warm-up's own p95 is kept in the JSON as createWarmupP95Ms). Takes about 5 minutes.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { closeSync, fdatasyncSync, mkdirSync, mkdtempSync, openSync, rmSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuPercent, percentiles, readProc, round } from './lib/latency-proc.ts';
import { fillSchedule } from './lib/store-fill.ts';
import { CORE_NODE_FLAGS } from '../main/core/core-node-flags.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CORE = path.join(HERE, 'lib', 'store-core.ts');
const RESULTS = path.join(HERE, 'results', 'store.json');
const SIZES = (process.env.BENCH_STORE_SIZES ?? '1000,10000,100000').split(',').map(Number);
const IDLE_MS = Number(process.env.BENCH_STORE_IDLE_MS ?? 60_000);
const WARMUP = 50;
const SAMPLES = 200;
const LIST_SAMPLES = 100;
const TOKEN = randomBytes(24).toString('hex');

const TARGETS = { createP95Ms: 5, cancelP95Ms: 5, listP95Ms: 20, idleCpuPercent: 0.2, rssGrowthMb: 60, startupMs: 2000 };

interface Core {
  child: ChildProcess;
  port: number;
  agent: http.Agent;
  startupMs: number;
}

function startCore(home: string, core = CORE): Promise<Core> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CORE_NODE_FLAGS, core, home, TOKEN], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /READY (\d+) ([\d.]+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]), agent: new http.Agent({ keepAlive: true, maxSockets: 1 }), startupMs: Number(m[2]) });
    });
    child.on('exit', (code) => reject(new Error(`store core exited ${code}`)));
  });
}

async function stopCore(core: Core): Promise<void> {
  core.agent.destroy();
  core.child.removeAllListeners('exit');
  const gone = new Promise((r) => core.child.once('exit', r));
  core.child.kill('SIGKILL');
  await gone;
}

/** One request: the round trip (ms) and the core's own share of it (coreMs: read → reply sent). */
async function timed(core: Core, method: string, url: string, body?: unknown): Promise<{ ms: number; coreMs: number; status: number; json: unknown }> {
  const data = body ? JSON.stringify(body) : undefined;
  const headers: http.OutgoingHttpHeaders = { authorization: `Bearer ${TOKEN}`, ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}) };
  const t0 = performance.now();
  const { status, coreMs, text } = await new Promise<{ status: number; coreMs: number; text: string }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: core.port, path: url, method, agent: core.agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, coreMs: Number(res.headers['x-core-ms']), text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(data);
  });
  const json: unknown = JSON.parse(text);
  const ms = performance.now() - t0;
  if (status >= 400) throw new Error(`${method} ${url} → ${status} ${text}`);
  return { ms, coreMs, status, json };
}

async function idleCpu(core: Core): Promise<number> {
  // The window starts 8 s after the last request, past the core's idle memory trim (one
  // memory-reducing full GC 5 s after the last request, ~100-160 ms of CPU at 100,000 entries): that
  // is the clean-up of loading and the requests, not what the schedule costs while it waits. Since
  // the trim retires V8's own memory reducer, no later GC is due in the window (before, the reducer
  // ran two more full GCs 10-26 s after the trim: the whole 0.3 % at 100,000 entries).
  await new Promise((r) => setTimeout(r, 8000));
  const a = readProc(core.child.pid!)!;
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const b = readProc(core.child.pid!)!;
  return cpuPercent(a, b);
}

/** A store to measure: this tree's (default), or another release's core and fill (the database section). */
interface StoreUnderTest {
  core: string;
  fill: (home: string, entries: number) => void;
}

async function measureSchedule(entries: number, store: StoreUnderTest = { core: CORE, fill: fillSchedule }) {
  const home = mkdtempSync(path.join(tmpdir(), 'lvb-bench-store-'));
  try {
    store.fill(home, entries);
    const core = await startCore(home, store.core);
    try {
      const warmup: number[] = [];
      const warmIds: string[] = [];
      for (let i = 0; i < WARMUP; i++) {
        const r = await timed(core, 'POST', '/schedule', { text: `warm-up ${i}`, delay_seconds: 7 * 86_400, mode: 'dm' });
        warmup.push(r.ms);
        warmIds.push((r.json as { scheduled: string }).scheduled);
        await timed(core, 'GET', '/schedule?limit=100&state=scheduled');
      }
      for (const id of warmIds) await timed(core, 'DELETE', `/schedule/${id}`);
      const creates: number[] = [];
      const createsCore: number[] = [];
      const ids: string[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        const r = await timed(core, 'POST', '/schedule', { text: `bench ${i}`, delay_seconds: 7 * 86_400, mode: 'dm' });
        creates.push(r.ms);
        createsCore.push(r.coreMs);
        ids.push((r.json as { scheduled: string }).scheduled);
      }
      const lists: number[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < LIST_SAMPLES; i++) {
        const r = await timed(core, 'GET', `/schedule?limit=100&state=scheduled${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        lists.push(r.ms);
        cursor = (r.json as { next_cursor: string | null }).next_cursor;
      }
      const cancels: number[] = [];
      const cancelsCore: number[] = [];
      for (const id of ids) {
        const r = await timed(core, 'DELETE', `/schedule/${id}`);
        cancels.push(r.ms);
        cancelsCore.push(r.coreMs);
      }
      const httpFloor = entries === 0 ? await httpFloorP95Ms(core) : null;
      // RSS right after the work, before V8's memory reducer has run (it does ~45 s later, one
      // full GC that gives back the young generation grown while loading): the transient peak.
      const afterWork = readProc(core.child.pid!)!;
      const idle = await idleCpu(core);
      const proc = readProc(core.child.pid!)!;
      return { httpFloor, entries, startupMs: core.startupMs, warmup: percentiles(warmup), creates: percentiles(creates), createsCore: percentiles(createsCore), cancels: percentiles(cancels), cancelsCore: percentiles(cancelsCore), lists: percentiles(lists), idleCpuPercent: idle, rssAfterWorkMb: afterWork.rssMb, rssMb: proc.rssMb, peakRssMb: proc.peakRssMb };
    } finally {
      await stopCore(core);
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

const WORDS = ['the', 'meeting', 'moved', 'to', 'three', 'remind', 'me', 'about', 'groceries', 'build', 'failed', 'again', 'ship', 'it', 'tomorrow', 'okay', 'sounds', 'good', 'what', 'about', 'lunch', 'review', 'the', 'draft'];

async function measureNotes() {
  const home = mkdtempSync(path.join(tmpdir(), 'lvb-bench-notes-'));
  const dir = path.join(home, 'voice-users', 'notes');
  mkdirSync(dir, { recursive: true });
  const CALLS = 100;
  const EVENTS = 1200; // an hour of talk: a transcript line every 3 s
  let bytes = 0;
  const start = Date.now() / 1000 - CALLS * 86_400;
  for (let c = 0; c < CALLS; c++) {
    const callId = `2026-01-${String(c).padStart(3, '0')}-call`;
    const lines: string[] = [];
    for (let e = 0; e < EVENTS; e++) {
      const ts = start + c * 86_400 + e * 3;
      const text = Array.from({ length: 18 }, (_, w) => WORDS[(c * 7 + e * 3 + w) % WORDS.length]).join(' ') + (c === 42 && e === 600 ? ' zanzibar' : '');
      lines.push(JSON.stringify({ id: `${Math.floor(ts * 1000).toString(36)}-${e.toString(36)}`, ts, kind: e % 2 ? 'output_transcript' : 'input_transcript', speaker: e % 2 ? 'model' : 'owner', text, callId }));
    }
    const body = lines.join('\n') + '\n';
    bytes += Buffer.byteLength(body);
    writeFileSync(path.join(dir, `${callId}.jsonl`), body);
  }
  const core = await startCore(home);
  try {
    const coldCalls = (await timed(core, 'GET', '/calls?limit=100')).ms;
    const runs = async (n: number, url: string) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await timed(core, 'GET', url)).ms);
      return percentiles(out);
    };
    const calls = await runs(20, '/calls?limit=100');
    const recent = await runs(20, '/notes?limit=50');
    const oneCall = await runs(20, '/notes?call=2026-01-042-call&limit=500');
    const search = await runs(5, '/notes?q=zanzibar&limit=50');
    const proc = readProc(core.child.pid!)!;
    return { calls: CALLS, eventsPerCall: EVENTS, totalMb: round(bytes / 1024 / 1024), coldCallsMs: round(coldCalls), calls_p95_ms: round(calls.p95_ms), recent_p95_ms: round(recent.p95_ms), call_p95_ms: round(oneCall.p95_ms), search_p95_ms: round(search.p95_ms), search_max_ms: round(search.max_ms), rssMb: round(proc.rssMb) };
  } finally {
    await stopCore(core);
    rmSync(home, { recursive: true, force: true });
  }
}

/** What one durable append costs on this disk right now (write + fdatasync of a 250-byte line): the floor of create/cancel. */
function diskFloorP95Ms(): number | null {
  const dir = mkdtempSync(path.join(tmpdir(), 'lvb-bench-disk-'));
  const fd = openSync(path.join(dir, 'probe'), 'a');
  const times: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t0 = performance.now();
    writeSync(fd, 'x'.repeat(249) + '\n');
    fdatasyncSync(fd);
    times.push(performance.now() - t0);
  }
  closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
  return round(percentiles(times).p95_ms);
}

/** An HTTP round trip that does no store work (GET /calls on an empty notes folder): the floor of every latency. */
async function httpFloorP95Ms(core: Core): Promise<number | null> {
  const times: number[] = [];
  for (let i = 0; i < 200; i++) times.push((await timed(core, 'GET', '/calls?limit=1')).ms);
  return round(percentiles(times).p95_ms);
}

const mark = (value: number | null, target: number): string => (value === null ? '—' : `${value <= target ? 'ok  ' : 'MISS'}`);

console.log('store bench: the core in its own process; latency = HTTP round trip from this process; CPU/RSS from /proc');
// The disk probe first, so its writes and its file's removal are not the filesystem journal's
// business right before a measured size.
const diskFloor = diskFloorP95Ms();
const baseline = await measureSchedule(0);
console.log(`baseline (empty schedule): RSS ${baseline.rssMb.toFixed(1)} MB, idle CPU ${baseline.idleCpuPercent.toFixed(3)} %`);
console.log(`floors: HTTP round trip with no store work p95 ${baseline.httpFloor} ms; one durable append (write + fdatasync) on this disk p95 ${diskFloor} ms`);
const rows = [];
for (const size of SIZES) {
  process.stdout.write(`measuring ${size.toLocaleString('en')} entries…\n`);
  const m = await measureSchedule(size);
  const row = {
    entries: size,
    createP95Ms: round(m.creates.p95_ms),
    createMaxMs: round(m.creates.max_ms),
    createWarmupP95Ms: round(m.warmup.p95_ms),
    createCoreP95Ms: round(m.createsCore.p95_ms),
    cancelP95Ms: round(m.cancels.p95_ms),
    cancelMaxMs: round(m.cancels.max_ms),
    cancelCoreP95Ms: round(m.cancelsCore.p95_ms),
    listP95Ms: round(m.lists.p95_ms),
    listMaxMs: round(m.lists.max_ms),
    idleCpuPercent: round(m.idleCpuPercent, 3),
    rssMb: round(m.rssMb),
    rssGrowthMb: round(m.rssMb - baseline.rssMb),
    rssAfterWorkMb: round(m.rssAfterWorkMb),
    startupMs: round(m.startupMs),
  };
  rows.push(row);
  console.log(
    [
      `  create p95 ${row.createP95Ms} ms (max ${row.createMaxMs}; in the core p95 ${row.createCoreP95Ms}; warm-up p95 ${row.createWarmupP95Ms}) target ≤ ${TARGETS.createP95Ms} ${mark(row.createP95Ms, TARGETS.createP95Ms)}`,
      `  cancel p95 ${row.cancelP95Ms} ms (max ${row.cancelMaxMs}; in the core p95 ${row.cancelCoreP95Ms}) target ≤ ${TARGETS.cancelP95Ms} ${mark(row.cancelP95Ms, TARGETS.cancelP95Ms)}`,
      `  list (page of 100, ?state&cursor) p95 ${row.listP95Ms} ms (max ${row.listMaxMs}) target ≤ ${TARGETS.listP95Ms} ${mark(row.listP95Ms, TARGETS.listP95Ms)}`,
      `  idle CPU (poll cost, ${IDLE_MS / 1000} s) ${row.idleCpuPercent} % of a core, target ≤ ${TARGETS.idleCpuPercent} ${mark(row.idleCpuPercent, TARGETS.idleCpuPercent)}`,
      `  RSS ${row.rssMb} MB after the idle minute (${row.rssAfterWorkMb} MB right after the requests), growth over empty ${row.rssGrowthMb} MB, target ≤ ${TARGETS.rssGrowthMb} ${mark(row.rssGrowthMb, TARGETS.rssGrowthMb)}`,
      `  start-up (load + index) ${row.startupMs} ms, target ≤ ${TARGETS.startupMs} ${mark(row.startupMs, TARGETS.startupMs)}`,
    ].join('\n'),
  );
}
const database = await measureDatabaseSection(rows);
console.log('notes: 100 calls of an hour…');
const notes = await measureNotes();
console.log(
  `  ${notes.totalMb} MB on disk; GET /calls p95 ${notes.calls_p95_ms} ms (first, cold ${notes.coldCallsMs} ms); /notes p95 ${notes.recent_p95_ms} ms; /notes?call= (500) p95 ${notes.call_p95_ms} ms; /notes?q= full text p95 ${notes.search_p95_ms} ms; RSS ${notes.rssMb} MB`,
);
mkdirSync(path.dirname(RESULTS), { recursive: true });
writeFileSync(
  RESULTS,
  JSON.stringify(
    {
      generated_at: new Date().toISOString(),
      definitions: {
        latency: `HTTP round trip from the bench process (node:http, one keep-alive socket) to the core process on loopback, ms; p95 over 200 creates/cancels and 100 list pages, after ${WARMUP} untimed creates + list pages + cancels in the fresh process (JIT warm-up; createWarmupP95Ms is their p95); createCoreP95Ms/cancelCoreP95Ms: the core's own share (Fastify's reply.elapsedTime, request read → reply sent, in the x-core-ms header of the bench's core)`,
        idleCpuPercent: `CPU of the core process (all threads) over ${IDLE_MS / 1000} s with nothing due, from 8 s after the last request (past the core's idle memory trim at 5 s), % of one core (utime+stime from /proc, 10 ms ticks: resolution ${round(1000 / IDLE_MS, 3)} %)`,
        rssMb: 'VmRSS of the core process after the run and its idle minute (steady state: the idle trim done); rssGrowthMb is over the same process with an empty schedule; rssAfterWorkMb: VmRSS right after the requests, before the idle minute (the transient, young generation still grown from loading)',
        startupMs: 'scheduler.start(): open (and check) the database, import an old schedule file once, start the timer',
        floors: 'httpFloorP95Ms: a request doing no store work; diskAppendFsyncP95Ms: write + fdatasync of one line on the same disk — create/cancel pay both',
      },
      targets: TARGETS,
      baseline: { rssMb: round(baseline.rssMb), idleCpuPercent: round(baseline.idleCpuPercent, 3), httpFloorP95Ms: baseline.httpFloor, diskAppendFsyncP95Ms: diskFloor },
      schedule: rows,
      database,
      notes,
    },
    null,
    2,
  ) + '\n',
);
console.log(`wrote ${path.relative(process.cwd(), RESULTS)}`);

// ---- database: the schedule on SQLite (issue 54) beside the JSONL store of the last release ----
// `schedule` above measures this tree's store, the database since migration 002: its 1k/10k/100k
// rows are copied here as `schedule1k`/`schedule10k`/`schedule100k`. In the same run the same
// measurement is made of release 0.3.5's JSONL journal store: that release's `main/` and `bench/lib/`
// are extracted from git (BENCH_STORE_JSONL_REF, default the commit before the schedule moved) into
// a temp folder beside this tree's node_modules, and its own bench core and fill are run.
async function measureDatabaseSection(measured: ReturnType<typeof scheduleFigures>[]) {
  const ref = process.env.BENCH_STORE_JSONL_REF ?? '53a3622';
  const bySize = (list: ReturnType<typeof scheduleFigures>[], n: number) => list.find((r) => r.entries === n) ?? null;
  const jsonl: ReturnType<typeof scheduleFigures>[] = [];
  const release = extractRelease(ref);
  try {
    const { fillSchedule: releaseFill } = (await import(path.join(release, 'bench', 'lib', 'store-fill.ts'))) as { fillSchedule: StoreUnderTest['fill'] };
    for (const size of SIZES) {
      process.stdout.write(`measuring release ${ref}'s JSONL store at ${size.toLocaleString('en')} entries…\n`);
      const m = await measureSchedule(size, { core: path.join(release, 'bench', 'lib', 'store-core.ts'), fill: releaseFill });
      const row = scheduleFigures(size, m);
      jsonl.push(row);
      const sql = bySize(measured, size);
      console.log(`  ${size.toLocaleString('en')}: database create/cancel/list p95 ${sql?.createP95Ms}/${sql?.cancelP95Ms}/${sql?.listP95Ms} ms, idle CPU ${sql?.idleCpuPercent} % — JSONL ${row.createP95Ms}/${row.cancelP95Ms}/${row.listP95Ms} ms, ${row.idleCpuPercent} %`);
    }
  } finally {
    rmSync(release, { recursive: true, force: true });
  }
  const [load1, load5, load15] = loadavg();
  return {
    definitions: {
      scheduleNk: 'this tree\'s schedule store (the database) with N thousand pending entries: the `schedule` row of the same size (same definitions)',
      scheduleJsonl: `release ${ref}'s JSONL journal store measured the same way in the same run`,
      loadAverage: 'the machine\'s 1/5/15-minute load average when the section finished (figures from a loaded machine are upper bounds)',
    },
    schedule1k: bySize(measured, 1000),
    schedule10k: bySize(measured, 10_000),
    schedule100k: bySize(measured, 100_000),
    scheduleJsonl: { ref, schedule1k: bySize(jsonl, 1000), schedule10k: bySize(jsonl, 10_000), schedule100k: bySize(jsonl, 100_000) },
    loadAverage: [round(load1!, 2), round(load5!, 2), round(load15!, 2)],
  };
}

/** The figures of one measured size (what the database section compares). */
function scheduleFigures(entries: number, m: Awaited<ReturnType<typeof measureSchedule>>) {
  return { entries, createP95Ms: round(m.creates.p95_ms), cancelP95Ms: round(m.cancels.p95_ms), listP95Ms: round(m.lists.p95_ms), idleCpuPercent: round(m.idleCpuPercent, 3), startupMs: round(m.startupMs), rssMb: round(m.rssMb) };
}

/** `main/`, `bench/lib/` and package.json of `ref` in a temp folder, with this tree's node_modules linked in. */
function extractRelease(ref: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'lvb-bench-release-'));
  const root = path.resolve(HERE, '..');
  execFileSync('sh', ['-c', `git -C "$1" archive "$2" main bench/lib package.json | tar -x -C "$3"`, 'sh', root, ref, dir]);
  symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}
