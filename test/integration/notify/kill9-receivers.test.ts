// Once-only delivery through kill -9, counted at the receiver: a child process runs the real
// scheduler, dispatcher and webhook sender on the database and is SIGKILLed at random moments (at
// least 100 times) while it schedules and delivers. The receiver is four kinds at once, by the
// reminder's text: fast (200 at once), slow (200 after 200-600 ms: kills land while bytes are in
// flight), failing (500 to the first two attempts) and rate-limiting (429 with Retry-After: 1 to the
// first). It honours the `Idempotency-Key` as such a receiver does: the first request of a key it
// accepts is acted on; a repeat of an accepted key is answered 200 at once and not acted on again; a
// key reused for another reminder is refused 422 (IETF draft-ietf-httpapi-idempotency-key-header,
// section 2.6: "a different request payload" → 422). A kill between the claim's commit and the POST,
// or while the POST is unanswered, leaves a claim that the next start sends again under the same key.
// Afterwards, at the receiver: every acknowledged reminder acted on exactly once (0 lost), none
// acted on twice nor under two keys (0 duplicated), and no request came before its Retry-After.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { scheduleFilePath } from '../../../main/core/notify/schedule-store.ts';
import { readScheduleRows, scheduleDatabaseFile } from '../../helpers/schedule-db.ts';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'scheduler-receivers-child.ts');
const CYCLES = 120;
const MIN_KILLS = 100;
let home: string;
let server: Server;
let url: string;
/** Per idempotency key: the reminder it carried, requests, refusals, acted on, and when a 429 said to come back. */
interface KeySeen {
  text: string;
  requests: number;
  refused: number;
  acted: number;
  repeats: number;
  notBefore: number;
}
const seen = new Map<string, KeySeen>();
let earlyAfter429 = 0;
let keyConflicts = 0;
let missingKey = 0;

function answer(key: string, text: string, reply: (status: number, headers?: Record<string, string>) => void): void {
  const s = seen.get(key) ?? { text, requests: 0, refused: 0, acted: 0, repeats: 0, notBefore: 0 };
  seen.set(key, s);
  s.requests++;
  if (s.text !== text) {
    keyConflicts++;
    return reply(422);
  }
  if (Date.now() < s.notBefore) earlyAfter429++;
  // A repeat of a request already accepted: the stored answer, at once, nothing done again.
  if (s.acted > 0) {
    s.repeats++;
    return reply(200);
  }
  const kind = text.split('-')[1];
  const refuse = (status: number, headers?: Record<string, string>): void => {
    s.refused++;
    reply(status, headers);
  };
  if (kind === 'fail' && s.refused < 2) return refuse(500);
  if (kind === 'limit' && s.refused < 1) {
    s.notBefore = Date.now() + 1000;
    return refuse(429, { 'retry-after': '1' });
  }
  // Acted on at receipt: the bytes arrived, whatever happens to the answer.
  s.acted++;
  if (kind === 'slow') setTimeout(() => reply(200), 200 + Math.random() * 400);
  else reply(200);
}

beforeAll(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'lvb-kill9-'));
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const description = (JSON.parse(body) as { embeds: { description: string }[] }).embeds[0]!.description;
      // The reminder's own text (a late delivery carries "(late by …)" after it).
      const text = /^k\d+-[a-z]+-\d+/.exec(description)?.[0] ?? description;
      const key = req.headers['idempotency-key'];
      if (typeof key !== 'string' || !key) {
        missingKey++;
        res.writeHead(400).end('no idempotency key');
        return;
      }
      answer(key, text, (status, headers) => {
        if (!res.destroyed) res.writeHead(status, headers).end(status === 200 ? 'ok' : 'no');
      });
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

interface Run {
  acked: { k: number; id: string; text: string }[];
}

