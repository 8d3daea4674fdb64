// The helper tools read one call's notes only, wired as the core wires them (a real NotesLog's
// currentCallNotes, the NotesStore for a named call) over the real sidecar: during call B a hand-off
// is B's (its id, its notes, none of call A's); a hand-off naming call_id is that call's; with no
// call running grill, goal synth and hand-off without notes are refused with 409 `no_call` instead
// of working on an earlier call.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NoteEvent } from '../../main/core/api-types.ts';
import { silentLogger } from '../../main/core/log/logger.ts';
import type { NotesLog } from '../../main/core/notes/notes-log.ts';
import { registerToolRoutes } from '../../main/core/sidecar/routes/tools.ts';
import { createSidecar, type Sidecar } from '../../main/core/sidecar/server.ts';
import { registerHelperTools } from '../../main/core/tools/helpers/index.ts';
import { ToolRegistry } from '../../main/core/tools/registry.ts';
import { errorCode, rawRequest, type RawResponse } from '../helpers/http.ts';
import { openNotesDb, type NotesDb } from '../helpers/notes-db.ts';

const TOKEN = 'notes-call-scope-token-'.padEnd(40, 'x');
let home: string;
let log: NotesLog;
let db: NotesDb;
let sidecar: Sidecar;
let port: number;

beforeAll(async () => {
  home = mkdtempSync(path.join(tmpdir(), 'lvb-call-scope-'));
  db = openNotesDb(path.join(home, 'voice-users'));
  log = db.log();
  const archive = db.store;
  const registry = registerHelperTools(new ToolRegistry(), {
    agentHome: home,
    currentCall: () => log.currentCallNotes(500),
    callNotes: (id) => archive.read(id),
  });
  sidecar = createSidecar({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    logger: silentLogger(),
    routes: [(app) => registerToolRoutes(app, { registry })],
  });
  await sidecar.listen();
  port = Number(new URL(sidecar.url).port);
});

afterAll(async () => {
  await sidecar.close();
  log.close();
  db.close();
  rmSync(home, { recursive: true, force: true });
});

function post(route: string, body: unknown): Promise<RawResponse> {
  return rawRequest({
    port,
    method: 'POST',
    path: route,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

function handoffCount(): number {
  const dir = path.join(home, 'voice-users', 'handoffs');
  return existsSync(dir) ? readdirSync(dir).length : 0;
}

async function expectNoCall(): Promise<void> {
  for (const [route, body] of [
    ['/tools/sora_live_grill', {}],
    ['/tools/sora_goal_synth', {}],
    ['/tools/sora_handoff', {}],
    ['/handoff', {}],
    ['/handoff', { title: 'x' }],
  ] as const) {
    const res = await post(route, body);
    expect([res.status, errorCode(res)], `${route} ${JSON.stringify(body)}`).toEqual([409, 'no_call']);
  }
}

describe('helper tools and the running call', () => {
  it('with no call at all: 409 no_call for grill, goal synth and hand-off without notes; given notes still work', async () => {
    log.append({ kind: 'notification', text: 'a reminder with no call live' });
    await expectNoCall();
    expect(handoffCount()).toBe(0);
    const given = await post('/handoff', { text: 'Objective: renew the certificate' });
    expect(given.status).toBe(200);
    expect(handoffCount()).toBe(2);
  });

  it("during call B a hand-off is labelled B and holds only B's notes; after B ends: no_call again", async () => {
    log.startCall('call-a');
    log.append({ kind: 'input_transcript', speaker: 'owner', text: 'The goal is to rotate the staging keys.' });
    log.append({ kind: 'input_transcript', speaker: 'owner', text: 'Owner: Alice from call A' });
    log.endCall();
    await expectNoCall(); // between calls: call A is over, its notes are not "the current call"

    log.startCall('call-b');
    log.append({ kind: 'input_transcript', speaker: 'owner', text: 'The goal is to ship the tray fix.' });
    const res = await post('/handoff', { title: 'x' });
    expect(res.status, res.text).toBe(200);
    const doc = JSON.parse(readFileSync((res.json as { json_path: string }).json_path, 'utf8')) as {
      call_id: string;
      notes_excerpt: string;
      brief: { fields: { objective: string | null; owner: string | null } };
    };
    expect(doc.call_id).toBe('call-b');
    expect(doc.notes_excerpt).toContain('ship the tray fix');
    expect(doc.notes_excerpt).not.toMatch(/staging keys|Alice/);
    expect(doc.brief.fields).toMatchObject({ objective: 'ship the tray fix', owner: null });

    const grill = (await post('/tools/sora_live_grill', {})).json as {
      fields: { objective: string | null; owner: string | null };
    };
    expect(grill.fields).toMatchObject({ objective: 'ship the tray fix', owner: null });

    // A hand-off naming another call reads that call, and is labelled with it.
    const other = await post('/handoff', { call_id: 'call-a' });
    expect(other.status, other.text).toBe(200);
    const docA = JSON.parse(readFileSync((other.json as { json_path: string }).json_path, 'utf8')) as {
      call_id: string;
      notes_excerpt: string;
    };
    expect(docA.call_id).toBe('call-a');
    expect(docA.notes_excerpt).toContain('rotate the staging keys');
    expect(docA.notes_excerpt).not.toContain('tray fix');
    const unknown = await post('/handoff', { call_id: 'call-zzz' });
    expect([unknown.status, errorCode(unknown)]).toEqual([404, 'unknown_call']);

    log.endCall();
    await expectNoCall();
    // The dashboard's Hand off after the call ended names the call it shows.
    const afterwards = await post('/handoff', { call_id: 'call-b' });
    expect(afterwards.status, afterwards.text).toBe(200);
    expect(JSON.parse(readFileSync((afterwards.json as { json_path: string }).json_path, 'utf8'))).toMatchObject({
      call_id: 'call-b',
      brief: { fields: { objective: 'ship the tray fix' } },
    });
  });

  it("keeps only the running call's events whatever the source hands over", async () => {
    const mixed: NoteEvent[] = [
      { id: '1', ts: 1, kind: 'input_transcript', text: 'The goal is to clean the old call up.', callId: 'old' },
      { id: '2', ts: 2, kind: 'input_transcript', text: 'The goal is to test the live call.', callId: 'live' },
    ];
    const registry = registerHelperTools(new ToolRegistry(), {
      agentHome: home,
      currentCall: () => ({ callId: 'live', notes: mixed }),
    });
    const outcome = await registry.invoke('sora_live_grill', {}, { caller: 'test' });
    expect(outcome).toMatchObject({ ok: true, result: { fields: { objective: 'test the live call' } } });
    // Without a source of recorded calls, a call_id other than the running call's is refused, not mislabelled.
    const other = await registry.invoke('sora_handoff', { call_id: 'old' }, { caller: 'test' });
    expect(other).toMatchObject({ ok: false, error: { code: 'call_mismatch', status: 409 } });
  });
});
