// Route-level input validation for the call routes. The bridge behind them is a small in-memory
// BridgeControl so each error path can be reached deterministically; the end-to-end test drives
// the real bridge on the fakes.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SayOutcome } from '../../main/core/api-types.ts';
import { BridgeError, type BridgeControl, type BridgeStatus } from '../../main/core/bridge/types.ts';
import { silentLogger } from '../../main/core/log/logger.ts';
import { toModelFrame } from '../../main/core/model/frame-converter.ts';
import { registerNotesRoutes } from '../../main/core/sidecar/routes/notes.ts';
import type { FrameSendResult, VoiceTarget } from '../../main/core/ports.ts';
import { registerBridgeRoutes } from '../../main/core/sidecar/routes/bridge.ts';
import { createSidecar, type Sidecar } from '../../main/core/sidecar/server.ts';
import { openNotesDb } from '../helpers/notes-db.ts';
import { errorCode, rawRequest } from '../helpers/http.ts';

class ScriptedBridge implements BridgeControl {
  state: BridgeStatus['state'] = 'idle';
  said: string[] = [];
  frames: Buffer[] = [];
  status(): BridgeStatus {
    return {
      state: this.state,
      since: 0,
      connections: { discord: 'disconnected', model: 'disconnected' },
      opus: null,
      levels: { input: { rms: 0, peak: 0 }, output: { rms: 0, peak: 0 } },
      speaking: [],
    };
  }
  async start(_target?: VoiceTarget): Promise<BridgeStatus> {
    if (this.state === 'connected') throw new BridgeError('already_active', 'a call is already connected');
    this.state = 'connected';
    return this.status();
  }
  async stop() {
    const stopped = this.state === 'connected';
    this.state = stopped ? 'stopped' : this.state;
    return { stopped, status: this.status() };
  }
  outcomes = new Map<string, SayOutcome>();
  sayOutcome(id: string): SayOutcome | undefined {
    return this.outcomes.get(id);
  }
  say(text: string): string {
    if (this.state !== 'connected') throw new BridgeError('no_call', 'no live call');
    this.said.push(text);
    return `say_${this.said.length.toString(16).padStart(12, '0')}`;
  }
  async sendFrame(image: Buffer): Promise<FrameSendResult> {
    // What the real sessions do with a frame: decode and re-encode it (FrameError when it does not decode).
    const frame = await toModelFrame(image);
    this.frames.push(image);
    return { status: 'sent', width: frame.width, height: frame.height, bytes: frame.jpeg.length };
  }
  metrics() {
    return {};
  }
}

let sidecar: Sidecar;
let port: number;
const bridge = new ScriptedBridge();
const notesDb = openNotesDb(mkdtempSync(path.join(tmpdir(), 'lvb-notes-')));
const notes = notesDb.log();
const TOKEN = 'test-token-'.padEnd(40, 'x');
const auth = { authorization: `Bearer ${TOKEN}` };
let png: Buffer;

beforeAll(async () => {
  sidecar = createSidecar({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    logger: silentLogger(),
    routes: [
      (app) => registerBridgeRoutes(app, { bridge }),
      (app) => registerNotesRoutes(app, { archive: notesDb.store }),
    ],
  });
  await sidecar.listen();
  port = Number(new URL(sidecar.url).port);
  png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();
});
afterAll(async () => sidecar.close());

const get = (p: string) => rawRequest({ port, path: p, headers: auth });

