// A parked call with three people and wake names on (auto: gated with two or more humans), through
// the real core on the fakes (the fake OpenAI transcription session screens each utterance): talk
// among the people without a wake name never wakes the model; an utterance that starts with a wake
// name wakes it and reaches the new session whole, its first words included.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HealthReport } from '../../../main/core/api-types.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { waitFor } from './signals.ts';
import { toneUtterance, toneTranscriber } from '../../helpers/tone-speech.ts';
import { amplitudeAt } from '../../../bench/lib/tone-analysis.ts';

const SENTENCES: Record<number, string> = { 300: 'Anyway, about lunch tomorrow.', 440: 'Gemini, what time is it?' };
/** The fake transcriber: the sentence of the loudest scripted tone in the committed audio. */
const transcribe = toneTranscriber(SENTENCES);

let call: CoreOnFakes;

const health = async (): Promise<HealthReport> => (await call.get('/health')).json as HealthReport;

beforeAll(async () => {
  call = await startCoreOnFakes({
    gemini: { bargeInRms: null, autoReply: false, setupDelayMs: 400 },
    openai: { autoReply: false, transcribe },
    env: (d) => ({
      DISCORD_VOICE_LIVE_ALLOWED_SPEAKERS: [d.owner.id, d.user('guest').id, d.user('stranger').id].join(','),
      DISCORD_VOICE_LIVE_WAKE_NAMES: 'Gemini, assistant',
      DISCORD_VOICE_LIVE_WAKE_FOLLOW_UP_MS: '0',
      DISCORD_VOICE_LIVE_PARK_AFTER_S: '1',
    }),
  });
  const { discord } = call;
  discord.userLeaveVoice(discord.owner.id);
  for (const id of [discord.owner.id, discord.user('guest').id, discord.user('stranger').id]) discord.userJoinVoice(id);
  expect((await call.post('/join')).status).toBe(200);
  await call.gemini.connection(0);
}, 60_000);

afterAll(async () => {
  await call?.close();
});

describe('a parked call with three people and wake names', () => {
  it('talk without a wake name leaves it parked; a wake name wakes it and the whole utterance reaches the model', async () => {
    await waitFor(async () => (await health()).bridge.state === 'parked', 'the call to park');
    const sessions = call.gemini.established.length;
    await call.discord.speak(call.discord.user('guest').id, toneUtterance(1.2, 300));
    await sleep(2500);
    expect((await health()).bridge.state).toBe('parked');
    expect(call.gemini.established.length).toBe(sessions);

    await call.discord.speak(call.discord.user('stranger').id, toneUtterance(1.2, 440));
    const woken = await call.gemini.connection(sessions);
    await waitFor(() => woken.audioStreamEnds > 0, 'the end of the utterance at the model');
    await sleep(300);
    const pcm = woken.inputPcm();
    // The first 320 ms of the utterance (its wake name) and its whole length are at the model.
    let loudBlocks = 0;
    for (let at = 0; at + 5120 <= pcm.length; at += 5120)
      if (amplitudeAt(pcm.subarray(at, at + 5120), 440, 16_000) > 1500) loudBlocks++;
    expect(loudBlocks).toBeGreaterThanOrEqual(3); // 1.2 s = 3.75 blocks of 320 ms
    expect(amplitudeAt(pcm, 300, 16_000)).toBeLessThan(200); // the talk without a wake name never reached it
  });
});
