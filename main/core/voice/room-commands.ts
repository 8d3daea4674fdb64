// The bot's slash commands and the reactions on its messages, on the discord.js client: the
// commands are registered per guild when the bot is ready (and when it joins a guild), and
// interactions and reactions are read from the raw gateway packets, validated with zod, handed to
// the room (consent, owner controls) and answered ephemerally (flag 64: only the user sees it)
// within Discord's 3 s (docs: interactions/receiving-and-responding).
import { Events, Routes, type Client } from 'discord.js';
import type { Logger } from 'pino';
import { z } from 'zod';

export interface SlashCommand {
  name: string;
  description: string;
}

export interface RoomCommandHandlers {
  /** The text of the ephemeral answer. */
  command(name: string, userId: string, channelId: string): Promise<string> | string;
  reaction(userId: string, channelId: string, messageId: string, emoji: string): void;
}

const EPHEMERAL = 64;
const CHANNEL_MESSAGE_WITH_SOURCE = 4;

const interactionSchema = z.object({
  id: z.string(),
  token: z.string(),
  type: z.literal(2),
  channel_id: z.string(),
  data: z.object({ name: z.string().max(32) }),
  member: z.object({ user: z.object({ id: z.string() }) }).optional(),
  user: z.object({ id: z.string() }).optional(),
});
const reactionSchema = z.object({
  user_id: z.string(),
  channel_id: z.string(),
  message_id: z.string(),
  emoji: z.object({ name: z.string().nullable() }),
});
const packetSchema = z.object({ t: z.string().nullable().optional(), d: z.unknown() });

export function attachRoomCommands(
  client: Client,
  commands: readonly SlashCommand[],
  handlers: RoomCommandHandlers,
  logger: Logger,
): () => void {
  const register = (guildId: string): void => {
    const appId = client.application?.id ?? client.user?.id;
    if (!appId) return;
    client.rest
      .put(Routes.applicationGuildCommands(appId, guildId), { body: commands.map((c) => ({ ...c, type: 1 })) })
      .then(
        () => logger.info({ guildId, commands: commands.map((c) => c.name) }, 'slash commands registered'),
        (err: unknown) => logger.warn({ err, guildId }, 'could not register the slash commands'),
      );
  };
  const registerAll = (): void => {
    for (const guildId of client.guilds.cache.keys()) register(guildId);
  };
  const onGuild = (guild: { id: string }): void => register(guild.id);

  const answer = async (id: string, token: string, content: string): Promise<void> => {
    await client.rest.post(Routes.interactionCallback(id, token), {
      body: { type: CHANNEL_MESSAGE_WITH_SOURCE, data: { content, flags: EPHEMERAL, allowed_mentions: { parse: [] } } },
      auth: false,
    });
  };

  const onRaw = (raw: unknown): void => {
    // Every gateway packet passes here: only the two this module reads are validated.
    const kind = (raw as { t?: unknown } | null)?.t;
    if (kind !== 'INTERACTION_CREATE' && kind !== 'MESSAGE_REACTION_ADD') return;
    const packet = packetSchema.safeParse(raw);
    if (!packet.success) return;
    if (packet.data.t === 'INTERACTION_CREATE') {
      const parsed = interactionSchema.safeParse(packet.data.d);
      if (!parsed.success) return;
      const { id, token, channel_id: channelId, data } = parsed.data;
      const userId = parsed.data.member?.user.id ?? parsed.data.user?.id;
      if (!userId) return;
      Promise.resolve()
        .then(() => handlers.command(data.name, userId, channelId))
        .catch((err: unknown) => `That did not work: ${err instanceof Error ? err.message : String(err)}`)
        .then((content) => answer(id, token, content))
        .catch((err: unknown) => logger.warn({ err, command: data.name }, 'could not answer a slash command'));
    } else if (packet.data.t === 'MESSAGE_REACTION_ADD') {
      const parsed = reactionSchema.safeParse(packet.data.d);
      if (!parsed.success || !parsed.data.emoji.name) return;
      handlers.reaction(parsed.data.user_id, parsed.data.channel_id, parsed.data.message_id, parsed.data.emoji.name);
    }
  };

  client.on(Events.Raw, onRaw);
  client.on(Events.ClientReady, registerAll);
  client.on(Events.GuildCreate, onGuild);
  if (client.isReady()) registerAll();
  return () => {
    client.off(Events.Raw, onRaw);
    client.off(Events.ClientReady, registerAll);
    client.off(Events.GuildCreate, onGuild);
  };
}