describe('call routes: bad input gets a clear 4xx JSON error', () => {
  it('/say without a call → 409 no_call; empty → 400; too long → 413; repeated param → 400', async () => {
    bridge.state = 'idle';
    expect(errorCode(await get('/say?text=hello'))).toBe('no_call');
    expect((await get('/say?text=hello')).status).toBe(409);
    const empty = await get('/say?text=%20%20');
    expect([empty.status, errorCode(empty)]).toEqual([400, 'empty_text']);
    const missing = await get('/say');
    expect([missing.status, errorCode(missing)]).toEqual([400, 'empty_text']);
    const long = await get(`/say?text=${'a'.repeat(2001)}`);
    expect([long.status, errorCode(long)]).toEqual([413, 'text_too_long']);
    const twice = await get('/say?text=a&text=b');
    expect(twice.status).toBe(400);
  });

  it('/say during a call queues the text', async () => {
    bridge.state = 'connected';
    const res = await get('/say?text=Stand-up%20in%20five');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      status: 'queued',
      chars: 16,
      as: 'announce',
      id: expect.stringMatching(/^say_[0-9a-f]{12}$/),
    });
    expect(bridge.said.at(-1)).toBe('Stand-up in five');
  });

  it('GET /say/{id}: the outcome of a known id; 400 bad_say_id for a malformed one, 404 unknown_say_id for an unknown one', async () => {
    bridge.state = 'connected';
    const id = (await get('/ask?text=hello')).json as { id: string };
    bridge.outcomes.set(id.id, {
      id: id.id,
      verb: 'ask',
      outcome: 'waiting',
      spoken_text: null,
      by: null,
      reason: 'waiting for a pause in the conversation',
      text: 'hello',
      source: 'sidecar',
      created_at: 1,
      settled_at: null,
    });
    const known = await get(`/say/${id.id}`);
    expect([known.status, (known.json as { outcome: string }).outcome]).toEqual([200, 'waiting']);
    const unknown = await get('/say/say_ffffffffffff');
    expect([unknown.status, errorCode(unknown)]).toEqual([404, 'unknown_say_id']);
    for (const bad of ['/say/nope', '/say/say_12', '/say/say_GGGGGGGGGGGG', '/say/%20']) {
      const res = await get(bad);
      expect([bad, res.status, errorCode(res)]).toEqual([bad, 400, 'bad_say_id']);
    }
    bridge.state = 'idle';
  });

  it('/say counts characters, not UTF-16 units, and takes text too long for a URL as POST {text}', async () => {
    bridge.state = 'connected';
    const emoji = '🙂'.repeat(1200); // 1200 characters, 2400 UTF-16 units
    const byQuery = await get(`/say?text=${encodeURIComponent(emoji)}`);
    expect([byQuery.status, byQuery.json]).toEqual([
      200,
      { status: 'queued', chars: 1200, as: 'announce', id: expect.any(String) },
    ]);
    const post = (body: string) =>
      rawRequest({
        port,
        method: 'POST',
        path: '/say',
        headers: { ...auth, 'content-type': 'application/json' },
        body,
      });
    const cjk = '話'.repeat(2000); // 18 KB percent-encoded: over Node's header limit as a query
    const posted = await post(JSON.stringify({ text: cjk }));
    expect([posted.status, posted.json]).toEqual([
      200,
      { status: 'queued', chars: 2000, as: 'announce', id: expect.any(String) },
    ]);
    expect(bridge.said.at(-1)).toBe(cjk);
    const over = await post(JSON.stringify({ text: '話'.repeat(2001) }));
    expect([over.status, errorCode(over)]).toEqual([413, 'text_too_long']);
    expect([(await post('{"text": 5}')).status, errorCode(await post('{"text": 5}'))]).toEqual([
      400,
      'invalid_request',
    ]);
    expect(errorCode(await post('{"text": "hi", "voice": "x"}'))).toBe('invalid_request');
    expect(errorCode(await post('{"text": "  "}'))).toBe('empty_text');
    bridge.state = 'idle';
    expect(errorCode(await post('{"text": "hello"}'))).toBe('no_call');
  });

  it('/join twice → 409 already_active; malformed body → 400', async () => {
    bridge.state = 'idle';
    const first = await rawRequest({
      port,
      method: 'POST',
      path: '/join',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(first.status).toBe(200);
    const second = await rawRequest({ port, method: 'POST', path: '/join', headers: auth });
    expect([second.status, errorCode(second)]).toEqual([409, 'already_active']);
    const nullBody = await rawRequest({
      port,
      method: 'POST',
      path: '/join',
      headers: { ...auth, 'content-type': 'application/json' },
      body: 'null',
    });
    expect([nullBody.status, errorCode(nullBody)]).toEqual([400, 'invalid_request']); // not "no body": JSON null is no object
    const half = await rawRequest({
      port,
      method: 'POST',
      path: '/join',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"guild_id":"123456789012345678"}',
    });
    expect([half.status, errorCode(half)]).toEqual([400, 'invalid_request']);
    const notId = await rawRequest({
      port,
      method: 'POST',
      path: '/join',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"guild_id":"x","channel_id":"y"}',
    });
    expect(notId.status).toBe(400);
  });

  it('/stop and /leave are idempotent', async () => {
    bridge.state = 'connected';
    expect((await get('/stop')).json).toMatchObject({ stopped: true });
    expect((await get('/leave')).json).toMatchObject({ stopped: false, status: { state: 'stopped' } });
  });

  it('/frame checks the bytes, not the header: text labelled image/png → 415; empty → 400; no call → 409', async () => {
    bridge.state = 'connected';
    const fake = await rawRequest({
      port,
      method: 'POST',
      path: '/frame',
      headers: { ...auth, 'content-type': 'image/png' },
      body: 'definitely not a png',
    });
    expect([fake.status, errorCode(fake)]).toEqual([415, 'unsupported_image']);
    const empty = await rawRequest({
      port,
      method: 'POST',
      path: '/frame',
      headers: { ...auth, 'content-type': 'image/png' },
      body: Buffer.alloc(0),
    });
    expect(empty.status).toBe(400);
    const json = await rawRequest({
      port,
      method: 'POST',
      path: '/frame',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{}',
    });
    expect([json.status, errorCode(json)]).toEqual([415, 'unsupported_media_type']);
    bridge.state = 'idle';
    const idle = await rawRequest({
      port,
      method: 'POST',
      path: '/frame',
      headers: { ...auth, 'content-type': 'image/png' },
      body: png,
    });
    expect([idle.status, errorCode(idle)]).toEqual([409, 'no_call']);
  });

  it('/frame with valid image magic that does not decode → 400 invalid_image, not a 500', async () => {
    bridge.state = 'connected';
    const broken = Buffer.concat([png.subarray(0, 16), Buffer.alloc(200, 0x5a)]);
    const res = await rawRequest({
      port,
      method: 'POST',
      path: '/frame',
      headers: { ...auth, 'content-type': 'image/png' },
      body: broken,
    });
    expect([res.status, errorCode(res)]).toEqual([400, 'invalid_image']);
    bridge.state = 'idle';
  });

  it('/frame over 8 MiB → 413', async () => {
    bridge.state = 'connected';
    const big = Buffer.concat([png, Buffer.alloc(8 * 1024 * 1024)]);
    const res = await rawRequest({
      port,
      method: 'POST',
      path: '/frame',
      headers: { ...auth, 'content-type': 'image/png' },
      body: big,
    });
    expect([res.status, errorCode(res)]).toEqual([413, 'payload_too_large']);
  });

  it('/frame accepts a raw PNG and a multipart upload', async () => {
    bridge.state = 'connected';
    const raw = await rawRequest({
      port,
      method: 'POST',
      path: '/frame',
      headers: { ...auth, 'content-type': 'image/png' },
      body: png,
    });
    expect(raw.status).toBe(200);
    expect(raw.json).toMatchObject({ status: 'sent', input_type: 'png' });
    const boundary = 'lvbboundary';
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="frame"; filename="s.png"\r\nContent-Type: image/png\r\n\r\n`,
      ),
      png,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const multi = await rawRequest({
      port,
      method: 'POST',
      path: '/frame',
      headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
    });
    expect(multi.status).toBe(200);
    expect(bridge.frames.at(-1)!.equals(png)).toBe(true);
  });

  it('/notes: default 50, newest last, bounds checked', async () => {
    for (let i = 0; i < 60; i++) notes.append({ kind: 'note', text: `note ${i}` });
    const res = await get('/notes');
    const list = (res.json as { notes: { text: string }[] }).notes;
    expect(list).toHaveLength(50);
    expect(list.at(-1)!.text).toBe('note 59');
    expect((await get('/notes?limit=2')).json).toMatchObject({ notes: [{ text: 'note 58' }, { text: 'note 59' }] });
    for (const bad of ['0', '501', 'ten', '1.5', '-1']) {
      const r = await get(`/notes?limit=${bad}`);
      expect([r.status, errorCode(r)]).toEqual([400, 'invalid_limit']);
    }
  });
});
