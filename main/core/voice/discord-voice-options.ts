// The Discord voice adapter's contract: what it is given (options, each default named) and the port
// it offers the core (voice, text, slash commands), with the voice close codes that end a call for
// good. Apart from discord-voice.ts so that a reader of the contract need not read the connection's
// life, and the connection's file is about that life.
import type { Logger } from 'pino';
import type { DiscordTextPort, VoiceChannelPort, VoiceTarget } from '../ports.ts';
import type { AllowedSpeakers } from './allowed-speakers.ts';
import type { DaveRecoveryPolicy } from './dave.ts';
import type { SpeakerHealthPolicy } from './speaker-health.ts';
import type { OpusFactory, OpusLibraryName } from './opus.ts';
import type { RejoinPolicy } from './rejoin-guard.ts';
import type { RoomCommandHandlers, SlashCommand } from './room-commands.ts';

/** Voice close codes after which rejoining cannot help (opcodes-and-status-codes.mdx). */
export const FATAL_VOICE_CLOSE_CODES: Record<number, string> = {
  4004: 'voice authentication failed',
  4016: 'unknown voice encryption mode',
  4017: 'Discord requires DAVE end-to-end encryption (close 4017)',
  4021: 'voice disconnected: rate limited',
  4022: 'voice disconnected: call terminated',
};

export interface DiscordVoiceOptions {
  token: string;
  /** The owner (DISCORD_VOICE_LIVE_USER_ID): followed into voice, allowed to speak by default. */
  ownerId: string;
  /** Users whose audio is delivered (DISCORD_VOICE_LIVE_ALLOWED_SPEAKERS); default [ownerId]. */
  /** Who may speak to the model (default: the owner); an AllowedSpeakers is read live, never copied. */
  allowedSpeakers?: readonly string[] | AllowedSpeakers;
  /** REST base override, e.g. http://127.0.0.1:PORT/api (tests, proxies). */
  apiBaseUrl?: string;
  /** Explicit target; otherwise join() follows the owner. */
  guildId?: string;
  channelId?: string;
  /** Leave the channel when the owner leaves it (default false: only `ownerLeft` is emitted). */
  leaveWhenOwnerLeaves?: boolean;
  /** DAVE E2EE (default true; Discord requires it since 2026-03-01). */
  daveEncryption?: boolean;
  /** Decrypt-failure recovery ladder (defaults: rebuild after 3 failed streams in 2 s, ≤ 3 rejoins a minute). */
  daveRecovery?: Partial<DaveRecoveryPolicy>;
  /** Per-speaker deafness ladder (speaker-health.ts; defaults: resubscribe at 300 ms, rebuild 400 ms later, rejoin 1.8 s after that). */
  speakerHealth?: Partial<SpeakerHealthPolicy>;
  /** Force an Opus library (default: @discordjs/opus, falling back to opusscript). */
  opusLibrary?: OpusLibraryName;
  /** The codec chosen (and reported) at start-up; wins over opusLibrary. */
  opus?: OpusFactory;
  logger: Logger;
  /** Rejoin back-off and budget (defaults: 4 rejoins, 0.5 s doubling to 8 s). */
  rejoin?: Partial<RejoinPolicy>;
  /** How long a join or a reconnect may take before it counts as failed (default 20 s). */
  readyTimeoutMs?: number;
  /** After a 4014 close, how long to wait for Discord to move us before rejoining (default 5 s). */
  disconnectGraceMs?: number;
  /** Back-off between background login attempts (default 1 s doubling to 60 s, forever). */
  loginRetry?: { initialMs: number; maxMs: number };
}

export interface DiscordVoiceAdapter extends VoiceChannelPort, DiscordTextPort {
  /** The reason of the last `error`/`disconnected` state, if any. */
  readonly stateReason: string | undefined;
  readonly target: VoiceTarget | null;
  readonly botUserId: string | null;
  /** One login attempt (joins one already under way); a failure is not cached: the next call tries again. */
  login(): Promise<void>;
  /**
   * Logs in in the background, retrying with back-off until it works or destroy() (a laptop that
   * wakes offline comes back by itself). Once ready, discord.js keeps the gateway up on its own.
   */
  keepLoggingIn(): void;
  /** Replace the text of one of the bot's messages (live captions). */
  editMessage(channelId: string, messageId: string, text: string): Promise<void>;
  /** Register slash commands and hear interactions and reactions (room-commands.ts); returns the detach. */
  roomCommands(commands: readonly SlashCommand[], handlers: RoomCommandHandlers): () => void;
  destroy(): Promise<void>;
}
