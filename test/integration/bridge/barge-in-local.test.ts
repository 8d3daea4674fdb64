// Local barge-in on each provider, on the fakes (real core, fake Discord, fake model): the owner
// talks over a reply, as people start words (a 20 ms rise, 9 dB under the bot), after having spoken
// before (their decoder has seen the silence frames that end a talk spurt), and the channel hears the
// reply stop within two frames of the first packet of their speech, counted in packets at the fake
// Discord's receiver (not clock time); the rest of that reply, which the model may go on sending, is
// never played. And the bot's own reply coming back through the owner's open mic, 20 dB and 14 dB
// under what the bot plays, cuts nothing. A speaker who stayed quiet through a reply's echo tail cuts
// it with their first frames, even in the reply's own band (barge-in.ts, per-speaker evidence).
// A word's first frame, too quiet to tell from echo, holds the reply at once; the next frames cut it.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { speechLikeSignal } from '../../../main/demo/fake-services.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { chirpMono, waitFor } from './signals.ts';
import { voicedReply } from '../../../bench/lib/speech-like.ts';

let call: CoreOnFakes | null = null;
afterEach(async () => {
  await call?.close();
  call = null;
});

/** A packet louder than this (decoded peak) carries the reply (the reply peaks at 12 000). */
const LOUD_PEAK = 1000;
const REPLY_AMPLITUDE = 12_000;

/**
 * Decoded peak of the last 10 ms of each bot packet, in the order the receiver got them: a frame of
 * the reply is loud to its end; the barge-in's fade frame (10 ms down to silence) is not.
 */
function botPeaks(c: CoreOnFakes): number[] {
  const pcm = c.discord.recorder.pcm();
  const peaks: number[] = [];
  for (let f = 0; f < c.discord.recorder.packets.length && (f + 1) * 1920 <= pcm.length; f++) {
    let peak = 0;
    for (let i = f * 1920 + 960; i < (f + 1) * 1920; i++) peak = Math.max(peak, Math.abs(pcm[i]!));
    peaks.push(peak);
  }
  return peaks;
}

/** 24 kHz mono → 48 kHz stereo by sample repetition, scaled (what a mic would pick up of it). */
function toStereo48k(mono24k: Int16Array, gain: number): Int16Array {
  const out = new Int16Array(mono24k.length * 4);
  for (let i = 0; i < mono24k.length; i++) {
    const v = Math.round(mono24k[i]! * gain);
    out.fill(v, i * 4, i * 4 + 4);
  }
  return out;
}

type Provider = 'gemini' | 'openai-realtime' | 'openai-live';

interface ModelFake {
  reply(script: { pcm: Int16Array; chunkMs: number; paceMs: number }): Promise<string>;
}

async function modelOf(c: CoreOnFakes, provider: Provider): Promise<ModelFake> {
  if (provider === 'gemini') return c.gemini.connection(0);
  if (provider === 'openai-realtime') return c.openai.connection(0);
  return c.openaiLive.connection(0);
}

/** The barge-in counters of /health's metrics, checked as the page would get them. */
const bargeInMetrics = z.object({
  metrics: z.object({
    interrupts: z.number(),
    local_barge_ins: z.number(),
    barge_in_holds: z.number(),
    barge_in_holds_released: z.number(),
  }),
});

async function metrics(c: CoreOnFakes): Promise<z.infer<typeof bargeInMetrics>['metrics']> {
  return bargeInMetrics.parse((await c.get('/health')).json).metrics;
}

type GeminiOptions = NonNullable<Parameters<typeof startCoreOnFakes>[0]>['gemini'];

/**
 * A joined call on `provider`'s fake whose owner's client has announced its SSRC (op 5, then
 * 100 ms), so later utterances start at once. The OpenAI fakes' voice detection is as deaf as the
 * Gemini fake's barge-in (RMS 2000): over the -14 dB echo (RMS ~1700), under the owner's speech. A
 * real service may well take that echo for speech and cut the reply itself (barge-in.ts); what is
 * tested here is the bridge's own test.
 */
