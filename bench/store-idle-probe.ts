// `node bench/store-idle-probe.ts`: where an idle store core's CPU goes, thread by thread. Fills the
// schedule (PROBE_ENTRIES, default 100,000), starts bench/lib/store-core.ts with PROBE_CORE_ARGS
// (default `--trace-gc`, printed with a timestamp), sends what bench:store sends (creates, list
// pages, cancels), then reads /proc/<pid>/task/*/stat every 100 ms for PROBE_IDLE_S (default 75) and
// prints every tick (10 ms of CPU) with the thread that spent it and its time since the probe began.
// This is how the 0.3 % "idle" CPU at 100,000 entries was found to be two full GCs of V8's memory
// reducer 10-26 s after the core's idle trim, mostly on V8's worker threads (docs/notifications.md).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fillSchedule } from './lib/store-fill.ts';
import { CORE_NODE_FLAGS } from '../main/core/core-node-flags.ts';

const CORE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'lib', 'store-core.ts');
const ENTRIES = Number(process.env.PROBE_ENTRIES ?? 100_000);
const IDLE_S = Number(process.env.PROBE_IDLE_S ?? 75);
const CORE_ARGS = [...CORE_NODE_FLAGS, ...(process.env.PROBE_CORE_ARGS ?? '--trace-gc').split(' ').filter(Boolean)];
const TOKEN = randomBytes(24).toString('hex');

const home = mkdtempSync(path.join(tmpdir(), 'lvb-store-probe-'));
fillSchedule(home, ENTRIES);
const t0 = performance.now();
const stamp = (): string => ((performance.now() - t0) / 1000).toFixed(2).padStart(7);
const child = spawn(process.execPath, [...CORE_ARGS, CORE, home, TOKEN], { stdio: ['ignore', 'pipe', 'inherit'] });
const base = await new Promise<string>((resolve, reject) => {
  let pending = '';
  child.stdout!.on('data', (d: Buffer) => {
    pending += d.toString();
    for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      console.log(`${stamp()} core: ${line}`);
      const ready = /READY (\d+)/.exec(line);
      if (ready) resolve(`http://127.0.0.1:${ready[1]}`);
    }
  });
  child.on('exit', (code) => reject(new Error(`store core exited ${code}`)));
});

async function request(method: string, url: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(base + url, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return (await res.json()) as Record<string, unknown>;
}

const ids: string[] = [];
for (let i = 0; i < 250; i++)
  ids.push(
    String(
      (await request('POST', '/schedule', { text: `probe ${i}`, delay_seconds: 7 * 86_400, mode: 'dm' })).scheduled,
    ),
  );
let cursor: unknown = null;
for (let i = 0; i < 150; i++)
  cursor = (
    await request('GET', `/schedule?limit=100&state=scheduled${typeof cursor === 'string' ? `&cursor=${cursor}` : ''}`)
  ).next_cursor;
for (const id of ids) await request('DELETE', `/schedule/${id}`);
console.log(
  `${stamp()} probe: requests done; per-thread ticks follow (the main thread is the one whose id is the pid ${child.pid})`,
);

function threadTicks(): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${child.pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${child.pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks.set(tid, Number(fields[11]) + Number(fields[12])); // utime + stime
    } catch {
      // the thread ended between readdir and read
    }
  }
  return ticks;
}

let previous = threadTicks();
const totals = new Map<string, number>();
for (const end = performance.now() + IDLE_S * 1000; performance.now() < end;) {
  await new Promise((r) => setTimeout(r, 100));
  const now = threadTicks();
  for (const [tid, ticks] of now) {
    const spent = ticks - (previous.get(tid) ?? 0);
    if (spent <= 0) continue;
    console.log(`${stamp()} +${spent} tick(s) thread ${tid}`);
    totals.set(tid, (totals.get(tid) ?? 0) + spent);
  }
  previous = now;
}
console.log('ticks per thread over the idle period:', Object.fromEntries(totals));
child.kill('SIGKILL');
rmSync(home, { recursive: true, force: true });
