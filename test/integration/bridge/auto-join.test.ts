// Auto-join on the fakes: with DISCORD_VOICE_LIVE_AUTO_JOIN the bot starts a call when the owner
// enters a voice channel (the fake gateway sends the owner's VOICE_STATE_UPDATE as Discord does,
// to a bot that identified with GUILD_VOICE_STATES), follows a move to another channel, and leaves
// when the owner leaves (DISCORD_VOICE_LIVE_LEAVE_WHEN_OWNER_LEAVES, default true).
import { afterEach, describe, expect, it } from 'vitest';
import type { HealthReport } from '../../../main/core/api-types.ts';
import { startCoreOnFakes, type CoreOnFakes } from '../../helpers/call-on-fakes.ts';
import { waitFor } from './signals.ts';

let call: CoreOnFakes | undefined;
afterEach(async () => {
  await call?.close();
  call = undefined;
});

async function loggedIn(c: CoreOnFakes): Promise<void> {
  await waitFor(
    async () => !((await c.get('/health')).json as HealthReport).reasons.some((r) => r.includes('not logged in')),
    'the bot logged in',
  );
}
const health = async (c: CoreOnFakes): Promise<HealthReport> => (await c.get('/health')).json as HealthReport;

describe('auto-join', () => {
  it('joins the owner when they enter a voice channel, follows a move, and leaves when they leave', async () => {
    const c = (call = await startCoreOnFakes({ env: () => ({ DISCORD_VOICE_LIVE_AUTO_JOIN: 'true' }) }));
    const { discord } = c;
    discord.userLeaveVoice(discord.owner.id); // the fake starts with the owner in voice
    await loggedIn(c);
    expect(discord.joinRequestCount).toBe(0);

    discord.userJoinVoice(discord.owner.id, discord.voiceChannelId);
    await waitFor(async () => (await health(c)).bridge.state === 'connected', 'the auto-joined call');
    expect(discord.botChannelId()).toBe(discord.voiceChannelId);

    discord.userJoinVoice(discord.owner.id, discord.otherVoiceChannelId); // a move
    await waitFor(() => discord.botChannelId() === discord.otherVoiceChannelId, 'the bot following the owner');
    await waitFor(async () => (await health(c)).bridge.state === 'connected', 'the call in the new channel');

    discord.userLeaveVoice(discord.owner.id);
    await waitFor(async () => (await health(c)).bridge.state === 'stopped', 'the call ending with the owner leaving');
    expect((await health(c)).bridge.reason).toBe('the owner left the voice channel');
    expect(discord.botChannelId()).toBeNull();
  }, 60_000);

  it('is off by default: the owner entering does not start a call', async () => {
    const c = (call = await startCoreOnFakes());
    const { discord } = c;
    discord.userLeaveVoice(discord.owner.id);
    await loggedIn(c);
    discord.userJoinVoice(discord.owner.id, discord.voiceChannelId);
    // A manual join finds the owner in that channel, so the core has seen the owner's entry: had
    // auto-join acted on it, this would be refused (already_active) or be a second join.
    const joined = await c.post('/join');
    expect(joined.status).toBe(200);
    expect(discord.joinRequestCount).toBe(1);
  }, 60_000);
});
