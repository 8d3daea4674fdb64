// The schedule store's process left idle (bench/lib/store-core.ts: the real scheduler, notifier and
// notes behind the real sidecar routes, started with the launchers' options): what runs when nothing
// is due, counted, not timed. After a burst of requests V8's memory reducer runs its one settling
// pass (two full GCs, 30-150 s later: bench/lib/idle-watch.ts); from then on an idle core
// runs no GC at all, and its main thread wakes only for the schedule's minute timers (the external-
// edit stat and the delivery loop's clock check: 2 a minute). A poll, a timer that fires with
// nothing to do or a GC that repeats shows up here as wake-ups or GC events, whatever the machine's
// load (docs/performance.md, "Idle: what it costs and when").
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { GcLog, isMajor, mainThreadWakeups, untilSettled } from '../../bench/lib/idle-watch.ts';
import { fillSchedule } from '../../bench/lib/store-fill.ts';
import { CORE_NODE_FLAGS } from '../../main/core/core-node-flags.ts';

const WINDOW_MS = 30_000;
/** The two minute timers fire at most once each in 30 s; the rest is V8's platform and slack. */
const MAX_WAKEUPS_IN_WINDOW = 6;

function request(
  port: number,
  token: string,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const headers = {
      authorization: `Bearer ${token}`,
      ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}),
    };
    const req = http.request({ host: '127.0.0.1', port, path: url, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
        }),
      );
    });
    req.on('error', reject);
    req.end(data);
  });
}

it(
  'an idle store core, once V8 has settled, runs no GC and wakes only for its minute timers',
  { timeout: 330_000 },
  async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'lvb-store-idle-'));
    const token = randomBytes(24).toString('hex');
    fillSchedule(home, 1000);
    const child = spawn(process.execPath, [...CORE_NODE_FLAGS, 'bench/lib/store-core.ts', home, token, '--report-gc'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const gcs = new GcLog(child.stdout);
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /READY (\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        child.once('exit', (code) => reject(new Error(`store core exited ${code}`)));
      });
      // What a user's burst looks like: reminders made, the list paged, the reminders cancelled.
      const ids: string[] = [];
      for (let i = 0; i < 100; i++) {
        const made = await request(port, token, 'POST', '/schedule', {
          text: `idle test ${i}`,
          delay_seconds: 7 * 86_400,
          mode: 'dm',
        });
        expect(made.status).toBe(201);
        ids.push(String(made.json.scheduled));
      }
      for (let i = 0; i < 20; i++)
        expect((await request(port, token, 'GET', '/schedule?limit=100&state=scheduled')).status).toBe(200);
      for (const id of ids) expect((await request(port, token, 'DELETE', `/schedule/${id}`)).status).toBe(200);

      const pass = await untilSettled(gcs, performance.now(), { maxMs: 240_000 });
      expect(pass.settled, 'V8 memory reducer ran its settling pass').toBe(true);
      expect(
        pass.majorGcs,
        "full GCs in the settling pass (the reducer's two, and at most one more)",
      ).toBeLessThanOrEqual(3);

      const windowStart = performance.now();
      const wakeupsBefore = mainThreadWakeups(child.pid!)!;
      await sleep(WINDOW_MS);
      const wakeups = mainThreadWakeups(child.pid!)! - wakeupsBefore;
      const windowGcs = gcs.since(windowStart);
      expect(windowGcs.filter(isMajor), 'full GCs once settled').toEqual([]);
      expect(windowGcs, 'any GC once settled').toEqual([]);
      expect(wakeups, `main-thread wake-ups in ${WINDOW_MS / 1000} s once settled`).toBeLessThanOrEqual(
        MAX_WAKEUPS_IN_WINDOW,
      );
    } finally {
      child.kill('SIGKILL');
      rmSync(home, { recursive: true, force: true });
    }
  },
);
