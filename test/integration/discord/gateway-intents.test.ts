// The fake gateway is as strict as Discord about GUILD_VOICE_STATES (1 << 7): a session that did
// not ask for it hears no other user's VOICE_STATE_UPDATE; one that did hears the owner's entry
// with the fields Discord sends (guild_id, channel_id, user_id, session_id, member).
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startFakeDiscord, type FakeDiscord } from '../../../main/fakes/discord/index.ts';

let discord: FakeDiscord | undefined;
afterEach(async () => {
  await discord?.close();
  discord = undefined;
});

/** A raw gateway client: HELLO, IDENTIFY with `intents`, then every dispatch by name. */
async function connect(
  d: FakeDiscord,
  intents: number,
): Promise<{ events: { t: string; d: Record<string, unknown> }[]; send(op: number, d: unknown): void; close(): void }> {
  const socket = new WebSocket(d.gatewayUrl);
  const events: { t: string; d: Record<string, unknown> }[] = [];
  socket.on('message', (raw) => {
    const message = JSON.parse(raw.toString()) as { op: number; t?: string; d: Record<string, unknown> };
    if (message.op === 10)
      socket.send(
        JSON.stringify({
          op: 2,
          d: { token: d.botToken, intents, properties: { os: 'linux', browser: 'test', device: 'test' } },
        }),
      );
    if (message.op === 0 && message.t) events.push({ t: message.t, d: message.d });
  });
  await once(socket, 'open');
  const deadline = Date.now() + 5000;
  while (!events.some((e) => e.t === 'GUILD_CREATE')) {
    if (Date.now() > deadline) throw new Error('no READY/GUILD_CREATE');
    await new Promise((r) => setTimeout(r, 10));
  }
  return { events, send: (op, d) => socket.send(JSON.stringify({ op, d })), close: () => socket.close() };
}

describe('fake gateway: GUILD_VOICE_STATES', () => {
  it("sends the owner's VOICE_STATE_UPDATE only to a session that asked for voice states", async () => {
    discord = await startFakeDiscord({ ownerInVoice: false });
    const withVoice = await connect(discord, 1 | (1 << 7));
    const without = await connect(discord, 1);
    discord.userJoinVoice(discord.owner.id, discord.voiceChannelId);
    const deadline = Date.now() + 5000;
    while (!withVoice.events.some((e) => e.t === 'VOICE_STATE_UPDATE')) {
      if (Date.now() > deadline) throw new Error('no VOICE_STATE_UPDATE');
      await new Promise((r) => setTimeout(r, 10));
    }
    const update = withVoice.events.find((e) => e.t === 'VOICE_STATE_UPDATE')!.d;
    expect(update).toMatchObject({
      guild_id: discord.guildId,
      channel_id: discord.voiceChannelId,
      user_id: discord.owner.id,
      member: { user: { id: discord.owner.id } },
    });
    expect(typeof update.session_id).toBe('string');
    // The bot's own voice state (answering its op 4) reaches every session; each socket is ordered,
    // so once it arrived on `without`, an owner update sent there earlier would have arrived too.
    without.send(4, {
      guild_id: discord.guildId,
      channel_id: discord.otherVoiceChannelId,
      self_mute: false,
      self_deaf: false,
    });
    while (!without.events.some((e) => e.t === 'VOICE_STATE_UPDATE')) {
      if (Date.now() > deadline) throw new Error('no VOICE_STATE_UPDATE for the bot');
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(without.events.filter((e) => e.t === 'VOICE_STATE_UPDATE').map((e) => e.d.user_id)).toEqual([
      discord.bot.id,
    ]);
    withVoice.close();
    without.close();
  });
});
