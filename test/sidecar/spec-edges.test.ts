// Spec edges a newcomer hits (issue 43): the two verbs (/announce speaks, /ask is answered; /say keeps
// the spec's meaning), stop reasons that name what ended the call, GET /notify refusing unknown
// parameters like POST, the schedule tool's list paging with a cursor the model passes back, `urgent`
// described to the model, results.voice.queued, and a WebP frame end to end through the route.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BridgeError, type BridgeControl, type BridgeStatus, type SpokenVerb } from '../../main/core/bridge/types.ts';
import { toModelFrame } from '../../main/core/model/frame-converter.ts';
import { createNotifier } from '../../main/core/notify/dispatcher.ts';
import { scheduleFilePath } from '../../main/core/notify/schedule-store.ts';
import { createScheduler, type Scheduler } from '../../main/core/notify/scheduler.ts';
import { registerNotifyTools } from '../../main/core/notify/tools.ts';
import type { FrameSendResult } from '../../main/core/ports.ts';
import { registerBridgeRoutes } from '../../main/core/sidecar/routes/bridge.ts';
import { registerNotifyRoutes } from '../../main/core/sidecar/routes/notify.ts';
import { createSidecar, type Sidecar } from '../../main/core/sidecar/server.ts';
import { ToolRegistry } from '../../main/core/tools/registry.ts';
import { errorCode, rawRequest } from '../helpers/http.ts';

const logger = pino({ level: 'silent' });
const TOKEN = 'spec-edges-token-'.padEnd(40, 'e');
const auth = { authorization: `Bearer ${TOKEN}` };

class RecordingBridge implements BridgeControl {
  state: BridgeStatus['state'] = 'connected';
  handed: { text: string; source: string | undefined; verb: SpokenVerb | undefined }[] = [];
  stopReasons: string[] = [];
  frames: { width: number; height: number }[] = [];
  status(): BridgeStatus {
    return {
      state: this.state,
      since: 0,
      connections: { discord: 'connected', model: 'connected' },
      opus: null,
      levels: { input: { rms: 0, peak: 0 }, output: { rms: 0, peak: 0 } },
      speaking: [],
    };
  }
  async start(): Promise<BridgeStatus> {
    return this.status();
  }
  async stop(reason?: string) {
    this.stopReasons.push(reason ?? '(none)');
    return { stopped: true, status: this.status() };
  }
  say(text: string, source?: string, verb?: SpokenVerb): string {
    if (this.state !== 'connected') throw new BridgeError('no_call', 'no live call');
    this.handed.push({ text, source, verb });
    return `say_${this.handed.length.toString(16).padStart(12, '0')}`;
  }
  async sendFrame(image: Buffer): Promise<FrameSendResult> {
    const frame = await toModelFrame(image); // decodes and re-encodes, as the real sessions do
    this.frames.push({ width: frame.width, height: frame.height });
    return { status: 'sent', width: frame.width, height: frame.height, bytes: frame.jpeg.length };
  }
  metrics() {
    return {};
  }
}

let home: string;
let sidecar: Sidecar;
let scheduler: Scheduler;
let port: number;
const bridge = new RecordingBridge();
const spoken: string[] = [];
const dms: string[] = [];
const notifier = createNotifier({
  voice: () =>
    bridge.state === 'connected' ? { speak: async (text) => (spoken.push(text), { delivered: true }) } : null,
  discordText: {
    async sendDirectMessage(_user, text) {
      dms.push(text);
      return { messageId: String(dms.length), channelId: 'dm' };
    },
    async postToChannel() {
      return { messageId: 'c', channelId: 'c' };
    },
  },
  ownerId: '200000000000000001',
  sfxEnabled: false,
  logger,
});

beforeAll(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'lvb-spec-edges-'));
  scheduler = createScheduler({ file: scheduleFilePath(home), notifier, logger });
  sidecar = createSidecar({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    logger,
    routes: [
      (app) => registerBridgeRoutes(app, { bridge }),
      (app) => registerNotifyRoutes(app, { notifier, scheduler }),
    ],
  });
  await sidecar.listen();
  port = Number(new URL(sidecar.url).port);
});
afterAll(async () => {
  await sidecar.close();
  await scheduler.stop();
  await rm(home, { recursive: true, force: true });
});

