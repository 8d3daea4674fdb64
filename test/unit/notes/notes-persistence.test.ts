// Notes that last: after a restart /notes and /calls read the previous calls back from the database
// (through the real sidecar), with call, before, limit and q; retention prunes by age and size, from
// every table and the search index, and never the call in progress.
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../main/core/log/logger.ts';
import { searchNotes } from '../../../main/core/notes/notes-search.ts';
import { pruneNotes } from '../../../main/core/notes/notes-store.ts';
import { pruneAppendLog } from '../../../main/core/notes/retention.ts';
import { SqlUsageLedger } from '../../../main/core/usage/ledger-store.ts';
import { registerNotesRoutes } from '../../../main/core/sidecar/routes/notes.ts';
import { createSidecar, type Sidecar } from '../../../main/core/sidecar/server.ts';
import { errorCode, rawRequest, type RawResponse } from '../../helpers/http.ts';
import { openNotesDb, type NotesDb } from '../../helpers/notes-db.ts';

const TOKEN = 'notes-token-'.padEnd(40, 'x');
let dir: string;
let sidecar: Sidecar | undefined;
let db: NotesDb | undefined;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'lvb-notes-last-'));
});
afterEach(async () => {
  await sidecar?.close();
  sidecar = undefined;
  db?.close();
  db = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function notesDb(): NotesDb {
  return (db ??= openNotesDb(dir));
}

/** A fresh core's notes routes over the same folder (what a restart gives: the database opened anew). */
async function restart(): Promise<(url: string) => Promise<RawResponse>> {
  await sidecar?.close();
  db?.close();
  db = undefined;
  const store = notesDb().store;
  sidecar = createSidecar({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    logger: silentLogger(),
    routes: [(app) => registerNotesRoutes(app, { archive: store })],
  });
  await sidecar.listen();
  const port = Number(new URL(sidecar.url).port);
  return (url) => rawRequest({ port, path: url, headers: { authorization: `Bearer ${TOKEN}` } });
}

function recordCall(callId: string, startTs: number, lines: string[]): void {
  const log = notesDb().log();
  log.startCall(callId);
  lines.forEach((text, i) =>
    log.append({
      kind: i % 2 ? 'output_transcript' : 'input_transcript',
      speaker: i % 2 ? 'model' : 'owner',
      text,
      ts: startTs + i,
    }),
  );
  log.close();
}

describe('notes survive restarts', () => {
  it("restart → /notes returns the previous call's notes; /calls lists past calls; call, before, limit and q work", async () => {
    recordCall('call-a', 1_000, ['hello there', 'hi, how can I help', 'remind me about the dentist']);
    recordCall('call-b', 2_000, ['second call', 'the DENTIST is at nine', 'ok']);
    const outside = notesDb().log({ now: () => 3_000_000 });
    outside.append({ kind: 'notification', text: 'a notification with no call live' });
    outside.close();

    const get = await restart();
    const recent = await get('/notes?limit=2');
    expect(recent.status).toBe(200);
    expect((recent.json as { notes: { text: string }[] }).notes.map((n) => n.text)).toEqual([
      'ok',
      'a notification with no call live',
    ]);

    const calls = (await get('/calls')).json as {
      calls: { id: string; events: number; started_at: number; ended_at: number }[];
      next_before: number | null;
    };
    expect(calls.calls.map((c) => [c.id, c.events])).toEqual([
      ['outside-1970-01-01', 1],
      ['call-b', 3],
      ['call-a', 3],
    ]);
    expect(calls.calls[1]).toMatchObject({ started_at: 2_000, ended_at: 2_002 });
    const paged = (await get('/calls?limit=1')).json as { calls: { id: string }[]; next_before: number };
    expect((await get(`/calls?limit=5&before=${paged.next_before}`)).json).toMatchObject({
      calls: [{ id: 'call-b' }, { id: 'call-a' }],
      next_before: null,
    });

    const callA = (await get('/notes?call=call-a')).json as { notes: { text: string; callId: string }[] };
    expect(callA.notes.map((n) => n.text)).toEqual([
      'hello there',
      'hi, how can I help',
      'remind me about the dentist',
    ]);
    expect(callA.notes.every((n) => n.callId === 'call-a')).toBe(true);

    const search = (await get('/notes?q=dentist')).json as { notes: { text: string }[] };
    expect(search.notes.map((n) => n.text)).toEqual(['remind me about the dentist', 'the DENTIST is at nine']);

    const page1 = (await get('/notes?limit=4')).json as { notes: { ts: number; text: string }[]; next_before: number };
    const page2 = (await get(`/notes?limit=4&before=${page1.next_before}`)).json as {
      notes: { text: string }[];
      next_before: number | null;
    };
    expect([...page2.notes, ...page1.notes].map((n) => n.text)).toEqual([
      'hello there',
      'hi, how can I help',
      'remind me about the dentist',
      'second call',
      'the DENTIST is at nine',
      'ok',
      'a notification with no call live',
    ]);
    expect(page2.next_before).toBeNull();

    const missing = await get('/notes?call=call-zzz');
    expect([missing.status, errorCode(missing)]).toEqual([404, 'unknown_call']);
    for (const [url, code] of [
      ['/notes?call=../secrets', 'bad_call'],
      ['/notes?before=soon', 'bad_before'],
      ['/notes?q=', 'bad_q'],
      ['/notes?limit=0', 'invalid_limit'],
      ['/notes?limit=2&limit=3', 'invalid_limit'],
      ['/calls?limit=x', 'invalid_limit'],
    ] as const) {
      const res = await get(url);
      expect([res.status, errorCode(res)], url).toEqual([400, code]);
    }
  });
});

describe('retention', () => {
  const day = 86_400_000;
  const now = Date.UTC(2026, 10, 23);
  /** A call of `lines` notes with a searchable word, ending `ageDays` ago. */
  function call(id: string, ageDays: number, lines: number, word: string): void {
    const log = notesDb().log();
    log.startCall(id);
    for (let i = 0; i < lines; i++)
      log.append({
        kind: 'input_transcript',
        speaker: 'owner',
        text: `${word} line ${i} `.padEnd(80, '.'),
        ts: (now - ageDays * day) / 1000 + i,
      });
    log.close();
  }
  const found = (word: string): string[] =>
    searchNotes(notesDb().database.db, word, { limit: 100 }).map((h) => h.call_id);

  it('prunes calls older than N days, then the oldest beyond M bytes, never the call in progress, from every table and the index', () => {
    call('old', 100, 3, 'aardvark');
    call('current', 95, 5, 'badger'); // in progress: kept whatever its age
    call('a', 30, 10, 'cheetah');
    call('b', 20, 10, 'dingo');
    call('c', 10, 10, 'echidna');
    const store = notesDb().store;
    const ledger = new SqlUsageLedger(store.db);
    ledger.save({ day: '2026-08-01', calls: { old: 1.5 }, time: {}, warned: true });
    ledger.save({ day: '2026-11-20', calls: { c: 0.5 }, time: {}, warned: false });
    store.db.prepare("INSERT INTO summaries (call_id, created_at, body) VALUES ('old', 1, '{}')").run();
    const callBytes = store.call('c')!.bytes;
    expect(found('cheetah')).toHaveLength(10);

    const result = pruneNotes(store, {
      maxAgeDays: 90,
      maxBytes: callBytes + store.call('current')!.bytes,
      nowMs: now,
      keep: 'current',
    });
    expect(result).toMatchObject({ callsDeleted: 3, notesDeleted: 23, usageDaysDeleted: 1 });
    expect(store.calls().map((c) => c.id)).toEqual(['c', 'current']);
    for (const gone of ['aardvark', 'cheetah', 'dingo']) expect(found(gone), gone).toEqual([]);
    expect(found('echidna')).toHaveLength(10);
    expect(found('badger')).toHaveLength(5);
    // The index holds exactly the rows left, and nothing else of the deleted calls is kept.
    store.db.prepare("INSERT INTO notes_fts (notes_fts, rank) VALUES ('integrity-check', 1)").run();
    expect(store.db.prepare('SELECT count(*) AS n FROM notes_fts').get()).toEqual({ n: 15 });
    expect(store.db.prepare('SELECT count(*) AS n FROM summaries').get()).toEqual({ n: 0 });
    expect(ledger.load('2026-08-01').calls).toEqual({});
    expect(ledger.load('2026-11-20').calls).toEqual({ c: 0.5 });
  });

  it('.rejected: deleted when untouched for N days, else cut to its newest whole lines', () => {
    const rejected = path.join(dir, 'notifications-schedule.jsonl.rejected');
    writeFileSync(
      rejected,
      Array.from({ length: 100 }, (_, i) => `bad line ${String(i).padStart(3, '0')}`).join('\n') + '\n',
    );
    expect(pruneAppendLog(rejected, { maxAgeDays: 90, maxBytes: 100, nowMs: now + day })).toBe('trimmed');
    const kept = readFileSync(rejected, 'utf8');
    expect(kept.length).toBeLessThanOrEqual(100);
    expect(kept.endsWith('bad line 099\n')).toBe(true);
    expect(kept.split('\n')[0]).toMatch(/^bad line \d{3}$/);
    const t = new Date(now - 91 * day);
    utimesSync(rejected, t, t);
    expect(pruneAppendLog(rejected, { maxAgeDays: 90, maxBytes: 100, nowMs: now })).toBe('deleted');
    expect(readdirSync(dir).filter((n) => n.includes('rejected'))).toEqual([]);
  });
});
