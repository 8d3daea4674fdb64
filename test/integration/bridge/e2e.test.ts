// One call end to end on the loopback fakes, through the real discord.js / @discordjs/voice /
// @google/genai code and the real sidecar: a fake user speaks → the fake model hears 16 kHz mono of
// the same content; the fake model answers → the fake Discord hears it at 48 kHz stereo; /say,
// /frame, barge-in and /stop behave as a user of the product would see them.
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeDiscord } from '../../../main/fakes/discord/index.ts';
import type { FakeGemini, FakeGeminiConnection } from '../../../main/fakes/gemini/index.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import type { TestCore } from '../../helpers/core.ts';
import { errorCode, rawRequest } from '../../helpers/http.ts';
import { chirpMono, chirpStereo, normalizedCorrelation, waitFor } from './signals.ts';

let discord: FakeDiscord;
let gemini: FakeGemini;
let t: TestCore;
let model: FakeGeminiConnection;
let call: CoreOnFakes;

const post = (path: string, body?: unknown) => call.post(path, body);
const get = (path: string) => call.get(path);

/** Decoded bot audio as 20 ms frames, each with its peak, in packet order. */
function botFrames(): { peak: number; receivedAt: number }[] {
  const pcm = discord.recorder.pcm();
  const packets = discord.recorder.packets;
  const frames: { peak: number; receivedAt: number }[] = [];
  for (let f = 0; f < packets.length && (f + 1) * 1920 <= pcm.length; f++) {
    let peak = 0;
    for (let i = f * 1920; i < (f + 1) * 1920; i++) peak = Math.max(peak, Math.abs(pcm[i]!));
    frames.push({ peak, receivedAt: packets[f]!.receivedAt });
  }
  return frames;
}

beforeAll(async () => {
  // Barge-in is driven explicitly by the test; the fake would otherwise interrupt on loud input.
  call = await startCoreOnFakes({
    gemini: { bargeInRms: null },
    env: (d) => ({ DISCORD_VOICE_LIVE_TEXT_CHANNEL_ID: d.textChannelId }),
  });
  ({ discord, gemini, t } = call);
}, 60_000);

afterAll(async () => {
  await call?.close();
});

