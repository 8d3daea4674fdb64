// The setup page's Discord test with a chosen voice channel, against the fake Discord REST: a text
// channel's permissions say nothing about a call, so the check must say it is not a voice channel
// (it used to answer ok: "may Connect, Speak and Send Messages in general"); an id that is not a
// channel of the server says so too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDiscord } from '../../../main/core/setup/discord-check.ts';
import { startFakeDiscord, type FakeDiscord } from '../../../main/fakes/discord/index.ts';

let discord: FakeDiscord;

beforeAll(async () => {
  discord = await startFakeDiscord();
});
afterAll(async () => {
  await discord?.close();
});

const check = (voiceChannelId: string) =>
  checkDiscord({
    token: discord.botToken,
    ownerId: discord.owner.id,
    guildId: discord.guildId,
    voiceChannelId,
    apiBaseUrl: discord.apiBaseUrl,
  });

describe('checkDiscord with a chosen voice channel', () => {
  it('a text channel as the voice channel: not ok, not_a_voice_channel, and the message says so', async () => {
    const result = await check(discord.textChannelId);
    expect(result).toMatchObject({
      ok: false,
      code: 'not_a_voice_channel',
      channel: { id: discord.textChannelId, name: 'general' },
    });
    const last = result.checks.at(-1)!;
    expect(last).toMatchObject({ step: 'permissions', ok: false });
    expect(last.message).toMatch(/general is a text channel.*only join a voice channel/);
    expect(result.checks.some((c) => c.message.includes('may Connect'))).toBe(false);
  });

  it('an id that is no channel of the server: not ok, channel_not_found naming the id', async () => {
    const result = await check('99999999999999999');
    expect(result).toMatchObject({ ok: false, code: 'channel_not_found', guild: { id: discord.guildId } });
    expect(result.checks.at(-1)).toMatchObject({
      step: 'permissions',
      ok: false,
      message: expect.stringContaining('99999999999999999'),
    });
  });

  it('a voice channel: still ok', async () => {
    const result = await check(discord.otherVoiceChannelId);
    expect(result).toMatchObject({ ok: true, channel: { id: discord.otherVoiceChannelId, name: 'Second Voice' } });
  });
});
