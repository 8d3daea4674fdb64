// How the voice adapter names a guild and recognises a channel id it cannot use as a target.
import { DiscordAPIError, DiscordjsError, DiscordjsErrorCodes, RESTJSONErrorCodes, type Guild } from 'discord.js';

/** Discord's answers for a channel id the bot cannot use as a target: unknown (10003), hidden from it (50001), or in another guild. */
export function isUnknownChannel(err: unknown): boolean {
  if (err instanceof DiscordAPIError) return err.code === RESTJSONErrorCodes.UnknownChannel || err.code === RESTJSONErrorCodes.MissingAccess;
  return err instanceof DiscordjsError && err.code === DiscordjsErrorCodes.GuildChannelUnowned;
}

export function describeGuild(guild: Guild): string {
  return `guild ${guild.id} (${guild.name})`;
}
