// Crash test with the real dispatcher and webhook sender at the default throttle (2 s), a receiver
// that takes seconds to answer, and 10,000 entries in the file. A child scheduler is SIGKILLed at
// random moments, also while a delivery waits for its throttle slot. The receiver honours the
// `Idempotency-Key` (a repeat of a key it has is answered and not acted on again). Afterwards every
// due reminder was acted on at the receiver exactly once, under one key, and is `delivered`: an entry
// killed while waiting for its slot was not claimed, so the next run delivers it; one killed with its
// POST in flight is sent again under the same key (claim-owner.ts), so the receiver keeps one.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { scheduleFilePath, type StoredNotification } from '../../../main/core/notify/schedule-store.ts';
import { readScheduleRows, writeScheduleRows } from '../../helpers/schedule-db.ts';
import { openDatabase } from '../../../main/core/store/database.ts';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'scheduler-webhook-child.ts');
const TOTAL = 10_000;
const DUE = 16;
const MAX_RUNS = 30;
let home: string;
let server: Server;
let url: string;
/** Idempotency key → the reminder k it carried (the first POST of a key is acted on, repeats are not). */
const keys = new Map<string, number>();
let repeats = 0;

beforeAll(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'lvb-crash-slow-'));
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const text = (JSON.parse(body) as { embeds: { description: string }[] }).embeds[0]!.description;
      const k = Number(/slow-(\d+)/.exec(text)?.[1]);
      const key = String(req.headers['idempotency-key']);
      // A repeat of a key it has: the stored answer, at once, nothing done again.
      if (keys.has(key)) {
        repeats++;
        return void res.end('ok');
      }
      keys.set(key, k);
      // A receiver that takes seconds to act and answer.
      setTimeout(() => res.end('ok'), 300 + Math.random() * 1700);
    });
    req.on('error', () => undefined);
    res.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await rm(home, { recursive: true, force: true });
});

function entry(k: number, fire: number, mode: StoredNotification['mode']): StoredNotification {
  const now = Date.now() / 1000;
  return {
    id: `n-${k.toString(16).padStart(12, '0')}`,
    text: `slow-${k}`,
    mode,
    delay_seconds: fire - now,
    fire_at_epoch: fire,
    created_at: now,
    state: 'scheduled',
    attempts: 0,
    updated_at: now,
  };
}

/** Run a child until `killAfterMs` past READY (or until `done()` when killAfterMs is null). */
function runChild(file: string, killAfterMs: number | null, done: () => Promise<boolean>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, file, url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      if (!d.toString().includes('READY')) return;
      if (killAfterMs !== null) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      else {
        const poll = async (): Promise<void> => {
          if (await done()) child.kill('SIGKILL');
          else timer = setTimeout(() => void poll(), 250);
        };
        void poll();
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL') reject(new Error(`child exited ${code} ${signal}: ${stderr}`));
      else resolve();
    });
  });
}

async function readEntries(file: string): Promise<{ entries: StoredNotification[]; damaged: number }> {
  return { entries: readScheduleRows(file), damaged: 0 };
}

it(
  `keeps every reminder once or truthfully reported through SIGKILLs, with slow deliveries, the default throttle and ${TOTAL} entries`,
  { timeout: 300_000 },
  async () => {
    const file = scheduleFilePath(home);
    await mkdir(path.dirname(file), { recursive: true });
    const now = Date.now() / 1000;
    const records: StoredNotification[] = [];
    for (let k = 0; k < TOTAL - DUE; k++) records.push(entry(100_000 + k, now + 86_400 + k, 'dm'));
    for (let k = 0; k < DUE; k++) records.push(entry(k, now + k * 0.1, 'webhook'));
    openDatabase({ dir: path.dirname(file), logger: pino({ level: 'silent' }) }).close(); // the schema
    writeScheduleRows(file, records);

    const dueDone = async (): Promise<boolean> => {
      const { entries } = await readEntries(file);
      return (
        entries.filter((e) => e.mode === 'webhook' && (e.state === 'scheduled' || e.state === 'delivering')).length ===
        0
      );
    };
    let kills = 0;
    while (kills < MAX_RUNS && !(await dueDone())) {
      await runChild(file, 300 + Math.random() * 3200, dueDone);
      kills++;
      const { entries, damaged } = await readEntries(file);
      expect(damaged, `damaged lines after kill ${kills}`).toBe(0);
      expect(entries).toHaveLength(TOTAL);
    }
    // An unkilled run finishes what is left (including claims abandoned by the last kill).
    await runChild(file, null, dueDone);

    const { entries } = await readEntries(file);
    expect(entries).toHaveLength(TOTAL);
    const due = entries.filter((e) => e.mode === 'webhook');
    expect(due).toHaveLength(DUE);
    const actedOn = (k: number) => [...keys.values()].filter((x) => x === k).length;
    for (const e of due) {
      const k = Number(e.text.slice('slow-'.length));
      expect(actedOn(k), `${e.text} acted on at the receiver (by key)`).toBe(1); // never lost, never twice
      expect(keys.get(e.id), `${e.text} under its entry's key`).toBe(k);
      expect(e.state, `${e.text}: ${e.last_error ?? ''}`).toBe('delivered');
    }
    // The far-future entries were never touched.
    expect(entries.filter((e) => e.mode === 'dm' && e.state !== 'scheduled')).toEqual([]);
    console.log(
      `slow crash test: ${kills} kills, ${DUE} due of ${TOTAL}, ${due.filter((e) => e.state === 'delivered').length} delivered once, ${due.filter((e) => e.interrupted).length} interrupted and sent again under their key (${repeats} repeats the receiver already had)`,
    );
  },
);
