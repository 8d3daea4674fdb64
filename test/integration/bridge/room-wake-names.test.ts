// Wake names on the fakes, three scripted speakers: the real core, fake Discord, the fake Gemini as
// the main model and the fake OpenAI Realtime's transcription session as the screener. Each
// utterance is a tone of its own frequency; the fake transcriber "hears" a scripted sentence per
// frequency, and the fake main model's record (the 16 kHz audio it received) shows which
// utterances reached it. Auto mode: the gate turns on when a second human joins and off when they
// leave; an utterance starting with a wake name reaches the model, one that does not never does,
// and one starting in the follow-up window after the bot spoke passes without screening.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RoomView } from '../../../main/core/api-types.ts';
import type { FakeGeminiConnection } from '../../../main/fakes/gemini/index.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { waitFor } from './signals.ts';
import { toneUtterance, toneTranscriber } from '../../helpers/tone-speech.ts';
import { amplitudeAt } from '../../../bench/lib/tone-analysis.ts';

/** What each tone "says" (the screener's transcript of it). */
const SENTENCES: Record<number, string> = {
  300: "What's the weather like?",
  440: 'Gemini, what time is it?',
  950: 'Anyway, about lunch tomorrow.',
  700: 'Hey assistant — put that on my list.',
  1700: 'And what about tomorrow?',
  1200: 'So I told Gemini about it.',
  600: 'Read me the news.',
};
/** The fake transcriber: the sentence of the loudest scripted tone in the committed audio. */
const transcribe = toneTranscriber(SENTENCES);
const FOLLOW_UP_MS = 2500;

let call: CoreOnFakes;
let olga: string;
let gus: string;
let stan: string;

/** The main model's sockets: an unanswered utterance can make the session resume on a new one (stall recovery). */
function modelSockets(): FakeGeminiConnection[] {
  return call.gemini.established;
}

/** Audio samples the main model received, over all its sockets. */
function modelSamples(): number {
  return modelSockets().reduce((sum, c) => sum + c.inputSamples, 0);
}

/** Did the main model receive the tone `hz`? (Each utterance has a frequency of its own.) */
function modelHeard(hz: number): boolean {
  for (const socket of modelSockets()) {
    const pcm = socket.inputPcm();
    // Measured in 320 ms blocks: a short utterance in a long recording still stands out.
    for (let at = 0; at + 5120 <= pcm.length; at += 5120)
      if (amplitudeAt(pcm.subarray(at, at + 5120), hz, 16_000) > 1500) return true;
  }
  return false;
}

async function room(): Promise<RoomView> {
  return (await call.get('/room')).json as RoomView;
}

async function bytesToModel(): Promise<number> {
  return ((await call.get('/health')).json as { metrics: { bytes_to_model: number } }).metrics.bytes_to_model;
}

async function notes(): Promise<{ kind: string; text: string; speaker?: string }[]> {
  return ((await call.get('/notes?limit=500')).json as { notes: { kind: string; text: string; speaker?: string }[] })
    .notes;
}

/** The main model got no more audio for a while (the voice gate closed and nothing is flushed). */
async function modelInputSettled(): Promise<void> {
  let samples = -1;
  await waitFor(
    async () => {
      const quiet = modelSamples() === samples;
      samples = modelSamples();
      if (!quiet) await new Promise((r) => setTimeout(r, 700));
      return quiet;
    },
    'the audio to the main model to settle',
    20_000,
  );
}

beforeAll(async () => {
  call = await startCoreOnFakes({
    gemini: { bargeInRms: null, autoReply: false },
    openai: { autoReply: false, transcribe },
    env: (d) => ({
      DISCORD_VOICE_LIVE_ALLOWED_SPEAKERS: [d.owner.id, d.user('guest').id, d.user('stranger').id].join(','),
      DISCORD_VOICE_LIVE_WAKE_NAMES: 'Gemini, assistant',
      DISCORD_VOICE_LIVE_WAKE_FOLLOW_UP_MS: String(FOLLOW_UP_MS),
    }),
  });
  const { discord } = call;
  olga = discord.owner.id;
  gus = discord.user('guest').id;
  stan = discord.user('stranger').id;
  discord.owner.nick = 'Olga';
  discord.user('guest').nick = 'Gus';
  discord.user('stranger').nick = 'Stan';
  // All three are in the channel before the bot joins: a voice client that joins later is added to
  // the E2EE (DAVE) group only after a transition, so its first words could not be decrypted yet.
  discord.userLeaveVoice(olga);
  for (const id of [olga, gus, stan]) discord.userJoinVoice(id);
  expect((await call.post('/join')).status).toBe(200);
  await call.gemini.connection(0);
}, 60_000);

afterAll(async () => {
  await call?.close();
});

