// Consent in the room, on the fakes: the bot announces itself in the voice channel's text chat when
// it joins and once per person who joins while it is there; /optout (or ❌ on the notice) drops that
// person's audio before the model (the fake model receives none of it), remembered across calls and
// on disk; /optin undoes it. The owner's /join, /leave, /mute, /status answer ephemerally; others are refused.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RoomView } from '../../../main/core/api-types.ts';
import type { FakeGeminiConnection } from '../../../main/fakes/gemini/index.ts';
import { rms } from '../../../main/fakes/shared/pcm.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { chirpStereo, waitFor } from '../bridge/signals.ts';

let call: CoreOnFakes;
let model: FakeGeminiConnection;

beforeAll(async () => {
  call = await startCoreOnFakes({
    gemini: { bargeInRms: null, autoReply: false },
    env: (d) => ({
      DISCORD_VOICE_LIVE_ALLOWED_SPEAKERS: `${d.owner.id},${d.user('guest').id},${d.user('stranger').id}`,
    }),
  });
  call.discord.user('guest').nick = 'Gus';
  call.discord.user('stranger').globalName = 'Stanley';
  call.discord.userJoinVoice(call.discord.user('guest').id);
  await waitFor(() => call.discord.interactions.commands.size > 0, 'the bot to register its slash commands');
}, 60_000);

afterAll(async () => {
  await call?.close();
});

const notices = () =>
  call.discord.messages.filter((m) => m.channelId === call.discord.voiceChannelId && m.content.includes('/optout'));

/** Slash command by `userId`; resolves with the bot's answer to it. */
async function slash(userId: string, name: string) {
  const id = call.discord.slash(userId, name);
  await waitFor(() => call.discord.interactions.answers.some((a) => a.interactionId === id), `the answer to /${name}`);
  return call.discord.interactions.answers.find((a) => a.interactionId === id)!;
}

/**
 * How many samples of sound the model received while `userId` said something. Sound only: the
 * previous speaker's turn may still be held open as paced digital silence until the service ends it
 * (issue #52), and that silence is not this speaker's audio.
 */
async function heardFrom(userId: string): Promise<number> {
  const sounding = () => model.audio.reduce((n, a) => n + (rms(a.pcm) > 100 ? a.pcm.length : 0), 0);
  const before = sounding();
  await call.discord.speak(userId, chirpStereo(1.0, 300, 2500, 48_000));
  await new Promise((r) => setTimeout(r, 600));
  return sounding() - before;
}

describe('consent in the room', () => {
  it('registers /optout, /optin and the owner commands; posts the notice once when it joins, naming what is kept and for how long', async () => {
    expect([...call.discord.interactions.commands.keys()].sort()).toEqual([
      'join',
      'leave',
      'mute',
      'optin',
      'optout',
      'status',
    ]);
    const answer = await slash(call.discord.owner.id, 'join');
    expect(answer).toMatchObject({ ephemeral: true, type: 4 });
    await waitFor(() => notices().length === 1, 'the consent notice');
    model = await call.gemini.connection(0);
    const notice = notices()[0]!;
    expect(notice.content).toContain('kept as notes for 90 days');
    expect(notice.content).toContain('Audio is not recorded');
    expect(notice.body.allowed_mentions).toEqual({ parse: [] });
    await new Promise((r) => setTimeout(r, 500));
    expect(notices()).toHaveLength(1);
  }, 60_000);

  it('posts one notice per join while it is there, naming the newcomer', async () => {
    const stranger = call.discord.user('stranger').id;
    call.discord.userJoinVoice(stranger);
    await waitFor(() => notices().length === 2, 'the notice for the newcomer');
    expect(notices()[1]!.content).toContain('Hello Stanley');
    await new Promise((r) => setTimeout(r, 500));
    expect(notices()).toHaveLength(2);
    call.discord.userLeaveVoice(stranger);
    call.discord.userJoinVoice(stranger);
    await waitFor(() => notices().length === 3, 'a notice for the second join');
  }, 30_000);

  it("/optout drops the person's audio before the model (it receives none), shows in the room view, and /optin undoes it", async () => {
    const gus = call.discord.user('guest').id;
    expect(await heardFrom(gus)).toBeGreaterThan(8000);
    const answer = await slash(gus, 'optout');
    expect(answer.ephemeral).toBe(true);
    expect(answer.content).toContain('You opted out');
    expect(await heardFrom(gus)).toBe(0);
    const room = (await call.get('/room')).json as RoomView;
    expect(room.people.find((p) => p.id === gus)).toMatchObject({
      name: 'Gus',
      opted_out: true,
      may: 'nothing: opted out, their audio is dropped before the model',
    });
    // The owner is still heard.
    expect(await heardFrom(call.discord.owner.id)).toBeGreaterThan(8000);
    // Kept on disk for later calls and restarts.
    const file = path.join(call.t.config.paths.voiceUsers, 'consent.json');
    expect(existsSync(file)).toBe(true);
    expect(Object.keys((JSON.parse(readFileSync(file, 'utf8')) as { opted_out: object }).opted_out)).toEqual([gus]);
  }, 60_000);

  it('❌ on the notice opts out too', async () => {
    const stan = call.discord.user('stranger').id;
    expect(await heardFrom(stan)).toBeGreaterThan(8000);
    call.discord.react(stan, notices()[0]!, '❌');
    await waitFor(
      async () => ((await call.get('/room')).json as RoomView).people.some((p) => p.id === stan && p.opted_out),
      'the reaction to opt Stanley out',
    );
    expect(await heardFrom(stan)).toBe(0);
  }, 60_000);

  it("owner-only commands are refused to others; the owner's /status, /mute and /leave answer ephemerally", async () => {
    const gus = call.discord.user('guest').id;
    expect((await slash(call.discord.owner.id, 'join')).content).toBe('Could not join: a call is already connected');
    const refused = await slash(gus, 'leave');
    expect(refused.content).toBe('Only the owner can use /leave. You can use /optout or /optin.');
    expect(((await call.get('/health')).json as { bridge: { state: string } }).bridge.state).toBe('connected');
    const status = await slash(call.discord.owner.id, 'status');
    expect(status.ephemeral).toBe(true);
    expect(status.content).toContain('Call: connected');
    expect(status.content).toContain('Opted out: Gus, Stanley');
    expect((await slash(call.discord.owner.id, 'mute')).content).toContain('Muted');
    expect(await heardFrom(call.discord.owner.id)).toBe(0);
    expect((await slash(call.discord.owner.id, 'mute')).content).toContain('Unmuted');
    expect((await slash(call.discord.owner.id, 'leave')).content).toBe('Left the call.');
  }, 60_000);

  it('an opt-out is remembered in the next call; /optin lets them be heard again', async () => {
    await slash(call.discord.owner.id, 'join');
    await waitFor(
      async () => ((await call.get('/health')).json as { bridge: { state: string } }).bridge.state === 'connected',
      'the second call',
    );
    model = await call.gemini.connection(1);
    const gus = call.discord.user('guest').id;
    expect(await heardFrom(gus)).toBe(0);
    expect((await slash(gus, 'optin')).content).toContain('You opted back in');
    expect(await heardFrom(gus)).toBeGreaterThan(8000);
  }, 60_000);
});
