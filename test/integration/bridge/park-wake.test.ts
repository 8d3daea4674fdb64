// Parking a quiet call and waking it, through the real core on the strict fakes (discord.js,
// @discordjs/voice, @google/genai, the real sidecar): after 1 s of quiet the model connection is
// closed while the call stays in Discord (`/health` `bridge.state: "parked"`); each wake path
// resumes the parked service session by its handle (the fake records the resume), or, when the
// handle is refused, opens a fresh session seeded with the call's transcript; what woke it reaches
// the model whole:
// the speech (samples counted at the fake model), the /say text (also MCP `say`, which posts to
// /say), the voice notification and the due voice reminder (texts found on the new socket).
// The fake's setup takes 400 ms, as the service takes hundreds of ms (field notes), so anything
// sent while the session opens would be lost if it were not held.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HealthReport } from '../../../main/core/api-types.ts';
import { SEED_HEADER } from '../../../main/core/bridge/seed.ts';
import type { FakeGeminiConnection } from '../../../main/fakes/gemini/index.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { chirpStereo, waitFor } from './signals.ts';

let call: CoreOnFakes;
/** Samples the model receives for each test utterance in a call that is not parked (gate pre-roll and hangover included). */
const baseline = { long: 0, ptt: 0 };
const LONG = chirpStereo(1.2, 300, 3000, 48_000);
const SHORT = chirpStereo(1, 300, 3000, 48_000);
/** 100 ms: a wake that dropped what came while the session opened (400 ms setup) loses far more. */
const TOLERANCE = 1600;

/** Samples the open session receives for one utterance. */
async function heardAwake(pcm: Int16Array): Promise<number> {
  const model = call.gemini.established.at(-1)!;
  const before = model.inputSamples;
  await call.discord.speak(call.discord.owner.id, pcm);
  const ends = model.audioStreamEnds;
  await waitFor(() => model.audioStreamEnds > ends, 'the end of the utterance at the model');
  await sleep(500);
  return model.inputSamples - before;
}

beforeAll(async () => {
  call = await startCoreOnFakes({
    gemini: { bargeInRms: null, setupDelayMs: 400 },
    env: () => ({ DISCORD_VOICE_LIVE_PARK_AFTER_S: '1' }),
  });
  expect((await call.post('/join')).status).toBe(200);
  await call.gemini.connection(0);
}, 60_000);

afterAll(async () => {
  await call?.close();
});

const health = async (): Promise<HealthReport> => (await call.get('/health')).json as HealthReport;
const parked = () => waitFor(async () => (await health()).bridge.state === 'parked', 'the call to park');
const latest = (): FakeGeminiConnection => call.gemini.established.at(-1)!;
const sessions = () => call.gemini.established.length;
const textOn = (c: FakeGeminiConnection, needle: string) =>
  c.clientContents.some((m) => JSON.stringify(m).includes(needle));

/** Parked with the previous session closed by us; returns the count of sessions so far. */
async function parkedNow(): Promise<number> {
  await parked();
  const h = await health();
  expect(h.connections.discord).toBe('connected');
  expect(latest().closedBy).toBe('client');
  return sessions();
}

