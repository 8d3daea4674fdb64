// Voice notifications tell the truth, through a real call on the fakes (discord.js, @discordjs/voice,
// @google/genai, the real sidecar): `ok` for voice means the text was handed to the model; a text
// still waiting for a pause when the owner hangs up is dropped, `auto` falls through, and the
// notification arrives elsewhere exactly once; the chime plays into the call when the text is
// handed over (found in the audio the fake Discord received).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NotifyResult } from '../../../main/core/api-types.ts';
import { generateNotificationChime } from '../../../main/core/audio/sound-effects.ts';
import type { FakeDiscord } from '../../../main/fakes/discord/index.ts';
import type { FakeGemini } from '../../../main/fakes/gemini/index.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../unit/notify/webhook-receiver.ts';
import { chirpStereo, normalizedCorrelation, waitFor } from './signals.ts';

let call: CoreOnFakes;
let webhook: WebhookReceiver;
let discord: FakeDiscord;
let gemini: FakeGemini;
const post = (p: string, body?: unknown) => call.post(p, body);

beforeAll(async () => {
  // The model says nothing by itself: the only sound the bot can send is the chime.
  webhook = await startWebhookReceiver();
  call = await startCoreOnFakes({
    gemini: { bargeInRms: null },
    env: () => ({
      DISCORD_VOICE_LIVE_WEBHOOK_AGENT_NOTIFY: webhook.url,
      DISCORD_VOICE_LIVE_WEBHOOK_THROTTLE_SECONDS: '0',
    }),
  });
  ({ discord, gemini } = call);
}, 60_000);

afterAll(async () => {
  await call?.close();
  await webhook?.close();
});

const textsSeenByModel = (needle: string) =>
  gemini.connections.flatMap((c) => c.clientContents.map((m) => JSON.stringify(m))).filter((m) => m.includes(needle))
    .length;

describe('voice notifications on a real call', () => {
  it('ok means handed to the model, and the chime is in the audio Discord received', async () => {
    const first = gemini.connections.length; // this fake answers no text, so a stall resume may add sockets
    expect((await post('/join')).status).toBe(200);
    const model = await gemini.connection(first);
    const res = await post('/notify', { text: 'Tea is ready.', mode: 'voice', title: 'Kitchen' });
    expect(res.status).toBe(200);
    const result = res.json as NotifyResult;
    expect(result).toMatchObject({ status: 'ok', channel: 'voice', results: { voice: { status: 'ok' } } });
    // Handed over = the turn is on the model's socket.
    await waitFor(
      () => model.clientContents.some((m) => JSON.stringify(m).includes('Tea is ready.')),
      'the text at the model',
    );
    const chime = generateNotificationChime(); // 48 kHz mono
    // The chime and the silence frames after it (five, as Discord's clients send); then the player
    // stops (nothing to say). The recorder decodes what it hears as stereo.
    await waitFor(() => discord.recorder.pcm().length >= 2 * chime.length + 4 * 1920, 'bot audio after the chime');
    const pcm = discord.recorder.pcm();
    const left = new Int16Array(pcm.length / 2);
    for (let i = 0; i < left.length; i++) left[i] = pcm[2 * i]!;
    expect(normalizedCorrelation(chime, left).correlation).toBeGreaterThan(0.8);
    expect((await call.get('/stop')).status).toBe(200);
  });

  it('the owner hangs up while the text waits for a pause: auto falls through, delivered once elsewhere, recorded', async () => {
    const first = gemini.connections.length; // this fake answers no text, so a stall resume may add sockets
    expect((await post('/join')).status).toBe(200);
    const model = await gemini.connection(first);
    // The owner talks: the voice gate is open, so an injected text must wait for the pause.
    const talking = discord.speak(discord.owner.id, chirpStereo(4, 300, 3000, 48_000)).catch(() => undefined);
    await waitFor(() => model.inputSamples > 16_000 * 0.3, 'the owner to be talking');
    const notifying = post('/notify', { text: 'Your build failed.', mode: 'auto', title: 'CI' });
    // The notification is waiting (not yet at the model) when the owner leaves the channel.
    await new Promise((r) => setTimeout(r, 200));
    expect(textsSeenByModel('Your build failed.')).toBe(0);
    discord.userLeaveVoice(discord.owner.id);
    const res = await notifying;
    await talking;
    expect(res.status).toBe(200);
    const result = res.json as NotifyResult;
    expect(result.status).toBe('ok');
    expect(result.channel).toBe('dm');
    expect(result.results.voice).toEqual({
      status: 'unavailable',
      detail: 'the call ended before the text could be spoken',
      queued: false,
      say_id: expect.stringMatching(/^say_/),
    });
    // Its spoken outcome says it was not spoken, and why (GET /say/{id}); the answer above says where it went instead.
    expect((await call.get(`/say/${result.results.voice!.say_id}`)).json).toMatchObject({
      verb: 'notify',
      outcome: 'dropped',
      reason:
        'the call ended before the text could be spoken (the owner left the voice channel); sent by direct message instead',
    });
    const dms = discord.messages.filter(
      (m) => m.dmRecipientId === discord.owner.id && m.content.includes('Your build failed.'),
    );
    expect(dms).toHaveLength(1);
    // Never spoken later either.
    expect(textsSeenByModel('Your build failed.')).toBe(0);
    // The outcome is in the notes.
    const notes = JSON.stringify((await call.get('/notes?limit=500')).json);
    expect(notes).toContain(
      '[auto → dm: ok; voice: unavailable (the call ended before the text could be spoken)] CI: Your build failed.',
    );
    discord.userJoinVoice(discord.owner.id);
    expect(webhook.received).toHaveLength(0);
  });

  it('the same with the owner refusing DMs and no text channel: auto ends at the webhook, which gets it once', async () => {
    discord.world.closedDms.add(discord.owner.id);
    const first = gemini.connections.length; // this fake answers no text, so a stall resume may add sockets
    expect((await post('/join')).status).toBe(200);
    const model = await gemini.connection(first);
    const talking = discord.speak(discord.owner.id, chirpStereo(4, 300, 3000, 48_000)).catch(() => undefined);
    await waitFor(() => model.inputSamples > 16_000 * 0.3, 'the owner to be talking');
    const notifying = post('/notify', { text: 'The deploy is done.', mode: 'auto', title: 'CD' });
    await new Promise((r) => setTimeout(r, 200));
    expect(textsSeenByModel('The deploy is done.')).toBe(0);
    discord.userLeaveVoice(discord.owner.id);
    const res = await notifying;
    await talking;
    expect(res.status).toBe(200);
    const result = res.json as NotifyResult;
    expect(result).toMatchObject({ status: 'ok', channel: 'webhook' });
    expect(result.results.voice).toEqual({
      status: 'unavailable',
      detail: 'the call ended before the text could be spoken',
      queued: false,
      say_id: expect.stringMatching(/^say_/),
    });
    expect(result.results.dm?.status).toBe('error');
    expect(discord.messages.filter((m) => m.content.includes('The deploy is done.'))).toHaveLength(0);
    const posts = webhook.received.filter((r) => JSON.stringify(r.json).includes('The deploy is done.'));
    expect(posts).toHaveLength(1);
    expect(textsSeenByModel('The deploy is done.')).toBe(0);
    discord.world.closedDms.delete(discord.owner.id);
    discord.userJoinVoice(discord.owner.id);
  });
});