async function callWithOwner(provider: Provider, gemini: GeminiOptions = {}) {
  const c = await startCoreOnFakes({
    gemini,
    openai: { autoReply: false, vadRms: 2000 },
    openaiLive: { vadRms: 2000 },
    env: () => ({ DISCORD_VOICE_LIVE_PROVIDER: provider }),
  });
  call = c;
  expect((await c.post('/join')).status).toBe(200);
  const model = await modelOf(c, provider);
  const owner = c.discord.owner.id;
  await c.discord.speak(owner, new Int16Array(1920 * 3));
  return { c, model, owner };
}

describe.each<Provider>(['gemini', 'openai-realtime', 'openai-live'])('local barge-in on %s', (provider) => {
  it("talking over a reply silences it within two frames at the receiver; the bot's own echo does not", async () => {
    const { c, model, owner } = await callWithOwner(provider);

    // 1. The reply comes back through the owner's mic at -20 dB, then at -14 dB (loudspeakers and no
    // echo cancelling), 100 ms late, while it plays: nothing is cut.
    const reply = chirpMono(3, 300, 600, 24_000, REPLY_AMPLITUDE);
    c.discord.recorder.clear();
    // Twice as fast as real time, as the services send: the reply is partly buffered, partly still to come.
    const echoed = model.reply({ pcm: reply, chunkMs: 20, paceMs: 10 });
    await waitFor(() => botPeaks(c).filter((p) => p > LOUD_PEAK).length >= 10, 'the reply to start playing');
    await c.discord.speak(owner, toStereo48k(reply.subarray(24_000 * 0.1, 24_000 * 1.2), 0.1));
    await c.discord.speak(owner, toStereo48k(reply.subarray(24_000 * 1.2, 24_000 * 2.4), 0.2));
    expect(await echoed).not.toBe('interrupted');
    // Every frame of the 3 s reply is heard (the fade-in and -out frames may be quieter).
    await waitFor(() => botPeaks(c).filter((p) => p > LOUD_PEAK).length >= 148, 'the whole reply to be heard');
    // The echo's first onset may hold the reply once (a 90 ms gap, nothing lost); it then holds nothing more.
    const afterEcho = await metrics(c);
    expect(afterEcho).toMatchObject({ interrupts: 0, local_barge_ins: 0 });
    expect(afterEcho.barge_in_holds).toBeLessThanOrEqual(1);
    expect(afterEcho.barge_in_holds_released).toBe(afterEcho.barge_in_holds);
    await sleep(800); // the reply's turn closes (GPT-Live: 700 ms without audio)

    // 2. The owner says something, then talks over the next reply in the same voice. Their client
    // ended the first talk spurt with five silence frames, which its encoder never coded.
    // Speech-like (140 Hz voice), -21 dBFS at its syllables' peaks, the bot -12 dBFS; its first
    // frame, rising, decodes to about -30 dBFS.
    const speech = speechLikeSignal(0.6, 9000);
    await c.discord.speak(owner, speech);
    await sleep(300);
    c.discord.recorder.clear();
    const cutReply = model.reply({ pcm: reply, chunkMs: 20, paceMs: 10 });
    await waitFor(() => botPeaks(c).filter((p) => p > LOUD_PEAK).length >= 20, 'the next reply to start playing');
    let packetsBeforeOnset = -1;
    await c.discord.speak(owner, speech, {
      onSent: () => {
        if (packetsBeforeOnset < 0) packetsBeforeOnset = c.discord.recorder.packets.length;
      },
    });
    await cutReply;
    await sleep(1500); // whatever of the reply the model still sent has had time to play, had it been kept
    const peaks = botPeaks(c);
    const loudBefore = peaks.slice(0, packetsBeforeOnset).filter((p) => p > LOUD_PEAK).length;
    const loudAfter = peaks.slice(packetsBeforeOnset).filter((p) => p > LOUD_PEAK).length;
    expect(loudBefore).toBeGreaterThanOrEqual(20);
    // At most the frame whose slot came while the speaker's first packet was on its way, then the
    // fade frame (its end may reach the last 10 ms through the Opus decoder's delay); nothing of the
    // reply after them.
    expect(loudAfter, `loud packets after the onset: ${loudAfter} (before: ${loudBefore})`).toBeLessThanOrEqual(2);
    expect(peaks.slice(packetsBeforeOnset + 2).every((p) => p <= LOUD_PEAK)).toBe(true);
    const figures = await metrics(c);
    expect(figures).toMatchObject({ interrupts: 1, local_barge_ins: 1 });
    if (provider === 'openai-realtime') {
      // The service is told what was heard: the reply's item truncated at what we played.
      const truncations = c.openai.connections[0]!.truncations;
      expect(truncations).toHaveLength(1);
      expect(Math.abs(truncations[0]!.audio_end_ms - (loudBefore + loudAfter) * 20)).toBeLessThanOrEqual(100);
    }
  }, 60_000);

  it("a word's first frame, under the echo line, stops the reply by itself; the next frames cut it", async () => {
    const { c, model, owner } = await callWithOwner(provider);
    // The bench's voices: the reply a 210 Hz voice at -15 dBFS RMS, the owner a 140 Hz one 11 dB
    // under it, whose first frame (rising) decodes to about -33 dBFS: under the echo line, and in
    // the reply's bands, so neither test can tell it from our echo (barge-in.ts).
    const reply = voicedReply(3000);
    const owners = speechLikeSignal(0.6);
    c.discord.recorder.clear();
    const cutReply = model.reply({ pcm: reply, chunkMs: 20, paceMs: 10 });
    await waitFor(() => botPeaks(c).filter((p) => p > LOUD_PEAK).length >= 20, 'the reply to start playing');
    // 1. The first frame of the word alone, and nothing more for 40 ms: the reply stops (held).
    let packetsBeforeOnset = -1;
    await c.discord.speak(owner, owners.subarray(0, 1920), {
      silenceTail: false,
      onSent: () => (packetsBeforeOnset = c.discord.recorder.packets.length),
    });
    await sleep(40);
    // 2. The rest of the word: the reply is cut, never played on.
    let packetsBeforeRest = -1;
    await c.discord.speak(owner, owners.subarray(1920), {
      onSent: () => {
        if (packetsBeforeRest < 0) packetsBeforeRest = c.discord.recorder.packets.length;
      },
    });
    await cutReply;
    await sleep(1500);
    const peaks = botPeaks(c);
    const beforeRest = peaks.slice(packetsBeforeOnset, packetsBeforeRest);
    // The first frame alone stopped the reply: its fade (quiet in its last 10 ms) went out before
    // the rest of the word was sent, and nothing of the reply after it. Without the hold the reply
    // plays on through the 40 ms and fades only on the rest.
    const fade = beforeRest.findIndex((p) => p <= LOUD_PEAK);
    expect(fade, `bot packets before the rest of the word: ${beforeRest.join(', ')}`).toBeGreaterThanOrEqual(0);
    expect(
      peaks.slice(packetsBeforeOnset + fade).filter((p) => p > LOUD_PEAK),
      'after the fade',
    ).toEqual([]);
    // Before the fade, only frames sent before the core could read the packet. The fake and the core
    // share one event loop here: after the fake's send, the same turn of the loop may run the
    // player's slot timer and read a model chunk (whose wake-up carries the next slot) before it
    // reads the speaker's socket, so up to two slots leave first; never the one sent a period early
    // by the timer's wake-up (voice/playback.ts sends it after the wake-up's I/O).
    expect(fade, `bot packets before the rest of the word: ${beforeRest.join(', ')}`).toBeLessThanOrEqual(2);
    expect(await metrics(c)).toMatchObject({ local_barge_ins: 1, barge_in_holds: 1, barge_in_holds_released: 0 });
  }, 60_000);
});

