// A call through the real core on the strict fakes, while connections fail under it: what the
// user hears in the channel and what the model hears, not the provider's internals.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../../../main/fakes/discord/index.ts';
import { startFakeGemini, type FakeGemini, type FakeGeminiConnection } from '../../../main/fakes/gemini/index.ts';
import { startTestCore, type TestCore } from '../../helpers/core.ts';
import { rawRequest } from '../../helpers/http.ts';
import { chirpMono, chirpStereo, waitFor } from './signals.ts';

let discord: FakeDiscord;
let gemini: FakeGemini;
let t: TestCore;

const post = (path: string) => rawRequest({ port: t.port, method: 'POST', path, headers: t.auth });
const get = (path: string) => rawRequest({ port: t.port, path, headers: t.auth });

/** Bot packets whose decoded peak says they carry the reply (not silence or Opus residue). */
function loudBotFrames(): number {
  const pcm = discord.recorder.pcm();
  let loud = 0;
  for (let f = 0; (f + 1) * 1920 <= pcm.length; f++) {
    let peak = 0;
    for (let i = f * 1920; i < (f + 1) * 1920; i++) peak = Math.max(peak, Math.abs(pcm[i]!));
    if (peak > 2000) loud++;
  }
  return loud;
}

const latest = (): FakeGeminiConnection => gemini.established.at(-1)!;

beforeAll(async () => {
  discord = await startFakeDiscord();
  gemini = await startFakeGemini({ bargeInRms: null });
  t = await startTestCore({
    DISCORD_BOT_TOKEN: discord.botToken,
    DISCORD_VOICE_LIVE_USER_ID: discord.owner.id,
    DISCORD_API_BASE_URL: discord.apiBaseUrl,
    GEMINI_API_KEY: `fake-gemini-key-${process.pid}`,
    GEMINI_LIVE_BASE_URL: gemini.url,
  });
  const joined = await post('/join');
  expect(joined.status).toBe(200);
  await gemini.connection(0);
}, 60_000);

afterAll(async () => {
  await t?.close();
  await gemini?.close();
  await discord?.close();
});

describe('a call that loses connections under it', () => {
  it('after a barge-in whose socket then dies, the first reply on the resumed socket is heard in full', async () => {
    const first = latest();
    const cut = first.reply({ pcm: chirpMono(3, 300, 600, 24_000), paceMs: 20, chunkMs: 20, transcript: 'long reply' });
    await waitFor(() => loudBotFrames() >= 10, 'the reply to start playing');
    first.send({ serverContent: { interrupted: true } }); // the service never sends the turnComplete
    await sleep(100);
    first.drop();
    expect(await cut).toBe('closed');
    const resumed = await gemini.connection(1);
    await waitFor(
      async () => ((await get('/health')).json as { bridge: { state: string } }).bridge.state === 'connected',
      'connected again',
    );
    await sleep(300);
    discord.recorder.clear();
    await resumed.reply({ pcm: chirpMono(0.8, 400, 4000, 24_000), transcript: 'after the drop' });
    // 0.8 s is 40 frames; before the fix the whole reply was dropped as late audio of the cut turn
    await waitFor(() => loudBotFrames() >= 35, 'the next reply to be heard');
  });

  it('/say during a reconnect is held (200) and reaches the model once the socket is back', async () => {
    const gone = latest();
    const resumedBefore = gemini.established.length;
    // Slow the next setup so the call sits in `reconnecting` while /say arrives.
    gemini.strict.setupDelayMs = 1500;
    gone.close(1011, 'Internal error occurred.');
    await waitFor(
      async () => ((await get('/health')).json as { bridge: { state: string } }).bridge.state === 'reconnecting',
      'reconnecting',
    );
    const said = await get('/say?text=' + encodeURIComponent('held through the reconnect'));
    expect(said.status).toBe(200);
    gemini.strict.setupDelayMs = 150;
    const back = await gemini.connection(resumedBefore);
    await waitFor(
      () => JSON.stringify(back.clientContents).includes('held through the reconnect'),
      'the held text on the new socket',
    );
  });

  it('a voice-socket reset (4015) during a model rotation: the call stays up, the user is heard and the reply is heard', async () => {
    const old = latest();
    const count = gemini.established.length;
    old.goAway(3000);
    discord.closeVoice(4015);
    const next = await gemini.connection(count);
    expect(next.resumedWithHandle).not.toBeNull();
    await waitFor(async () => {
      const health = (await get('/health')).json as {
        bridge: { state: string };
        connections: { discord: string; model: string };
      };
      return (
        health.bridge.state === 'connected' &&
        health.connections.discord === 'connected' &&
        health.connections.model === 'connected'
      );
    }, 'both connections back');
    await sleep(300);
    await discord.speak(discord.owner.id, chirpStereo(1, 300, 3000, 48_000));
    await waitFor(() => next.inputSamples >= 0.8 * 16_000, 'the user heard by the model on the new socket');
    discord.recorder.clear();
    await next.reply({ pcm: chirpMono(0.8, 400, 4000, 24_000), transcript: 'rotated' });
    await waitFor(() => loudBotFrames() >= 35, 'the reply heard after both resets');
    const notes = ((await get('/notes?limit=200')).json as { notes: { kind: string; text: string }[] }).notes;
    expect(notes.filter((n) => n.kind === 'state' && /^error/.test(n.text))).toEqual([]);
  });
});