/** One child: killed at random after READY (or, `finish`, once `done()` holds). */
function runChild(file: string, start: number, end: number, done: (() => boolean) | null): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, file, url, String(start), String(end)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const run: Run = { acked: [] };
    let buffered = '';
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    const kill = (): void => void child.kill('SIGKILL');
    const poll = (): void => {
      if (done!()) kill();
      else timer = setTimeout(poll, 100);
    };
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const [word, k, id, text] = buffered.slice(0, nl).split(' ');
        buffered = buffered.slice(nl + 1);
        if (word === 'READY') timer = done ? setTimeout(poll, 100) : setTimeout(kill, Math.random() * 400);
        else if (word === 'ACK') run.acked.push({ k: Number(k), id: id!, text: text! });
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL') reject(new Error(`child exited ${code} ${signal}: ${stderr}`));
      else resolve(run);
    });
  });
}

it(
  `0 lost, 0 duplicates across ≥ ${MIN_KILLS} kill -9 with fast, slow, 5xx and 429 receivers, counted at the receiver`,
  { timeout: 600_000 },
  async () => {
    const file = scheduleFilePath(home);
    const acked = new Map<string, string>(); // id → text
    let next = 0;
    let kills = 0;
    while (kills < MIN_KILLS || next < CYCLES) {
      const run = await runChild(file, next, CYCLES, null);
      kills++;
      for (const a of run.acked) acked.set(a.id, a.text);
      if (run.acked.length) next = run.acked.at(-1)!.k + 1;
      if (existsSync(scheduleDatabaseFile(file))) {
        const db = new Database(scheduleDatabaseFile(file));
        expect(db.pragma('integrity_check', { simple: true }), `integrity after kill ${kills}`).toBe('ok');
        db.close();
      }
    }
    // An unkilled run delivers what is left (retries, Retry-Afters) and recovers the last kill's claims.
    const open = (): boolean => readScheduleRows(file).some((e) => e.state === 'scheduled' || e.state === 'delivering');
    await runChild(file, CYCLES, CYCLES, () => !open());

    const rows = readScheduleRows(file);
    const byId = new Map(rows.map((e) => [e.id, e]));
    expect(acked.size).toBe(CYCLES);
    for (const [id, text] of acked)
      expect(byId.get(id)?.text, `acknowledged ${id} (${text}) lost from the schedule`).toBe(text);
    expect(missingKey, 'requests without an Idempotency-Key').toBe(0);
    expect(keyConflicts, 'a key reused for another reminder').toBe(0);
    // At the receiver, by key (the entry's id): every reminder acted on exactly once.
    const lost = rows
      .filter((e) => (seen.get(e.id)?.acted ?? 0) === 0)
      .map((e) => `${e.text} (${e.state}: ${e.last_error ?? ''})`);
    expect(lost, 'lost: never acted on at the receiver').toEqual([]);
    // The receiver keeps one per key; a re-send under a new key would be a second reminder.
    const keysPerText = new Map<string, number>();
    for (const s of seen.values()) if (s.acted) keysPerText.set(s.text, (keysPerText.get(s.text) ?? 0) + 1);
    expect(
      [...keysPerText].filter(([, n]) => n > 1),
      'acted on under two keys',
    ).toEqual([]);
    for (const key of seen.keys())
      expect(byId.has(key), `${key} reached the receiver but is not an entry's id`).toBe(true);
    expect(earlyAfter429, 'requests before their Retry-After').toBe(0);
    // The records agree with the receiver: delivered, or failed only after MAX_INTERRUPTED_RESENDS
    // interruptions (then the receiver had it once, checked above).
    for (const e of rows)
      if (e.state !== 'delivered')
        expect(e.last_error, e.text).toMatch(/^interrupted during delivery .*; interrupted \d+ times, not sent again/);
    const resent = rows.filter((e) => e.interrupted).length;
    const repeats = [...seen.values()].reduce((n, s) => n + s.repeats, 0);
    const refused = [...seen.values()].reduce((n, s) => n + s.refused, 0);
    expect(resent, 'the kills interrupted deliveries (else this test proves nothing)').toBeGreaterThan(0);
    console.log(
      `kill -9 receivers: ${kills} kills, ${rows.length} entries (${acked.size} acknowledged), ${rows.filter((e) => e.state === 'delivered').length} delivered, 0 lost, 0 duplicated at the receiver; ${resent} interrupted and sent again under their key, ${repeats} repeats the receiver answered without acting, ${refused} refused (5xx/429) and retried`,
    );
  },
);
