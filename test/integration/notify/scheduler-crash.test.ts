// Crash test: a child process runs the scheduler and is SIGKILLed at random moments while 100
// schedule/fire cycles go through one file. Afterwards nothing acknowledged is lost, nothing is
// delivered twice, and the database is never corrupt (checked after every kill).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { NotifyRequest, NotifyResult } from '../../../main/core/api-types.ts';
import { scheduleFilePath } from '../../../main/core/notify/schedule-store.ts';
import { scheduleDatabaseFile } from '../../helpers/schedule-db.ts';
import Database from 'better-sqlite3';
import { createScheduler } from '../../../main/core/notify/scheduler.ts';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'scheduler-child.ts');
const CYCLES = 100;
let home: string;

beforeAll(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'lvb-crash-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

interface ChildRun {
  acked: { k: number; id: string; text: string }[];
  killed: boolean;
}

function runChild(file: string, logPath: string, start: number): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, file, logPath, String(start), String(CYCLES)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const run: ChildRun = { acked: [], killed: false };
    let buffered = '';
    let stderr = '';
    let killTimer: NodeJS.Timeout | undefined;
    const kill = (): void => {
      run.killed = child.kill('SIGKILL');
    };
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        const [word, k, id, text] = line.split(' ');
        if (word === 'READY') killTimer = setTimeout(kill, Math.random() * 150);
        else if (word === 'ACK') run.acked.push({ k: Number(k), id: id!, text: text! });
        else if (word === 'DONE') {
          clearTimeout(killTimer);
          killTimer = setTimeout(kill, Math.random() * 60);
        }
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(killTimer);
      if (signal !== 'SIGKILL') reject(new Error(`child exited ${code} ${signal}: ${stderr}`));
      else resolve(run);
    });
  });
}

it('survives SIGKILL at random moments during 100 schedule/fire cycles', { timeout: 240_000 }, async () => {
  const file = scheduleFilePath(home);
  const logPath = path.join(home, 'deliveries.log');
  await writeFile(logPath, '');
  const acked = new Map<string, string>(); // id → text
  let next = 0;
  let kills = 0;
  while (next < CYCLES) {
    const run = await runChild(file, logPath, next);
    kills++;
    for (const a of run.acked) acked.set(a.id, a.text);
    if (run.acked.length) next = run.acked.at(-1)!.k + 1;
    // Never corrupt: after every kill the database passes SQLite's integrity check.
    if (existsSync(scheduleDatabaseFile(file))) {
      const db = new Database(scheduleDatabaseFile(file));
      expect(db.pragma('integrity_check', { simple: true }), `integrity after kill ${kills}`).toBe('ok');
      db.close();
    }
  }

  // A final, unkilled scheduler finishes whatever is left and recovers abandoned claims.
  const finalDeliveries: string[] = [];
  const notifier = {
    async deliver(req: NotifyRequest): Promise<NotifyResult> {
      finalDeliveries.push(req.text);
      return {
        id: 'n-test',
        status: 'ok',
        channel: 'dm',
        results: { dm: { status: 'ok' } },
        notified_at: Date.now() / 1000,
      };
    },
  };
  const finisher = createScheduler({ file, notifier, logger: pino({ level: 'silent' }), lockStaleMs: 2000 });
  for (let i = 0; i < 100; i++) {
    await finisher.tick();
    const pending = (await finisher.list({ limit: 1000 })).entries.filter(
      (e) => e.state === 'scheduled' || e.state === 'delivering',
    );
    if (pending.length === 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }

  const entries = (await finisher.list({ limit: 1000 })).entries;
  const byId = new Map(entries.map((e) => [e.id, e]));
  const logged = (await readFile(logPath, 'utf8')).split('\n').filter(Boolean).concat(finalDeliveries);
  const deliveriesPerText = new Map<string, number>();
  for (const t of logged) deliveriesPerText.set(t, (deliveriesPerText.get(t) ?? 0) + 1);

  // Nothing lost: every acknowledged entry is in the file, finished, with its own text.
  expect(acked.size).toBe(CYCLES);
  for (const [id, text] of acked) {
    const e = byId.get(id);
    expect(e, `acknowledged ${id} missing`).toBeDefined();
    expect(e!.text).toBe(text);
    expect(['delivered', 'failed']).toContain(e!.state);
  }
  // Nothing duplicated: no notification was sent twice.
  const duplicates = [...deliveriesPerText].filter(([, n]) => n > 1);
  expect(duplicates).toEqual([]);
  // Truthful states: delivered ⇔ sent exactly once; failed only for an interrupted attempt.
  let interrupted = 0;
  for (const e of entries) {
    if (e.state === 'delivered') expect(deliveriesPerText.get(e.text), e.id).toBe(1);
    else {
      expect(e.state).toBe('failed');
      expect(e.last_error).toMatch(/^interrupted during delivery/);
      interrupted++;
    }
  }
  // Every text sent belongs to an entry in the file.
  const texts = new Set(entries.map((e) => e.text));
  for (const t of deliveriesPerText.keys()) expect(texts.has(t), t).toBe(true);
  console.log(
    `crash test: ${kills} kills, ${entries.length} entries (${acked.size} acknowledged), ${interrupted} interrupted mid-delivery`,
  );
});
