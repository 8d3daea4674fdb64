// A /join target that is no voice channel of the bot's guild (a text channel, an id that does not
// exist, a DM, a guild the bot is not in) is the client's mistake: a 4xx with a specific code at
// once, the bot never sends a voice join to the gateway, and /health reports no failed call. Before
// the fix the bot sent the join anyway, waited out the 20 s ready timeout and answered
// `502 join_failed`, leaving /health at `error`.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HealthReport } from '../../../main/core/api-types.ts';
import { VoiceTargetError } from '../../../main/core/bridge/types.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { errorCode, type RawResponse } from '../../helpers/http.ts';
import { waitFor } from '../bridge/signals.ts';
import { fakeCallFixture } from './helpers.ts';

const UNKNOWN_CHANNEL = '99999999999999999';

describe('POST /join with a target that is not a voice channel', () => {
  let c: CoreOnFakes;
  const health = async (): Promise<HealthReport> => (await c.get('/health')).json as HealthReport;

  beforeAll(async () => {
    c = await startCoreOnFakes();
    await waitFor(async () => !(await health()).reasons.some((r) => r.includes('not logged in')), 'the bot logged in');
  });
  afterAll(async () => {
    await c?.close();
  });

  /** Nothing reached Discord's voice side and /health shows no failed call. */
  async function expectNothingAttempted(): Promise<void> {
    expect(c.discord.op4Payloads).toEqual([]); // no voice join (gateway op 4) was ever sent
    expect(c.discord.botChannelId()).toBeNull();
    const h = await health();
    expect(h.status).not.toBe('error');
    expect(h.reasons.filter((r) => r.startsWith('call failed'))).toEqual([]);
    expect(h.bridge.state).not.toBe('error');
    expect(h.connections.discord).toBe('disconnected');
  }

  const join = (channelId: string, guildId = c.discord.guildId): Promise<RawResponse> =>
    c.post('/join', { guild_id: guildId, channel_id: channelId });

  it('a text channel of the guild: 400 not_a_voice_channel, no voice join sent, /health not in error', async () => {
    const res = await join(c.discord.textChannelId);
    expect([res.status, errorCode(res)]).toEqual([400, 'not_a_voice_channel']);
    expect((res.json as { error: { message: string } }).error.message).toContain(c.discord.textChannelId);
    await expectNothingAttempted();
  });

  it('a channel id that does not exist: 404 channel_not_found (the fake answered 404 Unknown Channel, 10003)', async () => {
    const res = await join(UNKNOWN_CHANNEL);
    expect([res.status, errorCode(res)]).toEqual([404, 'channel_not_found']);
    // Not in the gateway's cache, so the bot asked REST, and the fake answered as Discord does.
    expect(c.discord.restRequests).toContainEqual({ method: 'GET', path: `/channels/${UNKNOWN_CHANNEL}` });
    const raw = await fetch(`${c.discord.apiBaseUrl}/v10/channels/${UNKNOWN_CHANNEL}`, {
      headers: { authorization: `Bot ${c.discord.botToken}` },
    });
    expect([raw.status, await raw.json()]).toEqual([404, { message: 'Unknown Channel', code: 10003 }]);
    await expectNothingAttempted();
  });

  it('a channel that exists but is not in that guild (a DM channel): 404 channel_not_found', async () => {
    const dm = c.discord.world.dmChannelFor(c.discord.owner.id);
    const res = await join(dm.id);
    expect([res.status, errorCode(res)]).toEqual([404, 'channel_not_found']);
    await expectNothingAttempted();
  });

  it('a guild the bot is not in: 404 guild_not_found', async () => {
    const res = await join(c.discord.voiceChannelId, '123456789012345678');
    expect([res.status, errorCode(res)]).toEqual([404, 'guild_not_found']);
    await expectNothingAttempted();
  });

  it('after the refusals a /join to the voice channel works, and nothing was left half-open', async () => {
    const res = await join(c.discord.voiceChannelId);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ state: 'connected', connections: { discord: 'connected', model: 'connected' } });
    expect(c.discord.joinRequestCount).toBe(1);
    expect((await c.get('/stop')).status).toBe(200);
  });
});

describe('DiscordVoice.join with a wrong target during a call', () => {
  const fixture = fakeCallFixture();
  afterEach(fixture.stop);

  it('with no target and the owner in no voice channel: VoiceTargetError owner_not_in_voice (409), nothing sent', async () => {
    const { fake, voice } = await fixture.start({ ownerInVoice: false });
    await expect(voice.join()).rejects.toMatchObject({
      name: 'VoiceTargetError',
      code: 'owner_not_in_voice',
      status: 409,
    });
    expect(fake.joinRequestCount).toBe(0);
    expect(fake.op4Payloads).toEqual([]);
  });

  it('refuses it with VoiceTargetError and keeps the live call', async () => {
    const { fake, voice } = await fixture.start();
    await voice.join();
    expect(fake.joinRequestCount).toBe(1);
    await expect(voice.join({ guildId: fake.guildId, channelId: fake.textChannelId })).rejects.toMatchObject({
      name: 'VoiceTargetError',
      code: 'not_a_voice_channel',
      status: 400,
    });
    await expect(voice.join({ guildId: fake.guildId, channelId: UNKNOWN_CHANNEL })).rejects.toBeInstanceOf(
      VoiceTargetError,
    );
    expect(voice.state).toBe('connected');
    expect(fake.joinRequestCount).toBe(1);
    expect(fake.op4Payloads.filter((p) => p.channel_id === null)).toEqual([]); // never left
    expect(fake.botChannelId()).toBe(fake.voiceChannelId);
  });
});