/** A call on the Gemini fake whose owner's client has announced its SSRC, and the 3 s reply the model speaks in these tests. */
async function geminiCallWithOwner(gemini: GeminiOptions = {}) {
  const { c, owner } = await callWithOwner('gemini', gemini);
  return { c, owner, model: await c.gemini.connection(0), reply: chirpMono(3, 300, 600, 24_000, REPLY_AMPLITUDE) };
}

describe('local barge-in after the model finished sending its reply', () => {
  it('a later reply that the service interrupts is still cut (the earlier local cut is not taken for its signal)', async () => {
    // The fake never interrupts on its own here: the first cut is ours alone, the second the service's.
    // Its turnComplete comes as soon as the audio is sent, not at playback end, as Realtime's
    // response.done or GPT-Live's quiet gap do: the first reply is over for the service when it is cut.
    const { c, model, owner, reply } = await geminiCallWithOwner({
      bargeInRms: null,
      strict: { turnCompleteAtPlaybackEnd: false },
    });

    // 1. The whole reply is sent at once (its turn complete) and plays from the buffer; the owner cuts it.
    c.discord.recorder.clear();
    expect(await model.reply({ pcm: reply, chunkMs: 100, paceMs: 1 })).not.toBe('interrupted');
    await waitFor(() => botPeaks(c).filter((p) => p > LOUD_PEAK).length >= 10, 'the reply to start playing');
    await c.discord.speak(owner, toStereo48k(chirpMono(0.4, 200, 800, 24_000, 8000), 1));
    await waitFor(async () => (await metrics(c)).local_barge_ins === 1, 'the local barge-in');
    await sleep(300);

    // 2. The next reply is interrupted by the service: it stops too.
    c.discord.recorder.clear();
    const second = model.reply({ pcm: reply, chunkMs: 20, paceMs: 10 });
    await waitFor(() => botPeaks(c).filter((p) => p > LOUD_PEAK).length >= 20, 'the next reply to start playing');
    model.interrupt();
    expect(await second).toBe('interrupted');
    await sleep(1000);
    const loud = botPeaks(c).filter((p) => p > LOUD_PEAK).length;
    expect(loud, `loud packets of the second reply: ${loud}`).toBeLessThanOrEqual(25);
    expect(await metrics(c)).toMatchObject({ interrupts: 2, local_barge_ins: 1 });
  }, 60_000);
});

