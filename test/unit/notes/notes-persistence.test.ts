// Notes that last: after a restart /notes and /calls read the previous calls back from disk
// (through the real sidecar), with call, before, limit and q; retention prunes by age and size and
// never the call in progress.
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../main/core/log/logger.ts';
import { NotesArchive } from '../../../main/core/notes/notes-archive.ts';
import { NotesLog } from '../../../main/core/notes/notes-log.ts';
import { pruneAppendLog, pruneFolder } from '../../../main/core/notes/retention.ts';
import { registerNotesRoutes } from '../../../main/core/sidecar/routes/notes.ts';
import { createSidecar, type Sidecar } from '../../../main/core/sidecar/server.ts';
import { errorCode, rawRequest, type RawResponse } from '../../helpers/http.ts';

const TOKEN = 'notes-token-'.padEnd(40, 'x');
let dir: string;
let sidecar: Sidecar | undefined;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'lvb-notes-last-'));
});
afterEach(async () => {
  await sidecar?.close();
  sidecar = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** A fresh core's notes routes over the same folder (what a restart gives). */
async function restart(): Promise<(url: string) => Promise<RawResponse>> {
  await sidecar?.close();
  sidecar = createSidecar({ host: '127.0.0.1', port: 0, token: TOKEN, logger: silentLogger(), routes: [(app) => registerNotesRoutes(app, { archive: new NotesArchive(dir) })] });
  await sidecar.listen();
  const port = Number(new URL(sidecar.url).port);
  return (url) => rawRequest({ port, path: url, headers: { authorization: `Bearer ${TOKEN}` } });
}

function recordCall(callId: string, startTs: number, lines: string[]): void {
  const log = new NotesLog({ dir });
  log.startCall(callId);
  lines.forEach((text, i) => log.append({ kind: i % 2 ? 'output_transcript' : 'input_transcript', speaker: i % 2 ? 'model' : 'owner', text, ts: startTs + i }));
  log.close();
}

describe('notes survive restarts', () => {
  it("restart → /notes returns the previous call's notes; /calls lists past calls; call, before, limit and q work", async () => {
    recordCall('call-a', 1_000, ['hello there', 'hi, how can I help', 'remind me about the dentist']);
    recordCall('call-b', 2_000, ['second call', 'the DENTIST is at nine', 'ok']);
    const outside = new NotesLog({ dir, now: () => 3_000_000 });
    outside.append({ kind: 'notification', text: 'a notification with no call live' });
    outside.close();

    const get = await restart();
    const recent = await get('/notes?limit=2');
    expect(recent.status).toBe(200);
    expect((recent.json as { notes: { text: string }[] }).notes.map((n) => n.text)).toEqual(['ok', 'a notification with no call live']);

    const calls = (await get('/calls')).json as { calls: { id: string; events: number; started_at: number; ended_at: number }[]; next_before: number | null };
    expect(calls.calls.map((c) => [c.id, c.events])).toEqual([
      ['outside-1970-01-01', 1],
      ['call-b', 3],
      ['call-a', 3],
    ]);
    expect(calls.calls[1]).toMatchObject({ started_at: 2_000, ended_at: 2_002 });
    const paged = (await get('/calls?limit=1')).json as { calls: { id: string }[]; next_before: number };
    expect((await get(`/calls?limit=5&before=${paged.next_before}`)).json).toMatchObject({ calls: [{ id: 'call-b' }, { id: 'call-a' }], next_before: null });

    const callA = (await get('/notes?call=call-a')).json as { notes: { text: string; callId: string }[] };
    expect(callA.notes.map((n) => n.text)).toEqual(['hello there', 'hi, how can I help', 'remind me about the dentist']);
    expect(callA.notes.every((n) => n.callId === 'call-a')).toBe(true);

    const search = (await get('/notes?q=dentist')).json as { notes: { text: string }[] };
    expect(search.notes.map((n) => n.text)).toEqual(['remind me about the dentist', 'the DENTIST is at nine']);

    const page1 = (await get('/notes?limit=4')).json as { notes: { ts: number; text: string }[]; next_before: number };
    const page2 = (await get(`/notes?limit=4&before=${page1.next_before}`)).json as { notes: { text: string }[]; next_before: number | null };
    expect([...page2.notes, ...page1.notes].map((n) => n.text)).toEqual(['hello there', 'hi, how can I help', 'remind me about the dentist', 'second call', 'the DENTIST is at nine', 'ok', 'a notification with no call live']);
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
  function file(name: string, bytes: number, ageDays: number): string {
    const f = path.join(dir, name);
    writeFileSync(f, 'x'.repeat(bytes));
    const t = new Date(now - ageDays * day);
    utimesSync(f, t, t);
    return f;
  }

  it('prunes notes older than N days, then the oldest beyond M bytes, never the call in progress', () => {
    file('old.jsonl', 10, 100);
    const current = file('current.jsonl', 400, 95); // in progress: kept whatever its age
    file('a.jsonl', 300, 30);
    file('b.jsonl', 300, 20);
    file('c.jsonl', 300, 10);
    file('keep-me.txt', 10, 500); // not a notes file
    const result = pruneFolder(dir, { suffix: '.jsonl', maxAgeDays: 90, maxBytes: 900, nowMs: now, keep: (f) => f === current });
    expect(result.deleted.sort()).toEqual(['a.jsonl', 'b.jsonl', 'old.jsonl']);
    expect(readdirSync(dir).sort()).toEqual(['c.jsonl', 'current.jsonl', 'keep-me.txt']);
    expect(result.bytes).toBe(700);
  });

  it('.rejected: deleted when untouched for N days, else cut to its newest whole lines', () => {
    const rejected = path.join(dir, 'notifications-schedule.jsonl.rejected');
    writeFileSync(rejected, Array.from({ length: 100 }, (_, i) => `bad line ${String(i).padStart(3, '0')}`).join('\n') + '\n');
    expect(pruneAppendLog(rejected, { maxAgeDays: 90, maxBytes: 100, nowMs: now + day })).toBe('trimmed');
    const kept = readFileSync(rejected, 'utf8');
    expect(kept.length).toBeLessThanOrEqual(100);
    expect(kept.endsWith('bad line 099\n')).toBe(true);
    expect(kept.split('\n')[0]).toMatch(/^bad line \d{3}$/);
    const t = new Date(now - 91 * day);
    utimesSync(rejected, t, t);
    expect(pruneAppendLog(rejected, { maxAgeDays: 90, maxBytes: 100, nowMs: now })).toBe('deleted');
    expect(readdirSync(dir)).toEqual([]);
  });
});
