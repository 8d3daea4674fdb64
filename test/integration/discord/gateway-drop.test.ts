// The Discord gateway drops the bot after login, the ways Discord does (1006 without a close frame,
// 4000 and 4009 closes, op 9 invalid session), and the real core (discord.js) comes back by itself:
// it RESUMEs where Discord allows it (missed events replayed by seq) and IDENTIFYs again where the
// session is gone. Afterwards /join, a DM and the voice path all work, as a user would see them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../../../main/fakes/discord/index.ts';
import { startFakeGemini, type FakeGemini } from '../../../main/fakes/gemini/index.ts';
import { startTestCore, type TestCore } from '../../helpers/core.ts';
import { rawRequest } from '../../helpers/http.ts';
import { chirpStereo, waitFor } from '../bridge/signals.ts';

let discord: FakeDiscord;
let gemini: FakeGemini;
let t: TestCore;

const post = (path: string, body?: unknown) =>
  body === undefined
    ? rawRequest({ port: t.port, method: 'POST', path, headers: t.auth })
    : rawRequest({
        port: t.port,
        method: 'POST',
        path,
        headers: { ...t.auth, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

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
  // Logged in (the core logs in at start-up), and a call made and ended before the drops.
  await waitFor(() => discord.gateway.identifies.length === 1, 'the login at start-up', 30_000);
  expect((await post('/join')).status).toBe(200);
  expect((await rawRequest({ port: t.port, path: '/leave', headers: t.auth })).status).toBe(200);
  await waitFor(() => discord.botChannelId() === null, 'the bot to leave the channel');
}, 60_000);

afterAll(async () => {
  await t?.close();
  await gemini?.close();
  await discord?.close();
});

describe('Discord gateway dropped after login', () => {
  it('resumes after 1006 (no close frame) and after 4000, with events missed meanwhile replayed', async () => {
    expect(discord.dropGateway('abrupt')).toBe(1);
    // An event while the bot is away: it must arrive on RESUME (seq replay), not be lost.
    const guest = discord.users.find((u) => u.id !== discord.owner.id && u.id !== discord.bot.id)!;
    discord.userJoinVoice(guest.id, discord.otherVoiceChannelId);
    await waitFor(() => discord.gateway.resumes.length === 1, 'RESUME after 1006', 30_000);
    expect(discord.gateway.resumes[0]!.replayed).toBeGreaterThanOrEqual(1);

    expect(discord.dropGateway(4000)).toBe(1);
    await waitFor(() => discord.gateway.resumes.length === 2, 'RESUME after 4000', 30_000);
    expect(discord.gateway.identifies).toHaveLength(1); // resumed, never a new session
    expect(discord.gateway.refusedResumes).toBe(0);
  }, 70_000);

  it('identifies again after 4009 (session timed out: its RESUME is refused with op 9) and after op 9', async () => {
    expect(discord.dropGateway(4009)).toBe(1);
    await waitFor(() => discord.gateway.identifies.length === 2, 'IDENTIFY after 4009', 30_000);
    expect(discord.gateway.refusedResumes).toBe(1); // discord.js tried to resume; Discord said no

    expect(discord.dropGateway('invalidSession')).toBe(1);
    await waitFor(() => discord.gateway.identifies.length === 3, 'IDENTIFY after op 9', 30_000);
  }, 70_000);

  it('afterwards /join, a DM and the voice path work', async () => {
    const joined = await post('/join');
    expect(joined.status).toBe(200);
    expect(joined.json).toMatchObject({ state: 'connected', connections: { discord: 'connected' } });
    expect(discord.botChannelId()).toBe(discord.voiceChannelId);

    const before = discord.messages.length;
    const dm = await post('/notify', { text: 'after the drops', mode: 'dm' });
    expect(dm.status).toBe(200);
    const sent = discord.messages.slice(before).filter((m) => m.dmRecipientId === discord.owner.id);
    expect(sent.map((m) => m.content.includes('after the drops'))).toEqual([true]);

    const model = await gemini.connection(1); // the second call's socket (the first call's is closed)
    await discord.speak(discord.owner.id, chirpStereo(1, 300, 3000, 48_000));
    await waitFor(() => model.inputSamples >= 0.8 * 16_000, 'the owner heard by the model');
  }, 60_000);
});
