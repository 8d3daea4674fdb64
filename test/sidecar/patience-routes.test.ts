// GET /room/patience and DELETE /room/patience/{speakerId} over a real socket, on the CallPatience the
// core builds (a memory that holds one learnt speaker): the view names people, a reset forgets for
// good, a malformed id is 400 and a speaker nothing was learnt of is 404, never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PatienceView } from '../../main/core/api-types.ts';
import { CallPatience } from '../../main/core/bridge/call-patience.ts';
import { MapPatienceMemory } from '../../main/core/bridge/patience-learner.ts';
import { silentLogger } from '../../main/core/log/logger.ts';
import { registerPatienceRoutes } from '../../main/core/sidecar/routes/patience.ts';
import { createSidecar, type Sidecar } from '../../main/core/sidecar/server.ts';
import { errorCode, rawRequest } from '../helpers/http.ts';

const ANN = '111111111111111111';
const BOB = '222222222222222222';
let sidecar: Sidecar;
let port: number;
const memory = new MapPatienceMemory();
const patience = new CallPatience({ memory, setting: () => 'natural' });
const TOKEN = 'test-token-'.padEnd(40, 'x');
const auth = { authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  memory.put({
    speakerId: ANN,
    name: 'Ann',
    windowMs: 1400,
    cutoffs: 2,
    cleanTurns: 1,
    longestPauseMs: 1200,
    updatedAt: 1_700_000_000_000,
  });
  sidecar = createSidecar({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    logger: silentLogger(),
    routes: [(app) => registerPatienceRoutes(app, { patience })],
  });
  await sidecar.listen();
  port = Number(new URL(sidecar.url).port);
});
afterAll(async () => sidecar.close());

const request = (method: 'GET' | 'DELETE', path: string, headers: Record<string, string> = auth) =>
  rawRequest({ port, method, path, headers });

describe('/room/patience', () => {
  it('lists the setting and each learnt speaker by name', async () => {
    const res = await request('GET', '/room/patience');
    expect(res.status).toBe(200);
    expect(res.json as PatienceView).toEqual({
      setting: 'natural',
      call: null,
      base_ms: 800,
      current_ms: 800,
      speakers: [
        { speaker_id: ANN, name: 'Ann', window_ms: 1400, learnt: true, cutoffs: 2, updated_at: 1_700_000_000 },
      ],
    });
  });

  it('a malformed speaker id is 400 invalid_speaker_id', async () => {
    for (const id of ['ann', '123', '1'.repeat(21), '%20']) {
      const res = await request('DELETE', `/room/patience/${id}`);
      expect([id, res.status, errorCode(res)]).toEqual([id, 400, 'invalid_speaker_id']);
    }
  });

  it('a speaker nothing was learnt of is 404 unknown_speaker', async () => {
    const res = await request('DELETE', `/room/patience/${BOB}`);
    expect([res.status, errorCode(res)]).toEqual([404, 'unknown_speaker']);
  });

  it('needs the token', async () => {
    expect((await request('DELETE', `/room/patience/${ANN}`, {})).status).toBe(401);
    expect(memory.get(ANN)).toBeDefined();
  });

  it('a reset answers with the speaker back at the call’s patience, and forgets them', async () => {
    const res = await request('DELETE', `/room/patience/${ANN}`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      reset: { speaker_id: ANN, name: 'Ann', window_ms: 800, learnt: false, cutoffs: 0, updated_at: 1_700_000_000 },
    });
    expect(memory.get(ANN)).toBeUndefined();
    expect((await request('DELETE', `/room/patience/${ANN}`)).status).toBe(404);
    expect(((await request('GET', '/room/patience')).json as PatienceView).speakers).toEqual([]);
  });
});
