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
// (the warm-up's own p95 is kept in the JSON as createWarmupP95Ms). Idle: each size waits for V8's
// memory reducer's one settling pass (30-150 s), then measures IDLE_MS. Then `database`: a year of
// daily use (BENCH_STORE_DB_CALLS calls of an hour, default 500 ≈ 1.5 M transcript lines) in the
// database, beside the same lines in release 0.3.5's JSONL files read by that release's own code,
// each measured in a fresh process (bench/lib/store-db-probe.ts). BENCH_STORE_ONLY=database runs
// only that part and keeps the rest of store.json. The schedule's database section (below) measures
// release 0.3.5's JSONL store in the same run. About 30 minutes in all.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import os, { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuPercent, percentiles, readProc, round } from './lib/latency-proc.ts';
import { extractRelease, fillDatabase, fillJsonl, RELEASE_COMMIT } from './lib/store-database.ts';
import { fillSchedule } from './lib/store-fill.ts';
import { GcLog, isMajor, mainThreadWakeups, untilSettled } from './lib/idle-watch.ts';
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
const LOAD_AT_START = os.loadavg().map((l) => Math.round(l * 100) / 100);

const TARGETS = {
  createP95Ms: 5,
  cancelP95Ms: 5,
  listP95Ms: 20,
  idleCpuPercent: 0.2,
  rssGrowthMb: 60,
  startupMs: 2000,
};

interface Core {
  child: ChildProcess;
  port: number;
  agent: http.Agent;
  startupMs: number;
  gcs: GcLog;
}

function startCore(home: string, core = CORE): Promise<Core> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CORE_NODE_FLAGS, core, home, TOKEN, '--report-gc'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const gcs = new GcLog(child.stdout!);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      if (out.includes('READY')) return;
      out += d.toString();
      const m = /READY (\d+) ([\d.]+)/.exec(out);
      if (m)
        resolve({
          child,
          port: Number(m[1]),
          agent: new http.Agent({ keepAlive: true, maxSockets: 1 }),
          startupMs: Number(m[2]),
          gcs,
        });
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
async function timed(
  core: Core,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ ms: number; coreMs: number; status: number; json: unknown }> {
  const data = body ? JSON.stringify(body) : undefined;
  const headers: http.OutgoingHttpHeaders = {
    authorization: `Bearer ${TOKEN}`,
    ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}),
  };
  const t0 = performance.now();
  const { status, coreMs, text } = await new Promise<{ status: number; coreMs: number; text: string }>(
    (resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port: core.port, path: url, method, agent: core.agent, headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              coreMs: Number(res.headers['x-core-ms']),
              text: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(data);
    },
  );
  const json: unknown = JSON.parse(text);
  const ms = performance.now() - t0;
  if (status >= 400) throw new Error(`${method} ${url} → ${status} ${text}`);
  return { ms, coreMs, status, json };
}

/**
 * What the core costs once the requests are over, in two parts. The settling pass: V8's memory
 * reducer runs its two full GCs once the allocation rate is low, 30-150 s after the last request
 * here (bench/lib/idle-watch.ts), once per process and again only after the heap has grown 10 MB;
 * its CPU is measured from the end of the work to the end of the pass. Then the steady idle: CPU,
 * main-thread wake-ups and GCs over IDLE_MS with nothing due. `afterWorkPercent` is the figure this
 * bench reported up to 2026-12: CPU over IDLE_MS from 8 s after the last request, which catches the
 * pass or not depending on when V8 starts it (up to 2026-11-26 a run-time V8 flag retired the
 * reducer and an --expose-gc trim ran its GC before that window: docs/performance.md).
 */