describe("local barge-in on a speaker's own evidence (barge-in.ts)", () => {
  it("a sound in the reply's band, 18 dB under it: kept as echo while the owner has given no evidence, cut on its first frames once they stayed quiet through the echo tail", async () => {
    const { c, model, owner, reply } = await geminiCallWithOwner();
    /** What the owner sends: the reply's own band from `at` s, 18 dB under it (to both echo tests, echo). */
    const inBand = (at: number) => toStereo48k(reply.subarray(24_000 * at, 24_000 * (at + 0.4)), 0.125);

    // 1. 200 ms into a reply, before any played frame has passed its 1 s echo tail: nothing is proven, nothing cut.
    c.discord.recorder.clear();
    const first = model.reply({ pcm: reply, chunkMs: 20, paceMs: 10 });
    await waitFor(() => botPeaks(c).filter((p) => p > LOUD_PEAK).length >= 10, 'the reply to start playing');
    await c.discord.speak(owner, inBand(0.2));
    expect(await first).not.toBe('interrupted');
    await waitFor(() => botPeaks(c).filter((p) => p > LOUD_PEAK).length >= 148, 'the whole reply to be heard');
    expect(await metrics(c)).toMatchObject({ local_barge_ins: 0 });
    await sleep(300);

    // 2. The owner stays quiet through the rest of that reply and 1.4 s of the next: the same sound now cuts it.
    c.discord.recorder.clear();
    const second = model.reply({ pcm: reply, chunkMs: 20, paceMs: 10 });
    await waitFor(() => botPeaks(c).filter((p) => p > LOUD_PEAK).length >= 70, 'the next reply to play 1.4 s');
    let packetsBeforeOnset = -1;
    await c.discord.speak(owner, inBand(1.4), {
      onSent: () => {
        if (packetsBeforeOnset < 0) packetsBeforeOnset = c.discord.recorder.packets.length;
      },
    });
    await second;
    await sleep(1500);
    const peaks = botPeaks(c);
    const loudAfter = peaks.slice(packetsBeforeOnset).filter((p) => p > LOUD_PEAK).length;
    expect(loudAfter, `loud packets after the onset: ${loudAfter}`).toBeLessThanOrEqual(2);
    expect(await metrics(c)).toMatchObject({ local_barge_ins: 1 });
  }, 60_000);
});
