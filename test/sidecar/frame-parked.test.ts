// A parked call is a call (issue 53): after the quiet period the model connection is closed while the
// call stays in Discord, and POST /frame (the page's Capture posts there too) wakes it and the image
// reaches the session the wake opened, as does an /ask. Before the fix the route answered 409 no_call
// for any state but `connected`, so the wake in bridge/call-requests.ts was never reached.
// The real core on the strict fakes, over a real socket.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HealthReport } from '../../main/core/api-types.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../helpers/call-on-fakes.ts';
import { rawRequest } from '../helpers/http.ts';
import sharp from 'sharp';
import { waitFor } from '../integration/bridge/signals.ts';

let call: CoreOnFakes;

beforeAll(async () => {
  call = await startCoreOnFakes({
    gemini: { bargeInRms: null, setupDelayMs: 300 },
    env: () => ({ DISCORD_VOICE_LIVE_PARK_AFTER_S: '1' }),
  });
  expect((await call.post('/join')).status).toBe(200);
  await call.gemini.connection(0);
}, 60_000);

afterAll(async () => {
  await call?.close();
});

const samplePng = (width: number): Promise<Buffer> =>
  sharp({ create: { width, height: Math.round((width * 9) / 16), channels: 3, background: '#204080' } })
    .png()
    .toBuffer();
const health = async (): Promise<HealthReport> => (await call.get('/health')).json as HealthReport;
const parked = () => waitFor(async () => (await health()).bridge.state === 'parked', 'the call to park');

describe('a parked call takes frames and messages', () => {
  it('POST /frame on a parked call wakes the model and the image reaches the new session', async () => {
    await parked();
    // The bridge says `parked` once it has closed its socket; the fake sees the close a moment later.
    await waitFor(() => call.gemini.established.at(-1)?.closedBy !== null, 'the fake to see the parked session close');
    const sessions = call.gemini.established.length;
    expect(call.gemini.established.at(-1)!.closedBy).toBe('client');
    const png = await samplePng(320);
    const answer = await rawRequest({
      port: call.t.port,
      method: 'POST',
      path: '/frame',
      headers: { ...call.t.auth, 'content-type': 'image/png' },
      body: png,
    });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ status: 'sent', input_type: 'png' });
    // The wake opened a session, and the frame went on it (the fake decodes what it received).
    expect(call.gemini.established.length).toBe(sessions + 1);
    const woken = call.gemini.established.at(-1)!;
    await waitFor(() => woken.frames.length === 1, 'the frame at the woken session');
    expect(woken.frames[0]!.mimeType).toBe('image/jpeg');
    expect((await health()).bridge.state).toBe('connected');
    expect((await health()).metrics.image_frames_sent).toBe(1);
  }, 30_000);

  it('POST /ask on a parked call wakes the model and the message reaches it', async () => {
    await parked();
    const sessions = call.gemini.established.length;
    const answer = await call.post('/ask', { text: 'What is on the screen?' });
    expect(answer.status).toBe(200);
    await waitFor(() => call.gemini.established.length === sessions + 1, 'the wake');
    const woken = call.gemini.established.at(-1)!;
    await waitFor(
      () => woken.clientContents.some((m) => JSON.stringify(m).includes('What is on the screen?')),
      'the message at the woken session',
    );
  }, 30_000);
});