describe('a call on the fakes', () => {
  it("joins the owner's channel and reports connected", async () => {
    const joined = await post('/join');
    expect(joined.status).toBe(200);
    expect(joined.json).toMatchObject({
      state: 'connected',
      target: { guildId: discord.guildId, channelId: discord.voiceChannelId },
      connections: { discord: 'connected', model: 'connected' },
    });
    model = await gemini.connection(0);
    const health = (await get('/health')).json as {
      bridge: { state: string };
      audio: { opus: { library: string } };
      dave: Record<string, unknown> | null;
    };
    expect(health.bridge.state).toBe('connected');
    expect(health.audio.opus.library).toMatch(/opus/);
    // The call is end-to-end encrypted (DAVE v1, the fake's default) with the same privacy code the owner's client shows.
    expect(health.dave).toMatchObject({
      protocol_version: 1,
      e2ee: true,
      ready: true,
      epoch: 1,
      decrypt_failures: 0,
      rejoins: 0,
    });
    expect(health.dave?.privacy_code).toBe(discord.dave()?.member(discord.owner.id)?.voicePrivacyCode);
    const again = await post('/join');
    expect([again.status, errorCode(again)]).toEqual([409, 'already_active']);
  });

  it("the fake user's speech reaches the model as 16 kHz mono with the same content", async () => {
    const speech = chirpStereo(1.2, 300, 3000, 48_000);
    await discord.speak(discord.owner.id, speech);
    await waitFor(() => model.inputSamples >= 0.9 * 1.2 * 16_000, 'the model to receive the utterance');
    // Every chunk the model got is declared as 16 kHz PCM.
    expect(new Set(model.audio.map((a) => a.rate))).toEqual(new Set([16_000]));
    const received = model.inputPcm();
    const expected = chirpMono(1.2, 300, 3000, 16_000);
    expect(normalizedCorrelation(expected, received).correlation).toBeGreaterThan(0.9);
    // The gate ends the utterance: the model is told the input stream ended.
    await waitFor(() => model.received.some((m) => JSON.stringify(m).includes('audioStreamEnd')), 'audioStreamEnd');
  });

  it("the model's 24 kHz reply is heard in the channel at 48 kHz stereo with the same content", async () => {
    discord.recorder.clear();
    const reply = chirpMono(0.8, 400, 4000, 24_000);
    await model.reply({ pcm: reply, transcript: 'Here is my answer.', inputTranscript: 'What do you say?' });
    await waitFor(() => botFrames().filter((f) => f.peak > 2000).length >= 35, 'the reply to be played');
    const played = discord.recorder.pcm();
    const left = new Int16Array(played.length / 2);
    const right = new Int16Array(played.length / 2);
    for (let i = 0; i < left.length; i++) {
      left[i] = played[2 * i]!;
      right[i] = played[2 * i + 1]!;
    }
    expect(normalizedCorrelation(chirpMono(0.8, 400, 4000, 48_000), left).correlation).toBeGreaterThan(0.9);
    expect(normalizedCorrelation(left, right).correlation).toBeGreaterThan(0.99);
    // The transcripts became notes.
    await waitFor(
      async () => JSON.stringify((await get('/notes?limit=50')).json).includes('Here is my answer.'),
      'the output transcript note',
    );
    const notes = ((await get('/notes?limit=50')).json as { notes: { kind: string; text: string }[] }).notes;
    expect(notes).toContainEqual(expect.objectContaining({ kind: 'input_transcript', text: 'What do you say?' }));
    expect(notes).toContainEqual(expect.objectContaining({ kind: 'output_transcript', text: 'Here is my answer.' }));
  });

  it('/say text reaches the model for its next turn', async () => {
    const res = await get('/say?text=' + encodeURIComponent('Your build finished'));
    expect(res.status).toBe(200);
    await waitFor(
      () =>
        JSON.stringify(model.clientContents).includes('Your build finished') ||
        model.texts.some((x) => x.includes('Your build finished')),
      'the injected text',
    );
  });

  it('/frame: a PNG reaches the model as a JPEG no larger than 768 px', async () => {
    const png = await sharp({ create: { width: 1600, height: 900, channels: 3, background: '#204060' } })
      .png()
      .toBuffer();
    const res = await rawRequest({
      port: t.port,
      method: 'POST',
      path: '/frame',
      headers: { ...t.auth, 'content-type': 'image/png' },
      body: png,
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: 'sent', width: 768, height: 432, input_type: 'png' });
    await waitFor(() => model.frames.length > 0, 'the frame');
    const frame = model.frames.at(-1)!;
    expect(frame.mimeType).toBe('image/jpeg');
    const meta = await sharp(frame.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 768, 432]);
  });

  it('interrupted mid-reply: silence within a frame or two, and none of the rest of that turn', async () => {
    await sleep(200);
    discord.recorder.clear();
    const long = chirpMono(3, 300, 600, 24_000);
    // Twice as fast as real time, as the service sends: the player never runs dry, so every frame
    // heard is a whole frame of the turn (paced in real time, a frame that ran dry carried part of
    // one and the count below drifted past playedMs), and at the interruption the rest of the
    // reply is partly buffered, partly still to come.
    const outcome = model.reply({
      pcm: long,
      paceMs: 10,
      chunkMs: 20,
      transcript: 'This reply is long and will be cut off by the user.',
    });
    // 20 frames in, the reply's transcript has begun (the fake spreads its words over the chunks).
    await waitFor(() => botFrames().filter((f) => f.peak > 2000).length >= 20, 'the reply to start playing');
    model.interrupt();
    expect(await outcome).toBe('interrupted');
    // The bridge notes how much of the turn it had handed to the player when `interrupted` arrived.
    let playedMs = -1;
    await waitFor(async () => {
      const notes = ((await get('/notes?limit=10')).json as { notes: { text: string }[] }).notes;
      const match = notes.map((n) => /\(interrupted after (\d+) ms\)/.exec(n.text)).find(Boolean);
      if (match) playedMs = Number(match[1]);
      return playedMs >= 0;
    }, 'the interruption note');
    await sleep(600);
    // Counting frames, not clock times, so a busy machine cannot blur it: the channel heard what was
    // handed over before the interruption plus the fade frame, then silence — nothing of the ~2.5 s
    // of that turn still buffered or arriving later.
    const frames = botFrames();
    const loud = frames.filter((f) => f.peak > 200).length;
    const playedFrames = Math.round(playedMs / 20);
    // 20 loud frames were heard before the interruption; the first may have been partly silence.
    expect(playedFrames).toBeGreaterThanOrEqual(18);
    expect(loud).toBeGreaterThanOrEqual(playedFrames - 1);
    expect(loud).toBeLessThanOrEqual(playedFrames + 2);
    // After the fade: the five silence frames Discord's clients send before they stop, then the
    // player stopped (nothing more came in the 600 ms waited above; `loud` bounds what did).
    const lastLoud = frames.findLastIndex((f) => f.peak > 200);
    expect(frames.length - 1 - lastLoud).toBeGreaterThanOrEqual(5);
    const metrics = (
      (await get('/health')).json as {
        metrics: { interrupts: number; barge_in_latency: { count: number; p95_ms: number } };
      }
    ).metrics;
    expect(metrics.interrupts).toBe(1);
    expect(metrics.barge_in_latency.count).toBe(1);
  });

  it('/stop ends the call, /health says so, and a second /leave is a no-op', async () => {
    const stopped = await get('/stop');
    expect(stopped.status).toBe(200);
    expect(stopped.json).toMatchObject({ stopped: true, status: { state: 'stopped' } });
    const health = (await get('/health')).json as { bridge: { state: string }; connections: { model: string } };
    expect(health.bridge.state).toBe('stopped');
    expect(health.connections.model).toBe('disconnected');
    expect((await get('/leave')).json).toMatchObject({ stopped: false });
    await waitFor(() => discord.op4Payloads.some((p) => p.channel_id === null), 'the bot to leave the voice channel');
    const say = await get('/say?text=hi');
    expect([say.status, errorCode(say)]).toEqual([409, 'no_call']);
  });
});