describe('a quiet call parks its model and wakes it without losing what woke it', () => {
  it('parks after the quiet period: the model socket is closed, Discord stays', async () => {
    baseline.long = await heardAwake(LONG);
    // Push-to-talk: the gate starts empty at the key press (no pre-roll of silence before the words).
    await call.post('/ptt', { enabled: true });
    await call.post('/ptt', { held: true });
    baseline.ptt = await heardAwake(SHORT);
    await call.post('/ptt', { held: false });
    await call.post('/ptt', { enabled: false });
    await latest().reply({ toneMs: 300, transcript: 'Hello from before the park.' });
    await parkedNow();
    expect((await health()).bridge.reason).toMatch(/^quiet for \d+ s$/);
  });

  it('speech wakes it by resuming the parked session with its handle, and every sample of the utterance reaches it', async () => {
    const before = await parkedNow();
    const parkedSession = latest();
    const handle = parkedSession.issuedHandles.at(-1);
    expect(handle).toBeDefined();
    await call.discord.speak(call.discord.owner.id, LONG);
    const woken = await call.gemini.connection(before);
    // The same service session, resumed (not a new conversation that knows only a seed).
    expect(woken.resumedWithHandle).toBe(handle);
    expect(woken.sessionId).toBe(parkedSession.sessionId);
    expect(woken.restoredFrom?.turnsDropped).toBe(0);
    await waitFor(() => woken.audioStreamEnds > 0, 'the end of the utterance at the model');
    await sleep(500);
    expect(woken.inputSamples).toBeGreaterThanOrEqual(baseline.long - TOLERANCE);
    await waitFor(async () => (await health()).bridge.state === 'connected', 'connected again');
  });

  it('a refused handle (expired) wakes a fresh session seeded with the call so far, and the words still all arrive', async () => {
    const before = await parkedNow();
    const parkedSession = latest();
    call.gemini.forgetHandles();
    await call.discord.speak(call.discord.owner.id, LONG);
    const woken = await call.gemini.connection(before);
    expect(woken.resumedWithHandle).toBeNull();
    expect(woken.sessionId).not.toBe(parkedSession.sessionId);
    expect(JSON.stringify(woken.setup)).toContain(SEED_HEADER);
    expect(JSON.stringify(woken.setup)).toContain('You: Hello from before the park.');
    await waitFor(() => woken.audioStreamEnds > 0, 'the end of the utterance at the model');
    await sleep(500);
    expect(woken.inputSamples).toBeGreaterThanOrEqual(baseline.long - TOLERANCE);
    await waitFor(async () => (await health()).bridge.state === 'connected', 'connected again');
  });

  it('/say wakes it and the text reaches the new session (MCP say posts the same route)', async () => {
    const before = await parkedNow();
    const said = await call.post('/say', { text: 'The oven timer is done.' });
    expect(said.status).toBe(200);
    const woken = await call.gemini.connection(before);
    await waitFor(() => textOn(woken, 'The oven timer is done.'), 'the /say text at the woken model');
  });

  it('a voice notification wakes it and is handed over (ok)', async () => {
    const before = await parkedNow();
    const res = await call.post('/notify', { text: 'Build finished.', mode: 'voice' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: 'ok', channel: 'voice' });
    expect(textOn(call.gemini.established[before]!, 'Build finished.')).toBe(true);
  });

  it('a due voice reminder wakes it and reaches the new session', async () => {
    const before = await parkedNow();
    const created = await call.post('/schedule', { text: 'Stretch your legs.', delay_seconds: 1, mode: 'voice' });
    expect(created.status).toBe(201);
    const woken = await call.gemini.connection(before, 15_000);
    await waitFor(() => textOn(woken, 'Stretch your legs.'), 'the reminder at the woken model');
  });

  it('push-to-talk wakes it on the key press, and the words said right after it all arrive', async () => {
    expect((await call.post('/ptt', { enabled: true })).status).toBe(200);
    const before = await parkedNow();
    expect((await call.post('/ptt', { held: true })).status).toBe(200);
    // Speaking at once, while the session is still opening (400 ms setup).
    await call.discord.speak(call.discord.owner.id, SHORT);
    const woken = await call.gemini.connection(before);
    await waitFor(() => woken.audioStreamEnds > 0, 'the end of the utterance at the model');
    await sleep(500);
    expect(woken.inputSamples).toBeGreaterThanOrEqual(baseline.ptt - TOLERANCE);
    await call.post('/ptt', { held: false });
    await call.post('/ptt', { enabled: false });
  });

  it("an agent's question waiting for the owner keeps the call awake; once answered, it parks again", async () => {
    const before = await parkedNow();
    const asked = call.post('/ask-owner', { question: 'May I deploy the docs?', from: 'the docs agent' });
    const woken = await call.gemini.connection(before);
    await waitFor(() => textOn(woken, 'May I deploy the docs?'), 'the question at the woken model');
    // Handed over, nothing else in flight: only the unanswered question keeps the call from parking.
    await sleep(3000);
    expect((await health()).bridge.state).toBe('connected');
    let id = '';
    await waitFor(async () => {
      const listed = (await call.get('/mcp/approvals')).json as { approvals: { id: string; args: string }[] };
      id = listed.approvals.find((a) => a.args === 'May I deploy the docs?')?.id ?? '';
      return id !== '';
    }, 'the question on the dashboard list');
    expect((await call.post(`/mcp/approvals/${id}`, { approved: false })).status).toBe(200);
    expect((await asked).json).toMatchObject({ answer: 'no', by: 'dashboard' });
    await parkedNow();
  });

  it('with parking, leaving a parked call ends it cleanly and leaves no model socket open', async () => {
    await parkedNow();
    expect((await call.get('/leave')).status).toBe(200);
    await sleep(200);
    expect((await health()).bridge.state).toBe('stopped');
    expect(call.gemini.established.every((c) => c.closeCode !== null)).toBe(true);
  });
});
