// Mute and push-to-talk on the fakes, judged by the fake Gemini's record: while muted (or while
// push-to-talk is on and the key is up) a speaking user's audio never reaches the model; after
// unmute (or while held) it does again; muting mid-utterance ends the model's audio input cleanly.
// The bridge's own frames_muted counter proves the user's packets did arrive and were dropped (so a
// silent model is not just a user who never spoke).
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HealthReport } from '../../../main/core/api-types.ts';
import type { FakeDiscord } from '../../../main/fakes/discord/index.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { chirpStereo, waitFor } from './signals.ts';

let call: CoreOnFakes;
let discord: FakeDiscord;

/** The voice gate's 500 ms hangover plus margin: after this, speech that was let through has reached the model. */
const SETTLE_MS = 800;
const SPEECH_S = 1;
/** 20 ms frames in the utterance (the fake adds a 5-frame silent tail). */
const SPEECH_FRAMES = (SPEECH_S * 1000) / 20;

const health = async () => (await call.get('/health')).json as HealthReport;
const framesMuted = async () => (await health()).metrics.frames_muted as number;
// Summed over every socket of the session, should the provider ever replace one mid-test. The fake
// answers each utterance (autoReply): a turn left unanswered would count as a stall and be resumed
// on a new socket, with held audio replayed there (counted twice here).
const sockets = () => call.gemini.connections;
const model = {
  get audio(): { length: number } {
    return { length: sockets().reduce((n, c) => n + c.audio.length, 0) };
  },
  get inputSamples(): number {
    return sockets().reduce((n, c) => n + c.inputSamples, 0);
  },
};
const streamEnds = () =>
  sockets().reduce((n, c) => n + c.received.filter((m) => JSON.stringify(m).includes('audioStreamEnd')).length, 0);
const speech = chirpStereo(SPEECH_S, 300, 3000, 48_000);

/** The user speaks; resolves once the bridge dropped at least `drops` more frames (when expected) and the gate settled. */
async function speakAndSettle(expectDropped: boolean): Promise<void> {
  const before = await framesMuted();
  await discord.speak(discord.owner.id, speech);
  if (expectDropped)
    await waitFor(
      async () => (await framesMuted()) - before >= SPEECH_FRAMES - 5,
      'the bridge to drop the muted frames',
    );
  await sleep(SETTLE_MS);
}

beforeAll(async () => {
  call = await startCoreOnFakes({ gemini: { bargeInRms: null, autoReply: { transcript: 'Heard you.' } } });
  discord = call.discord;
  const joined = await call.post('/join');
  expect(joined.status).toBe(200);
  await call.gemini.connection(0);
}, 60_000);

afterAll(async () => {
  await call?.close();
});

describe("mute on the fake model's record", () => {
  it('muted: the model receives no audio from a speaking user; /health says muted', async () => {
    const muted = await call.post('/mute', { muted: true });
    expect(muted.status).toBe(200);
    expect((await health()).muted).toBe(true);
    const audioBefore = model.audio.length;
    const endsBefore = streamEnds();
    await speakAndSettle(true);
    expect(model.audio.length).toBe(audioBefore);
    expect(streamEnds()).toBe(endsBefore);
  });

  it('unmuted: the same speech reaches the model again, and its end is signalled', async () => {
    expect((await call.post('/mute', { muted: false })).json).toMatchObject({ muted: false, to_model: true });
    expect((await health()).muted).toBe(false);
    const samplesBefore = model.inputSamples;
    const endsBefore = streamEnds();
    await discord.speak(discord.owner.id, speech);
    await waitFor(
      () => model.inputSamples - samplesBefore >= 0.9 * SPEECH_S * 16_000,
      'the model to hear the unmuted speech',
    );
    await waitFor(() => streamEnds() > endsBefore, 'audioStreamEnd after the speech');
  });

  it("muting mid-utterance ends the model's audio input at once; nothing follows it", async () => {
    const long = chirpStereo(3, 300, 3000, 48_000);
    const endsBefore = streamEnds();
    const samplesBefore = model.inputSamples;
    const speaking = discord.speak(discord.owner.id, long);
    await waitFor(() => model.inputSamples - samplesBefore >= 0.5 * 16_000, 'the first half second to reach the model');
    await call.post('/mute', { muted: true });
    await waitFor(() => streamEnds() > endsBefore, 'audioStreamEnd when muted mid-utterance');
    const audioAtMute = model.audio.length;
    await speaking;
    await sleep(SETTLE_MS);
    expect(model.audio.length).toBe(audioAtMute);
    // Far less than the 3 s the user said reached the model.
    expect(model.inputSamples - samplesBefore).toBeLessThan(2 * 16_000);
    await call.post('/mute', { muted: false });
  });
});

describe("push-to-talk on the fake model's record", () => {
  it('key released: no audio; held: the speech reaches the model; released again: none', async () => {
    expect((await call.post('/ptt', { enabled: true })).json).toMatchObject({
      ptt: { enabled: true, held: false },
      to_model: false,
    });
    expect((await health()).talk).toMatchObject({ ptt: { enabled: true, held: false }, to_model: false });
    let audioBefore = model.audio.length;
    await speakAndSettle(true);
    expect(model.audio.length).toBe(audioBefore);

    expect((await call.post('/ptt', { held: true })).json).toMatchObject({ to_model: true });
    const samplesBefore = model.inputSamples;
    await discord.speak(discord.owner.id, speech);
    await waitFor(
      () => model.inputSamples - samplesBefore >= 0.9 * SPEECH_S * 16_000,
      'the model to hear the held speech',
    );

    await call.post('/ptt', { held: false });
    await sleep(SETTLE_MS);
    audioBefore = model.audio.length;
    await speakAndSettle(true);
    expect(model.audio.length).toBe(audioBefore);
    await call.post('/ptt', { enabled: false });
  });
});
