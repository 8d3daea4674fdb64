// Discord voice + text adapter (VoiceChannelPort & DiscordTextPort on discord.js + @discordjs/voice).
export { createDiscordVoice, type DiscordVoiceAdapter, type DiscordVoiceOptions } from './discord-voice.ts';
export { loadOpus, type OpusCodec, type OpusFactory, type OpusLibraryName } from './opus.ts';
export { DEFAULT_REJOIN_POLICY, type RejoinPolicy } from './rejoin-guard.ts';
export { DISCORD_MESSAGE_LIMIT, MAX_MESSAGE_PARTS, splitMessage } from './text.ts';