async function idleCost(core: Core) {
  const pid = core.child.pid!;
  const last = performance.now();
  const lastProc = readProc(pid)!;
  const afterWork = (async () => {
    await new Promise((r) => setTimeout(r, 8000));
    const a = readProc(pid)!;
    await new Promise((r) => setTimeout(r, IDLE_MS));
    return cpuPercent(a, readProc(pid)!);
  })();
  const pass = await untilSettled(core.gcs, last);
  const settledProc = readProc(pid)!;
  const afterWorkPercent = await afterWork;
  const from = readProc(pid)!;
  const fromWakeups = mainThreadWakeups(pid)!;
  const windowStart = performance.now();
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const to = readProc(pid)!;
  const windowGcs = core.gcs.since(windowStart);
  return {
    afterWorkPercent,
    settled: pass.settled,
    settleS: pass.waitedMs / 1000,
    settleMajorGcs: pass.majorGcs,
    settleGcPauseMs: pass.majorGcMs,
    settleCpuMs: settledProc.cpuMs - lastProc.cpuMs,
    settleRssFreedMb: lastProc.rssMb - settledProc.rssMb,
    steadyPercent: cpuPercent(from, to),
    steadyWakeupsPerMin: ((mainThreadWakeups(pid)! - fromWakeups) * 60_000) / (to.at - from.at),
    steadyGcs: windowGcs.length,
    steadyMajorGcs: windowGcs.filter(isMajor).length,
  };
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
        const r = await timed(core, 'POST', '/schedule', {
          text: `warm-up ${i}`,
          delay_seconds: 7 * 86_400,
          mode: 'dm',
        });
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
        const r = await timed(
          core,
          'GET',
          `/schedule?limit=100&state=scheduled${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
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
      const idle = await idleCost(core);
      const proc = readProc(core.child.pid!)!;
      return {
        httpFloor,
        entries,
        startupMs: core.startupMs,
        warmup: percentiles(warmup),
        creates: percentiles(creates),
        createsCore: percentiles(createsCore),
        cancels: percentiles(cancels),
        cancelsCore: percentiles(cancelsCore),
        lists: percentiles(lists),
        idle,
        rssAfterWorkMb: afterWork.rssMb,
        rssMb: proc.rssMb,
        peakRssMb: proc.peakRssMb,
      };
    } finally {
      await stopCore(core);
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

const WORDS = [
  'the',
  'meeting',
  'moved',
  'to',
  'three',
  'remind',
  'me',
  'about',
  'groceries',
  'build',
  'failed',
  'again',
  'ship',
  'it',
  'tomorrow',
  'okay',
  'sounds',
  'good',
  'what',
  'about',
  'lunch',
  'review',
  'the',
  'draft',
];

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
      const text =
        Array.from({ length: 18 }, (_, w) => WORDS[(c * 7 + e * 3 + w) % WORDS.length]).join(' ') +
        (c === 42 && e === 600 ? ' zanzibar' : '');
      lines.push(
        JSON.stringify({
          id: `${Math.floor(ts * 1000).toString(36)}-${e.toString(36)}`,
          ts,
          kind: e % 2 ? 'output_transcript' : 'input_transcript',
          speaker: e % 2 ? 'model' : 'owner',
          text,
          callId,
        }),
      );
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
    return {
      calls: CALLS,
      eventsPerCall: EVENTS,
      totalMb: round(bytes / 1024 / 1024),
      coldCallsMs: round(coldCalls),
      calls_p95_ms: round(calls.p95_ms),
      recent_p95_ms: round(recent.p95_ms),
      call_p95_ms: round(oneCall.p95_ms),
      search_p95_ms: round(search.p95_ms),
      search_max_ms: round(search.max_ms),
      rssMb: round(proc.rssMb),
    };
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

const DB_CALLS = Number(process.env.BENCH_STORE_DB_CALLS ?? 500);
const DB_LINES_PER_CALL = 3000; // an hour: a line every 1.2 s
const DB_TARGETS = { searchP95Ms: 50, startupMs: 1000 };
const PROBE = path.join(HERE, 'lib', 'store-db-probe.ts');

function probe(...args: string[]): Record<string, number> {
  return JSON.parse(
    execFileSync(process.execPath, [PROBE, ...args], { encoding: 'utf8', maxBuffer: 1 << 20 }),
  ) as Record<string, number>;
}

async function measureDatabase() {
  const home = mkdtempSync(path.join(tmpdir(), 'lvb-bench-db-'));
  const voiceUsers = path.join(home, 'voice-users');
  const startTs = Date.now() / 1000 - DB_CALLS * 86_400;
  try {
    const { transcriptLines, fillMs } = fillDatabase(voiceUsers, DB_CALLS, DB_LINES_PER_CALL, startTs);
    const file = path.join(voiceUsers, 'live-voice-bridge.sqlite');
    const fileMb = statSync(file).size / 1024 / 1024;
    const db = probe('database', voiceUsers);
    const row = {
      transcriptLines,
      fillSeconds: round(fillMs / 1000),
      fileMb: round(fileMb),
      insertP95Ms: round(db.insertP95Ms!),
      searchP95Ms: round(db.searchP95Ms!),
      searchMaxMs: round(db.searchMaxMs!),
      startupMs: round(db.startupMs!),
    };
    const release = extractRelease(path.resolve(HERE, '..'));
    let jsonl: Record<string, number | string | null> | null = null;
    if (release) {
      fillJsonl(voiceUsers, DB_CALLS, DB_LINES_PER_CALL, startTs);
      const dir = path.join(voiceUsers, 'notes');
      let bytes = 0;
      for (const name of readdirSync(dir)) bytes += statSync(path.join(dir, name)).size;
      const j = probe('jsonl', voiceUsers, release);
      jsonl = {
        release: RELEASE_COMMIT,
        fileMb: round(bytes / 1024 / 1024),
        insertP95Ms: round(j.insertP95Ms!),
        searchP95Ms: round(j.searchP95Ms!),
        searchMaxMs: round(j.searchMaxMs!),
        startupMs: round(j.startupMs!),
      };
    }
    return { ...row, jsonl };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

type IdleCost = Awaited<ReturnType<typeof idleCost>>;
const idleLine = (i: IdleCost): string =>
  `settling pass ${i.settled ? `over ${i.settleS.toFixed(0)} s after the last request` : `not seen in ${i.settleS.toFixed(0)} s`}: ${i.settleMajorGcs} full GC(s), ${i.settleCpuMs.toFixed(0)} ms CPU, RSS −${i.settleRssFreedMb.toFixed(1)} MB; ` +
  `then idle (${IDLE_MS / 1000} s) ${i.steadyPercent.toFixed(3)} % of a core, ${i.steadyWakeupsPerMin.toFixed(1)} main-thread wake-ups/min, ${i.steadyGcs} GC(s); ` +
  `(${IDLE_MS / 1000} s from 8 s after the last request, as reported up to 2026-11: ${i.afterWorkPercent.toFixed(3)} %)`;
const mark = (value: number | null, target: number): string =>
  value === null ? '—' : `${value <= target ? 'ok  ' : 'MISS'}`;

async function reportDatabase() {
  console.log(
    `database: ${DB_CALLS} calls of an hour (${(DB_CALLS * DB_LINES_PER_CALL).toLocaleString('en')} transcript lines)…`,
  );
  const database = await measureDatabase();
  const j = database.jsonl;
  console.log(
    [
      `  filled in ${database.fillSeconds} s (one transaction); file ${database.fileMb} MB${j ? ` (JSONL ${j.fileMb} MB)` : ''}`,
      `  search p95 ${database.searchP95Ms} ms (max ${database.searchMaxMs}) target ≤ ${DB_TARGETS.searchP95Ms} ${mark(database.searchP95Ms, DB_TARGETS.searchP95Ms)}${j ? `; release ${j.release} JSONL p95 ${j.searchP95Ms} ms` : ''}`,
      `  start-up (open, check, migrate) ${database.startupMs} ms target ≤ ${DB_TARGETS.startupMs} ${mark(database.startupMs, DB_TARGETS.startupMs)}${j ? `; JSONL (read every file once) ${j.startupMs} ms` : ''}`,
      `  insert (one line, its own transaction) p95 ${database.insertP95Ms} ms${j ? `; JSONL append p95 ${j.insertP95Ms} ms` : ''}`,
    ].join('\n'),
  );
  return database;
}

const DATABASE_DEFINITIONS = {
  transcriptLines:
    'lines in the database: BENCH_STORE_DB_CALLS calls × 3000 (an hour, a line every 1.2 s), written in one transaction with prepared statements (fillSeconds)',
  searchP95Ms:
    'searchNotes (FTS5, 20 hits, newest first) in a fresh process on the filled file, p95 over 40 rounds of 6 queries (rare word, two words, common words); jsonl: release 0.3.5 NotesArchive.query({ q }) over the same lines in its JSONL files, 2 rounds',
  startupMs:
    'fresh process: openDatabase (header/schema check, the full check runs in a worker later for files over 64 MB; migrations) + NotesStore + the calls list; jsonl: the release reading every file once for its first /calls',
  insertP95Ms:
    'NotesStore.insert of one line in its own transaction (WAL, synchronous=NORMAL), p95 of 500; jsonl: the release NotesLog.append (writeSync)',
  fileMb: 'the database file after a checkpoint; jsonl: the notes folder',
};

if (process.env.BENCH_STORE_ONLY === 'database') {
  const database = await reportDatabase();
  const previous = existsSync(RESULTS) ? (JSON.parse(readFileSync(RESULTS, 'utf8')) as Record<string, unknown>) : {};
  const definitions = { ...(previous.definitions as object), database: DATABASE_DEFINITIONS };
  writeFileSync(
    RESULTS,
    JSON.stringify(
      { ...previous, definitions, targets: { ...(previous.targets as object), database: DB_TARGETS }, database },
      null,
      2,
    ) + '\n',
  );
  console.log(`wrote the database rows into ${path.relative(process.cwd(), RESULTS)}`);
  process.exit(0);
}

console.log(
  'store bench: the core in its own process; latency = HTTP round trip from this process; CPU/RSS from /proc',
);
// The disk probe first, so its writes and its file's removal are not the filesystem journal's
// business right before a measured size.
const diskFloor = diskFloorP95Ms();
const baseline = await measureSchedule(0);
console.log(`baseline (empty schedule): RSS ${baseline.rssMb.toFixed(1)} MB, ${idleLine(baseline.idle)}`);
console.log(
  `floors: HTTP round trip with no store work p95 ${baseline.httpFloor} ms; one durable append (write + fdatasync) on this disk p95 ${diskFloor} ms`,
);
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
    idleCpuPercent: round(m.idle.steadyPercent, 3),
    idleWakeupsPerMin: round(m.idle.steadyWakeupsPerMin, 1),
    idleGcs: m.idle.steadyGcs,
    idleCpuAfterWorkPercent: round(m.idle.afterWorkPercent, 3),
    settled: m.idle.settled,
    settleS: round(m.idle.settleS, 1),
    settleMajorGcs: m.idle.settleMajorGcs,
    settleGcPauseMs: round(m.idle.settleGcPauseMs),
    settleCpuMs: round(m.idle.settleCpuMs),
    settleRssFreedMb: round(m.idle.settleRssFreedMb),
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
      `  ${idleLine(m.idle)}, target ≤ ${TARGETS.idleCpuPercent} ${mark(row.idleCpuPercent, TARGETS.idleCpuPercent)}`,
      `  RSS ${row.rssMb} MB after the idle minute (${row.rssAfterWorkMb} MB right after the requests), growth over empty ${row.rssGrowthMb} MB, target ≤ ${TARGETS.rssGrowthMb} ${mark(row.rssGrowthMb, TARGETS.rssGrowthMb)}`,
      `  start-up (load + index) ${row.startupMs} ms, target ≤ ${TARGETS.startupMs} ${mark(row.startupMs, TARGETS.startupMs)}`,
    ].join('\n'),
  );
}
const scheduleDatabase = await measureDatabaseSection(rows);
console.log('notes: 100 calls of an hour…');
const notes = await measureNotes();
console.log(
  `  ${notes.totalMb} MB on disk; GET /calls p95 ${notes.calls_p95_ms} ms (first, cold ${notes.coldCallsMs} ms); /notes p95 ${notes.recent_p95_ms} ms; /notes?call= (500) p95 ${notes.call_p95_ms} ms; /notes?q= substring scan, worst of 5 ${notes.search_p95_ms} ms; RSS ${notes.rssMb} MB`,
);
const notesDatabase = await reportDatabase();
mkdirSync(path.dirname(RESULTS), { recursive: true });
writeFileSync(
  RESULTS,
  JSON.stringify(
    {
      generated_at: new Date().toISOString(),
      definitions: {
        latency: `HTTP round trip from the bench process (node:http, one keep-alive socket) to the core process on loopback, ms; p95 over 200 creates/cancels and 100 list pages, after ${WARMUP} untimed creates + list pages + cancels in the fresh process (JIT warm-up; createWarmupP95Ms is their p95); createCoreP95Ms/cancelCoreP95Ms: the core's own share (Fastify's reply.elapsedTime, request read → reply sent, in the x-core-ms header of the bench's core)`,
        idleCpuPercent: `CPU of the core process (all threads) over ${IDLE_MS / 1000} s with nothing due, once settled (V8's memory reducer's pass over: settle*), % of one core (utime+stime from /proc, 10 ms ticks: resolution ${round(1000 / IDLE_MS, 3)} %); idleWakeupsPerMin: the main thread's voluntary context switches (event-loop wake-ups) per minute in that window; idleGcs: GCs in it (perf_hooks 'gc' entries)`,
        idleCpuAfterWorkPercent: `CPU over ${IDLE_MS / 1000} s from 8 s after the last request, the idleCpuPercent of runs up to 2026-11-26 (then V8's memory reducer was retired by a run-time flag and an --expose-gc trim ran before the window; both removed 2026-11-27): it holds the settling pass when V8 starts it within the window`,
        settle:
          "the settling pass: V8's memory reducer's full GCs once the allocation rate is low after the requests (bench/lib/idle-watch.ts); settleS: last request → the pass over (both reducer GCs seen and 3 s without a full GC); settleMajorGcs: full GCs in that time; settleGcPauseMs: their main-thread time (perf_hooks); settleCpuMs: the process's CPU (all threads) over settleS; settleRssFreedMb: VmRSS before − after; settled false: the pass not over within 240 s of the last request",
        rssMb:
          'VmRSS of the core process after the run and its idle minute (steady state: the idle trim done); rssGrowthMb is over the same process with an empty schedule; rssAfterWorkMb: VmRSS right after the requests, before the idle minute (the transient, young generation still grown from loading)',
        startupMs:
          'scheduler.start(): open (and check) the database, import an old schedule file once, start the timer',
        floors:
          'httpFloorP95Ms: a request doing no store work; diskAppendFsyncP95Ms: write + fdatasync of one line on the same disk — create/cancel pay both',
      },
      targets: { ...TARGETS, database: DB_TARGETS },
      loadAverage: { atStart: LOAD_AT_START, atEnd: os.loadavg().map((l) => round(l)), cores: os.cpus().length },
      baseline: {
        rssMb: round(baseline.rssMb),
        idleCpuPercent: round(baseline.idle.steadyPercent, 3),
        idleWakeupsPerMin: round(baseline.idle.steadyWakeupsPerMin, 1),
        idleCpuAfterWorkPercent: round(baseline.idle.afterWorkPercent, 3),
        settleCpuMs: round(baseline.idle.settleCpuMs),
        settleS: round(baseline.idle.settleS, 1),
        httpFloorP95Ms: baseline.httpFloor,
        diskAppendFsyncP95Ms: diskFloor,
      },
      schedule: rows,
      notes,
      // One object, as issue 54 names it: the year of calls (transcriptLines…) and the schedule (schedule100k…).
      database: {
        ...notesDatabase,
        ...scheduleDatabase,
        definitions: { ...DATABASE_DEFINITIONS, ...scheduleDatabase.definitions },
      },
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
  const release = extractReleaseTree(ref);
  try {
    const { fillSchedule: releaseFill } = (await import(path.join(release, 'bench', 'lib', 'store-fill.ts'))) as {
      fillSchedule: StoreUnderTest['fill'];
    };
    for (const size of SIZES) {
      process.stdout.write(`measuring release ${ref}'s JSONL store at ${size.toLocaleString('en')} entries…\n`);
      const m = await measureSchedule(size, {
        core: path.join(release, 'bench', 'lib', 'store-core.ts'),
        fill: releaseFill,
      });
      const row = scheduleFigures(size, m);
      jsonl.push(row);
      const sql = bySize(measured, size);
      console.log(
        `  ${size.toLocaleString('en')}: database create/cancel/list p95 ${sql?.createP95Ms}/${sql?.cancelP95Ms}/${sql?.listP95Ms} ms, idle CPU ${sql?.idleCpuPercent} % — JSONL ${row.createP95Ms}/${row.cancelP95Ms}/${row.listP95Ms} ms, ${row.idleCpuPercent} %`,
      );
    }
  } finally {
    rmSync(release, { recursive: true, force: true });
  }
  const [load1, load5, load15] = loadavg();
  return {
    definitions: {
      scheduleNk:
        "this tree's schedule store (the database) with N thousand pending entries: the `schedule` row of the same size (same definitions)",
      scheduleJsonl: `release ${ref}'s JSONL journal store measured the same way in the same run`,
      loadAverage:
        "the machine's 1/5/15-minute load average when the section finished (figures from a loaded machine are upper bounds)",
    },
    schedule1k: bySize(measured, 1000),
    schedule10k: bySize(measured, 10_000),
    schedule100k: bySize(measured, 100_000),
    scheduleJsonl: {
      ref,
      schedule1k: bySize(jsonl, 1000),
      schedule10k: bySize(jsonl, 10_000),
      schedule100k: bySize(jsonl, 100_000),
    },
    loadAverage: [round(load1!, 2), round(load5!, 2), round(load15!, 2)],
  };
}

/** The figures of one measured size (what the database section compares). */
function scheduleFigures(entries: number, m: Awaited<ReturnType<typeof measureSchedule>>) {
  return {
    entries,
    createP95Ms: round(m.creates.p95_ms),
    cancelP95Ms: round(m.cancels.p95_ms),
    listP95Ms: round(m.lists.p95_ms),
    idleCpuPercent: round(m.idle.steadyPercent, 3),
    startupMs: round(m.startupMs),
    rssMb: round(m.rssMb),
  };
}

/** `main/`, `bench/lib/` and package.json of `ref` in a temp folder, with this tree's node_modules linked in. */
function extractReleaseTree(ref: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'lvb-bench-release-'));
  const root = path.resolve(HERE, '..');
  execFileSync('sh', [
    '-c',
    `git -C "$1" archive "$2" main bench/lib package.json | tar -x -C "$3"`,
    'sh',
    root,
    ref,
    dir,
  ]);
  symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}