const get = (p: string) => rawRequest({ port, path: p, headers: auth });
const post = (p: string, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  rawRequest({
    port,
    method: 'POST',
    path: p,
    headers: { ...auth, ...headers },
    body: Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });

describe('two verbs: announce (spoken verbatim) and ask (answered); /say is announce', () => {
  it('each route hands the text over with its verb and says which it was', async () => {
    bridge.state = 'connected';
    bridge.handed = [];
    expect((await get('/announce?text=The%20build%20is%20green')).json).toEqual({
      status: 'queued',
      chars: 18,
      as: 'announce',
      id: expect.stringMatching(/^say_/),
    });
    expect((await post('/ask', { text: 'Tell me a one-line joke', source: 'cli' })).json).toEqual({
      status: 'queued',
      chars: 23,
      as: 'message',
      id: expect.stringMatching(/^say_/),
    });
    expect((await get('/ask?text=What%20time%20is%20it')).json).toMatchObject({ as: 'message' });
    expect((await post('/say', { text: 'Stand-up in five' })).json).toMatchObject({ as: 'announce' });
    expect(bridge.handed).toEqual([
      { text: 'The build is green', source: 'sidecar', verb: 'announce' },
      { text: 'Tell me a one-line joke', source: 'cli', verb: 'message' },
      { text: 'What time is it', source: 'sidecar', verb: 'message' },
      { text: 'Stand-up in five', source: 'sidecar', verb: 'announce' },
    ]);
  });

  it('the same input rules on every verb: empty, too long, unknown parameter, no call', async () => {
    bridge.state = 'connected';
    for (const route of ['/announce', '/ask']) {
      expect(errorCode(await get(`${route}?text=%20`))).toBe('empty_text');
      expect((await get(`${route}?text=${'a'.repeat(2001)}`)).status).toBe(413);
      const misspelt = await get(`${route}?txt=hello`);
      expect([misspelt.status, errorCode(misspelt)]).toEqual([400, 'unknown_field']);
      expect(errorCode(await post(route, { text: 'hi', mode: 'voice' }))).toBe('invalid_request');
    }
    bridge.state = 'idle';
    expect((await post('/ask', { text: 'hello' })).status).toBe(409);
    bridge.state = 'connected';
  });
});

describe('stop reasons say what stopped the call', () => {
  it('GET /stop?by=tray and /leave?by=cli name it; without by: the sidecar, never "requested by sidecar"', async () => {
    bridge.stopReasons = [];
    expect((await get('/stop?by=tray')).status).toBe(200);
    expect((await get('/leave?by=cli')).status).toBe(200);
    expect((await get('/leave')).status).toBe(200);
    expect(bridge.stopReasons).toEqual([
      'stopped from the tray',
      'stopped from the command line',
      'stopped over the sidecar',
    ]);
    const bad = await get('/stop?by=someone');
    expect([bad.status, errorCode(bad)]).toEqual([400, 'invalid_request']);
    expect(bridge.stopReasons).toHaveLength(3);
  });
});

describe('GET /notify refuses unknown or misspelled parameters, like POST', () => {
  it('delay_seconds (a /schedule field) is 400 unknown_field and nothing is delivered now', async () => {
    bridge.state = 'idle';
    dms.length = 0;
    const res = await get('/notify?text=meant%20for%20later&mode=dm&delay_seconds=3600');
    expect([res.status, errorCode(res)]).toEqual([400, 'unknown_field']);
    expect((res.json as { error: { message: string } }).error.message).toContain('/schedule');
    const misspelt = await get('/notify?text=hi&mod=dm');
    expect([misspelt.status, errorCode(misspelt)]).toEqual([400, 'unknown_field']);
    expect(dms).toEqual([]);
    // The documented parameters still deliver.
    expect((await get('/notify?text=hi&mode=dm&title=T&source=curl&urgent=false')).json).toMatchObject({
      status: 'ok',
      channel: 'dm',
    });
    expect(dms).toHaveLength(1);
    bridge.state = 'connected';
  });
});

describe('results.voice.queued (spec field)', () => {
  it('is true when the text was handed to the model, false when there was no call', async () => {
    bridge.state = 'connected';
    expect((await post('/notify', { text: 'spoken', mode: 'voice' })).json).toMatchObject({
      status: 'ok',
      results: { voice: { status: 'ok', queued: true } },
    });
    bridge.state = 'idle';
    expect((await post('/notify', { text: 'no call', mode: 'auto' })).json).toMatchObject({
      channel: 'dm',
      results: { voice: { queued: false } },
    });
    bridge.state = 'connected';
  });
});

describe('local_notify_schedule: the list pages with a cursor the model passes back', () => {
  it('60 reminders: a page of 50 and a next_cursor; {list, cursor} gives the other 10, no repeats', async () => {
    const registry = new ToolRegistry();
    registerNotifyTools(registry, { notifier, scheduler });
    for (let i = 0; i < 60; i++)
      await scheduler.schedule({ text: `reminder ${i}`, delay_seconds: 3600 + i, mode: 'dm' });
    const first = await registry.invoke('local_notify_schedule', { list: true }, { caller: 'model' });
    expect(first.ok).toBe(true);
    const page1 = (first as { result: { entries: { id: string }[]; next_cursor: string | null } }).result;
    expect(page1.entries).toHaveLength(50);
    expect(page1.next_cursor).toEqual(expect.any(String));
    const declared = registry.declarations().find((d) => d.name === 'local_notify_schedule')!;
    expect(Object.keys((declared.parameters as { properties: Record<string, unknown> }).properties)).toContain(
      'cursor',
    );
    const second = await registry.invoke(
      'local_notify_schedule',
      { list: true, cursor: page1.next_cursor },
      { caller: 'model' },
    );
    const page2 = (second as { result: { entries: { id: string }[]; next_cursor: string | null } }).result;
    expect(page2.entries).toHaveLength(10);
    expect(page2.next_cursor).toBeNull();
    const ids = new Set([...page1.entries, ...page2.entries].map((e) => e.id));
    expect(ids.size).toBe(60);
    const bad = await registry.invoke(
      'local_notify_schedule',
      { list: true, cursor: 'not-a-cursor' },
      { caller: 'model' },
    );
    expect(bad).toMatchObject({ ok: false, error: { code: 'bad_cursor', status: 400 } });
  });

  it('local_notify tells the model when to use urgent', () => {
    const registry = new ToolRegistry();
    registerNotifyTools(registry, { notifier, scheduler });
    const description = registry.declarations().find((d) => d.name === 'local_notify')!.description;
    expect(description).toMatch(/urgent: true only for/);
  });
});

describe('POST /frame takes WebP (spec: JPEG, PNG or WebP)', () => {
  it('a raw WebP body and a WebP file part are decoded and sent, input_type webp', async () => {
    bridge.state = 'connected';
    bridge.frames = [];
    const webp = await sharp({ create: { width: 1600, height: 900, channels: 3, background: '#884422' } })
      .webp()
      .toBuffer();
    const raw = await post('/frame', webp, { 'content-type': 'image/webp' });
    expect([raw.status, (raw.json as { input_type: string }).input_type]).toEqual([200, 'webp']);
    const boundary = 'lvb-webp-boundary';
    const multipart = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="shot.webp"\r\nContent-Type: image/webp\r\n\r\n`,
      ),
      webp,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const part = await post('/frame', multipart, { 'content-type': `multipart/form-data; boundary=${boundary}` });
    expect([part.status, (part.json as { input_type: string }).input_type]).toEqual([200, 'webp']);
    // Scaled to the model's 768 px long side, aspect kept: the image really was decoded.
    expect(bridge.frames).toEqual([
      { width: 768, height: 432 },
      { width: 768, height: 432 },
    ]);
  });
});
