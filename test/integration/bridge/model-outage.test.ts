// A model outage longer than the session's own reconnects (8 attempts, ~34 s) used to end the call
// for good. Through the real core on the strict fakes: the fake Gemini is unavailable for 90 s (open
// sockets cut 1011, every upgrade answered 503); the call stays in Discord in a visible state that
// says since when, comes back by itself when the service does, and the next utterance is answered
// (heard by the model, its reply heard in the channel). What was said while the model was
// unreachable is heard too, by the session that opens when it is back (issue #55: the day soak lost
// every such word).
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HealthReport } from '../../../main/core/api-types.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { chirpMono, chirpStereo, waitFor } from './signals.ts';

let call: CoreOnFakes;
const OUTAGE_MS = 90_000;
const SAID_IN_OUTAGE = 'The parcel has arrived.';
/** Written on the socket just before the outage cuts it: said after it, never reported dropped in it. */
const SAID_BEFORE = 'The oven is hot.';

beforeAll(async () => {
  call = await startCoreOnFakes({
    gemini: { bargeInRms: null },
    env: () => ({ DISCORD_VOICE_LIVE_PARK_AFTER_S: '0' }),
  });
  expect((await call.post('/join')).status).toBe(200);
  await call.gemini.connection(0);
}, 60_000);

afterAll(async () => {
  call?.gemini.setUnavailable(false);
  await call?.close();
});

const health = async (): Promise<HealthReport> => (await call.get('/health')).json as HealthReport;

/** Bot packets whose decoded peak says they carry a reply (not silence). */
function loudBotFrames(): number {
  const pcm = call.discord.recorder.pcm();
  let loud = 0;
  for (let f = 0; (f + 1) * 1920 <= pcm.length; f++) {
    let peak = 0;
    for (let i = f * 1920; i < (f + 1) * 1920; i++) peak = Math.max(peak, Math.abs(pcm[i]!));
    if (peak > 2000) loud++;
  }
  return loud;
}

describe('a 90 s model outage', () => {
  it('leaves the call up and visible, and it comes back by itself; the next utterance is answered', async () => {
    const before = call.gemini.established.length;
    const first = call.gemini.established.at(-1)!;
    const early = await call.post('/say', { text: SAID_BEFORE });
    expect(early.status).toBe(200);
    const earlyId = (early.json as { id: string }).id;
    await waitFor(
      () => JSON.stringify([first.clientContents, first.texts]).includes(SAID_BEFORE),
      'the first /say written on the socket',
    );
    const downAt = Date.now();
    call.gemini.setUnavailable(true);
    // A /say while the session still retries waits in its queue; when the session gives up it goes
    // to the session that opens when the model is back, not dropped as "the call ended".
    await waitFor(async () => (await health()).bridge.state === 'reconnecting', 'the session retrying', 30_000);
    const said = await call.post('/say', { text: SAID_IN_OUTAGE });
    expect(said.status).toBe(200);
    const sayId = (said.json as { id: string }).id;

    // Past the session's own retries (~34 s) the call is still there, saying what happens and since when.
    await waitFor(
      async () => /model unreachable since/.test((await health()).bridge.reason ?? ''),
      'the outage to be reported',
      70_000,
    );
    const during = await health();
    expect(during.bridge.state).toBe('reconnecting');
    // Past the 30 s a reply is waited for: the wait counts only while the model is reachable.
    await sleep(Math.max(0, downAt + 31_000 - Date.now()));
    expect((await call.get(`/say/${earlyId}`)).json).toMatchObject({ outcome: 'waiting' });
    expect(during.connections.discord).toBe('connected');
    const since = /since (\S+) /.exec(during.bridge.reason!)![1]!;
    expect(Date.parse(since)).toBeGreaterThanOrEqual(downAt - 1000);

    // Someone speaks while the model is unreachable (the session gave up; the call's link retries).
    await call.discord.speak(call.discord.owner.id, chirpStereo(1, 300, 3000, 48_000));

    await sleep(Math.max(0, downAt + OUTAGE_MS - Date.now()));
    expect((await health()).bridge.state).toBe('reconnecting'); // still up, never `error`
    call.gemini.setUnavailable(false);

    const back = await call.gemini.connection(before, 60_000);
    await waitFor(async () => (await health()).bridge.state === 'connected', 'connected again', 30_000);
    // The utterance said in the outage reaches the model that is back, with its end (a turn to answer).
    await waitFor(
      () => back.audioStreamEnds >= 1 && back.inputSamples >= 16_000,
      'the utterance said in the outage at the model once it is back',
    );
    // The /say asked before that speech goes first, once; the model's next turn speaks it (and
    // would answer the utterance), and its sender hears that it was spoken.
    const handed = (text = SAID_IN_OUTAGE) => JSON.stringify([back.clientContents, back.texts]).split(text).length - 1;
    await waitFor(() => handed() === 1, 'the /say of the outage handed to the model that is back', 20_000);
    expect(handed(SAID_BEFORE)).toBe(1); // the one its socket took down with it, written again
    expect((await call.get(`/say/${sayId}`)).json).toMatchObject({ outcome: 'waiting' });
    await back.reply({ pcm: chirpMono(0.3, 400, 4000, 24_000), transcript: SAID_IN_OUTAGE });
    await waitFor(
      async () => ((await call.get(`/say/${sayId}`)).json as { outcome: string }).outcome !== 'waiting',
      'the /say settled',
    );
    expect((await call.get(`/say/${sayId}`)).json).toMatchObject({ outcome: 'spoken' });
    expect((await call.get(`/say/${earlyId}`)).json).toMatchObject({ outcome: 'spoken' });
    expect(handed()).toBe(1);
    expect(handed(SAID_BEFORE)).toBe(1);
    const notes = ((await call.get('/notes?limit=500')).json as { notes: { kind: string; text: string }[] }).notes;
    expect(notes.filter((n) => n.kind === 'state' && /^(error|stopped)/.test(n.text))).toEqual([]);

    await sleep(300);
    const ends = back.audioStreamEnds;
    await call.discord.speak(call.discord.owner.id, chirpStereo(1, 300, 3000, 48_000));
    await waitFor(() => back.audioStreamEnds > ends && back.inputSamples >= 16_000, 'the next utterance at the model');
    call.discord.recorder.clear();
    await back.reply({ pcm: chirpMono(0.8, 400, 4000, 24_000), transcript: 'I am back.' });
    await waitFor(() => loudBotFrames() >= 35, 'the reply heard in the channel');
  }, 240_000);
});
