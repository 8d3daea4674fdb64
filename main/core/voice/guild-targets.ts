// Which voice channel the adapter joins: the explicit target or the owner's channel, checked to be a
// voice channel of a guild the bot is in (before anything is sent to Discord), and how it names a
// guild and recognises a channel id it cannot use. Apart from discord-voice.ts (the connection's life).
import {
  DiscordAPIError,
  DiscordjsError,
  DiscordjsErrorCodes,
  RESTJSONErrorCodes,
  type Client,
  type Guild,
  type GuildBasedChannel,
  type VoiceBasedChannel,
} from 'discord.js';
import type { VoiceTarget } from '../ports.ts';
import { VoiceTargetError } from '../bridge/types.ts';

/** Discord's answers for a channel id the bot cannot use as a target: unknown (10003), hidden from it (50001), or in another guild. */
export function isUnknownChannel(err: unknown): boolean {
  if (err instanceof DiscordAPIError)
    return err.code === RESTJSONErrorCodes.UnknownChannel || err.code === RESTJSONErrorCodes.MissingAccess;
  return err instanceof DiscordjsError && err.code === DiscordjsErrorCodes.GuildChannelUnowned;
}

export function describeGuild(guild: Guild): string {
  return `guild ${guild.id} (${guild.name})`;
}

/** The target's channel when it is a voice-based channel of a guild the bot is in; VoiceTargetError otherwise. */
export async function voiceChannelOf(client: Client, target: VoiceTarget): Promise<VoiceBasedChannel> {
  const guild = client.guilds.cache.get(target.guildId);
  if (!guild) throw new VoiceTargetError('guild_not_found', `the bot is not in guild ${target.guildId}`);
  let channel: GuildBasedChannel | null;
  try {
    // The cache is kept current by the gateway (GUILD_CREATE lists every channel); REST only on a miss.
    channel = guild.channels.cache.get(target.channelId) ?? (await guild.channels.fetch(target.channelId));
  } catch (err) {
    if (!isUnknownChannel(err)) throw err;
    channel = null;
  }
  if (!channel)
    throw new VoiceTargetError(
      'channel_not_found',
      `no channel ${target.channelId} in ${describeGuild(guild)} that the bot can see`,
    );
  if (!channel.isVoiceBased()) {
    throw new VoiceTargetError(
      'not_a_voice_channel',
      `channel ${target.channelId} (${JSON.stringify(channel.name)}) in ${describeGuild(guild)} is not a voice channel: give a voice channel's id`,
    );
  }
  return channel;
}

/** The explicit target, else the owner's voice channel (in the configured guild, if one is). */
export function ownerTarget(
  client: Client,
  options: { guildId?: string; channelId?: string; ownerId: string },
): VoiceTarget {
  const { guildId, channelId, ownerId } = options;
  if (guildId && channelId) return { guildId, channelId };
  for (const guild of client.guilds.cache.values()) {
    if (guildId && guild.id !== guildId) continue;
    const ownerChannel = guild.voiceStates.cache.get(ownerId)?.channelId;
    if (ownerChannel) return { guildId: guild.id, channelId: ownerChannel };
  }
  throw new VoiceTargetError(
    'owner_not_in_voice',
    'the owner is not in a voice channel the bot can see: join one in Discord, or give guild_id and channel_id',
  );
}
