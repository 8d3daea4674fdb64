// Discord: who may be heard (allowed speakers, opt-outs) and, when a bot is configured, the bot, which
// logs in in the background (retried with back-off: Discord unreachable at start-up is not final) so
// the sidecar is up at once. discord.js and @discordjs/voice take ~0.5 s to load: only when configured.
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import type { Capability } from '../lifecycle.ts';
import { moduleLogger } from '../log/logger.ts';
import { ConsentStore } from '../room/consent-store.ts';
import { AllowedSpeakers } from '../voice/allowed-speakers.ts';
import type { DiscordVoiceAdapter } from '../voice/index.ts';
import type { OpusFactory } from '../voice/opus.ts';

export interface VoiceApi {
  /** Read live by the voice receive path, the room and tool authority (saved settings change it). */
  allowedSpeakers: AllowedSpeakers;
  /** Opt-outs (/optout, a reaction on the notice), remembered across calls; their audio is never decoded. */
  consentStore: ConsentStore;
  /** Null without a bot token and an owner. */
  discord: DiscordVoiceAdapter | null;
}

export const voiceCapability: Capability<{ config: Config; logger: Logger; opus: OpusFactory }, VoiceApi> = {
  name: 'voice',
  async start({ config, logger, opus }) {
    const allowedSpeakers = new AllowedSpeakers(config.discord.ownerId, config.discord.allowedSpeakers);
    const consentStore = new ConsentStore(config.paths.voiceUsers, (problem) =>
      moduleLogger(logger, 'core').warn(problem),
    );
    allowedSpeakers.exclude((id) => consentStore.optedOut(id));
    const { botToken, ownerId } = config.discord;
    const discord =
      botToken && ownerId
        ? (await import('../voice/index.ts')).createDiscordVoice({
            token: botToken,
            ownerId,
            allowedSpeakers,
            apiBaseUrl: config.discord.apiBaseUrl,
            guildId: config.discord.guildId,
            channelId: config.discord.voiceChannelId,
            logger: moduleLogger(logger, 'discord'),
            opus,
          })
        : null;
    discord?.keepLoggingIn();
    return {
      api: { allowedSpeakers, consentStore, discord },
      stop: () => discord?.destroy(),
      health: () => {
        const bot = { configured: discord !== null, loggedIn: Boolean(discord?.botUserId) };
        // The bot's gateway login, apart from `connections.discord` (the voice connection of a call):
        // after Leave the bot is still logged in and only the call ended.
        return {
          report: { discord_bot: { configured: bot.configured, logged_in: bot.loggedIn } },
          verdict: { discordBot: bot },
        };
      },
    };
  },
};
