// GET /notes/search and GET /calls/:id/export over the real sidecar and a real database: hits are
// exactly { call_id, at, speaker, snippet }, newest first, speakers by name; the token is required;
// an empty, word-less or over-long q is 400 bad_q; an opted-out speaker's older lines never come
// back; the export carries the call's summary and every line, as JSON and as Markdown.
import { callExport } from '../../main/core/capabilities/call-export.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../main/core/log/logger.ts';
import { searchNotes } from '../../main/core/notes/notes-search.ts';
import { registerNotesSearchRoutes } from '../../main/core/sidecar/routes/notes-search.ts';
import { createSidecar, type Sidecar } from '../../main/core/sidecar/server.ts';
import { errorCode, rawRequest, type RawResponse } from '../helpers/http.ts';
import { openNotesDb, type NotesDb } from '../helpers/notes-db.ts';

const TOKEN = 'notes-search-token-'.padEnd(40, 'x');
const ADA = '100000000000000001';
const BOB = '100000000000000002';
const optedOut = new Set<string>();
let dir: string;
let db: NotesDb;
let sidecar: Sidecar;
let port: number;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'lvb-notes-search-'));
  db = openNotesDb(dir);
  const log = db.log();
  log.nameSpeakers((id) => ({ [ADA]: 'Ada', [BOB]: 'Bob' })[id]);
  log.startCall('call-mon');
  log.append({
    kind: 'input_transcript',
    speaker: ADA,
    text: 'We decided to ship the installer on Thursday.',
    ts: 1_000,
  });
  log.append({
    kind: 'input_transcript',
    speaker: BOB,
    text: 'My salary is private, but the installer is fine.',
    ts: 1_001,
  });
  log.startCall('call-tue');
  log.append({
    kind: 'output_transcript',
    speaker: 'model',
    text: 'The installer ships Thursday, as decided.',
    ts: 90_000,
  });
  log.close();
  db.store.saveSummary('call-mon', {
    objective: 'ship the installer',
    decisions: [{ text: 'ship Thursday', cites: ['x'] }],
  });
  optedOut.add(BOB); // Bob opted out after the call: his line stays out of every search from now on
  const { store } = db;
  sidecar = createSidecar({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    logger: silentLogger(),
    routes: [
      (app) =>
        registerNotesSearchRoutes(app, {
          search: (q, options) => searchNotes(store.db, q, { ...options, excludeSpeaker: (id) => optedOut.has(id) }),
          exportCall: (id) => callExport(store, id),
        }),
    ],
  });
  await sidecar.listen();
  port = Number(new URL(sidecar.url).port);
});
afterAll(async () => {
  await sidecar.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const get = (url: string, token = TOKEN): Promise<RawResponse> =>
  rawRequest({ port, path: url, headers: { authorization: `Bearer ${token}` } });

describe('GET /notes/search', () => {
  it('answers exactly { hits: [{ call_id, at, speaker, snippet }] }, newest first, by name', async () => {
    const res = await get('/notes/search?q=installer');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      hits: [
        { call_id: 'call-tue', at: 90_000, speaker: 'model', snippet: 'The installer ships Thursday, as decided.' },
        { call_id: 'call-mon', at: 1_000, speaker: 'Ada', snippet: 'We decided to ship the installer on Thursday.' },
      ],
    });
    // Words in any order, whole words; since= bounds the time.
    expect(((await get('/notes/search?q=thursday%20installer')).json as { hits: unknown[] }).hits).toHaveLength(2);
    expect(((await get('/notes/search?q=instal')).json as { hits: unknown[] }).hits).toHaveLength(0);
    expect((await get('/notes/search?q=installer&since=50000')).json).toMatchObject({
      hits: [{ call_id: 'call-tue' }],
    });
  });

  it('never returns the lines of a speaker who opted out', async () => {
    expect((await get('/notes/search?q=salary')).json).toEqual({ hits: [] });
  });

  it('needs the token, and refuses a bad q with 400 bad_q', async () => {
    expect((await get('/notes/search?q=installer', 'wrong'.padEnd(40, 'y'))).status).toBe(401);
    for (const q of ['', '%20%20', '!!!', 'x'.repeat(201)]) {
      const res = await get(`/notes/search?q=${q}`);
      expect([res.status, errorCode(res)], q).toEqual([400, 'bad_q']);
    }
    const none = await get('/notes/search');
    expect([none.status, errorCode(none)]).toEqual([400, 'bad_q']);
    const limit = await get('/notes/search?q=a&limit=0');
    expect([limit.status, errorCode(limit)]).toEqual([400, 'invalid_limit']);
    // FTS5 syntax in q is taken as words, never as a query.
    expect((await get(`/notes/search?q=${encodeURIComponent('installer" OR NEAR(')}`)).status).toBe(200);
  });
});

describe('GET /calls/:id/export', () => {
  it('exports one call with its summary and hand-off as JSON and Markdown; unknown is 404', async () => {
    const json = await get('/calls/call-mon/export');
    expect(json.status).toBe(200);
    expect(json.json).toMatchObject({
      call: { id: 'call-mon', events: 2 },
      summary: { objective: 'ship the installer' },
      notes: [{ speaker_name: 'Ada' }, { speaker_name: 'Bob' }],
    });
    const md = await get('/calls/call-mon/export?format=md');
    expect(md.headers['content-type']).toMatch(/^text\/markdown/);
    expect(md.text).toContain('# Call call-mon');
    expect(md.text).toContain('"objective": "ship the installer"');
    expect(md.text).toContain('**Ada** (input_transcript): We decided to ship the installer on Thursday.');
    // The hand-off (sora_handoff on the call's notes): its document in the JSON, its sections in the Markdown.
    expect(json.json).toMatchObject({
      handoff: { json: { version: 1, call_id: 'call-mon', source: { utterances: 2 } } },
    });
    expect((json.json as { handoff: { json: { notes_excerpt: string } } }).handoff.json.notes_excerpt).toContain(
      'caller Ada: We decided to ship the installer on Thursday.',
    );
    expect(md.text).toContain('## Hand-off: Call hand-off');
    expect(md.text).toContain('### Goal');
    const missing = await get('/calls/call-zzz/export');
    expect([missing.status, errorCode(missing)]).toEqual([404, 'unknown_call']);
    const bad = await get('/calls/call-mon/export?format=pdf');
    expect([bad.status, errorCode(bad)]).toEqual([400, 'bad_format']);
  });
});