describe('wake names, auto mode, three speakers', () => {
  it('three humans in the call: the gate is on, says why, and its screener is a transcription-only session', async () => {
    await waitFor(async () => (await room()).wake.screening === 'ready', 'the screening stream to open');
    expect((await room()).wake).toMatchObject({
      on: true,
      reason: 'auto: 3 people in the call',
      names: ['gemini', 'assistant'],
      follow_up_ms: FOLLOW_UP_MS,
    });
    const screener = call.openai.transcriptions[0]!;
    expect(screener.model).toBe('gpt-4o-mini-transcribe');
    expect(screener.received.map((e) => e.type)).not.toContain('response.create');
    expect(screener.errors).toEqual([]);
  }, 30_000);

  it('an utterance without a wake name is never received by the main model; the notes say it was not for the bot', async () => {
    const before = modelSamples();
    const bytesBefore = await bytesToModel();
    expect(typeof bytesBefore).toBe('number');
    await call.discord.speak(gus, toneUtterance(1.2, 950));
    await waitFor(
      async () => (await notes()).some((n) => n.text.startsWith('not for the bot: Gus')),
      'the note about Gus',
    );
    await modelInputSettled();
    expect(modelHeard(950)).toBe(false);
    expect(modelSamples()).toBe(before);
    // The call's metrics count only what was sent.
    expect(await bytesToModel()).toBe(bytesBefore);
    const note = (await notes()).find((n) => n.text.startsWith('not for the bot: Gus'))!;
    expect(note).toMatchObject({ kind: 'note', speaker: gus });
    expect(note.text).not.toContain('lunch'); // the words of an utterance not for the bot are not kept
    expect(call.openai.transcriptions[0]!.commits.at(-1)?.transcript).toBe(SENTENCES[950]);
    // Not even who spoke reached the model.
    expect(JSON.stringify(modelSockets().map((c) => c.clientContents))).not.toContain('[Speaking now: Gus]');
  }, 30_000);

  it('an utterance starting with a wake name reaches the main model whole (held audio flushed), named', async () => {
    const before = modelSamples();
    await call.discord.speak(olga, toneUtterance(1.2, 440));
    await waitFor(() => modelHeard(440), "Olga's addressed utterance to reach the model");
    await modelInputSettled();
    // All of it: at least the 1.2 s spoken (the voice gate adds pre-roll and hangover).
    expect(modelSamples() - before).toBeGreaterThanOrEqual(1.2 * 16_000);
    expect(await bytesToModel()).toBe(modelSamples() * 2);
    expect(JSON.stringify(modelSockets().map((c) => c.clientContents))).toContain('[Speaking now: Olga]');
    // "Hey assistant" (a lead-in, another name) counts too.
    await call.discord.speak(gus, toneUtterance(1.2, 700));
    await waitFor(() => modelHeard(700), "Gus's addressed utterance to reach the model");
    // Named once let through, before the audio the model received.
    expect(JSON.stringify(modelSockets().map((c) => c.clientContents))).toContain('[Speaking now: Gus]');
    expect((await room()).wake).toMatchObject({ on: true, accepted: 2, dropped: 1 });
  }, 30_000);

  it('within the follow-up window after the bot spoke, an utterance passes without a wake name or screening', async () => {
    await modelInputSettled(); // Gus's utterance is over
    await modelSockets().at(-1)!.reply({ toneMs: 200, transcript: 'It is noon.' });
    const commits = call.openai.transcriptions[0]!.commits.length;
    await call.discord.speak(stan, toneUtterance(1.0, 1700));
    await waitFor(() => modelHeard(1700), "Stan's follow-up to reach the model");
    expect(call.openai.transcriptions[0]!.commits.length).toBe(commits);
    expect((await room()).wake.followUps).toBeGreaterThanOrEqual(1);
    // After the window, the same kind of sentence is screened and kept from the model.
    await modelInputSettled();
    await new Promise((r) => setTimeout(r, FOLLOW_UP_MS + 200));
    await call.discord.speak(stan, toneUtterance(1.2, 1200));
    await waitFor(
      async () => (await notes()).some((n) => n.text.startsWith('not for the bot: Stan')),
      'the note about Stan',
    );
    await modelInputSettled();
    expect(modelHeard(1200)).toBe(false);
  }, 40_000);

  it('when the others leave the gate turns off (speech passes unscreened); when a second human joins it turns on again', async () => {
    call.discord.userLeaveVoice(gus);
    await waitFor(async () => (await room()).wake.reason === 'auto: 2 people in the call', 'Gus to be gone');
    expect((await room()).wake.on).toBe(true);
    call.discord.userLeaveVoice(stan);
    await waitFor(async () => !(await room()).wake.on, 'the gate to turn off');
    expect((await room()).wake).toMatchObject({ reason: 'auto: 1 person in the call', screening: 'off' });
    await waitFor(() => !call.openai.transcriptions[0]!.isOpen, 'the screening stream to close (it costs per second)');
    await modelInputSettled();
    await new Promise((r) => setTimeout(r, FOLLOW_UP_MS + 200));
    await call.discord.speak(olga, toneUtterance(1.0, 300));
    await waitFor(() => modelHeard(300), 'the unscreened utterance to reach the model');
    expect(call.openai.transcriptions).toHaveLength(1);

    call.discord.userJoinVoice(gus);
    await waitFor(async () => (await room()).wake.on, 'the gate to turn on when Gus joins again');
    expect((await room()).wake.reason).toBe('auto: 2 people in the call');
    await waitFor(async () => (await room()).wake.screening === 'ready', 'a new screening stream');
    await modelInputSettled();
    await new Promise((r) => setTimeout(r, FOLLOW_UP_MS + 200));
    await call.discord.speak(olga, toneUtterance(1.2, 600));
    await waitFor(
      async () => (await notes()).some((n) => n.text.startsWith('not for the bot: Olga')),
      'the note about Olga',
    );
    await modelInputSettled();
    expect(modelHeard(600)).toBe(false);
    expect(call.openai.transcriptions[1]!.commits.at(-1)?.transcript).toBe(SENTENCES[600]);
  }, 60_000);
});
