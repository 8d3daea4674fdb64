// POST /mute and POST /ptt: what a client sees (status, code, the state in the answer) and what the
// TalkControl behind them decides; the effect on the model's audio is proven on the fakes
// (test/integration/bridge/mute-ptt.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TalkState } from '../../main/core/api-types.ts';
import { TalkControl } from '../../main/core/bridge/talk-control.ts';
import { silentLogger } from '../../main/core/log/logger.ts';
import { registerTalkRoutes } from '../../main/core/sidecar/routes/talk.ts';
import { createSidecar, type Sidecar } from '../../main/core/sidecar/server.ts';
import { errorCode, rawRequest } from '../helpers/http.ts';

let sidecar: Sidecar;
let port: number;
const changes: TalkState[] = [];
const talk = new TalkControl({ pttMode: false, onChange: (state) => changes.push(state) });
const TOKEN = 'test-token-'.padEnd(40, 'x');
const auth = { authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  sidecar = createSidecar({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    logger: silentLogger(),
    routes: [(app) => registerTalkRoutes(app, { talk })],
  });
  await sidecar.listen();
  port = Number(new URL(sidecar.url).port);
});
afterAll(async () => sidecar.close());

const post = (path: string, body: string | undefined) =>
  rawRequest({
    port,
    method: 'POST',
    path,
    headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body,
  });

describe('POST /mute', () => {
  it('mutes and unmutes without a call; each real change is announced once', async () => {
    changes.length = 0;
    const muted = await post('/mute', '{"muted":true}');
    expect(muted.status).toBe(200);
    expect(muted.json).toEqual({ muted: true, ptt: { enabled: false, held: false }, to_model: false });
    expect((await post('/mute', '{"muted":true}')).status).toBe(200); // repeat: no second event
    const unmuted = await post('/mute', '{"muted":false}');
    expect(unmuted.json).toMatchObject({ muted: false, to_model: true });
    expect(changes.map((c) => c.muted)).toEqual([true, false]);
  });

  it('bad bodies get 400 invalid_request, never a 500', async () => {
    for (const body of [undefined, '{}', '{"muted":"yes"}', '{"muted":1}', '{"muted":true,"extra":1}', '[]']) {
      const res = await post('/mute', body);
      expect([body, res.status, errorCode(res)]).toEqual([body, 400, 'invalid_request']);
    }
    const notJson = await post('/mute', '{muted');
    expect(notJson.status).toBe(400);
    expect(talk.state().muted).toBe(false);
  });

  it('needs the token', async () => {
    const res = await rawRequest({
      port,
      method: 'POST',
      path: '/mute',
      headers: { 'content-type': 'application/json' },
      body: '{"muted":true}',
    });
    expect(res.status).toBe(401);
    expect(talk.state().muted).toBe(false);
  });
});

describe('POST /ptt', () => {
  it('a hold while push-to-talk is off → 409 ptt_off; a release is always accepted', async () => {
    const held = await post('/ptt', '{"held":true}');
    expect([held.status, errorCode(held)]).toEqual([409, 'ptt_off']);
    // Both at once: switching on and holding works; switching off and holding is refused whole.
    expect((await post('/ptt', '{"enabled":true,"held":true}')).json).toMatchObject({
      ptt: { enabled: true, held: true },
      to_model: true,
    });
    const offAndHeld = await post('/ptt', '{"enabled":false,"held":true}');
    expect([offAndHeld.status, errorCode(offAndHeld)]).toEqual([409, 'ptt_off']);
    expect(talk.state().ptt).toEqual({ enabled: true, held: true });
    await post('/ptt', '{"enabled":false}');
    const released = await post('/ptt', '{"held":false}');
    expect(released.status).toBe(200);
    expect(released.json).toMatchObject({ ptt: { enabled: false, held: false }, to_model: true });
  });

  it('push-to-talk on: audio reaches the model only while held; muting wins over a hold', async () => {
    expect((await post('/ptt', '{"enabled":true}')).json).toEqual({
      muted: false,
      ptt: { enabled: true, held: false },
      to_model: false,
    });
    expect((await post('/ptt', '{"held":true}')).json).toMatchObject({
      ptt: { enabled: true, held: true },
      to_model: true,
    });
    expect((await post('/mute', '{"muted":true}')).json).toMatchObject({ muted: true, to_model: false });
    expect((await post('/mute', '{"muted":false}')).json).toMatchObject({ to_model: true });
    expect((await post('/ptt', '{"held":false}')).json).toMatchObject({ to_model: false });
    // Turning the mode off forgets a hold and lets voices through again.
    await post('/ptt', '{"held":true}');
    expect((await post('/ptt', '{"enabled":false}')).json).toEqual({
      muted: false,
      ptt: { enabled: false, held: false },
      to_model: true,
    });
  });

  it('bad bodies get 400 invalid_request', async () => {
    for (const body of [undefined, '{}', '{"held":"down"}', '{"enabled":null}', '{"held":true,"key":"F8"}']) {
      const res = await post('/ptt', body);
      expect([body, res.status, errorCode(res)]).toEqual([body, 400, 'invalid_request']);
    }
  });
});
