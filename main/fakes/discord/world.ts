// The fake's model of Discord: one bot, a few human users, one guild with voice and text channels,
// and who sits in which voice channel. Servers (REST, gateway, voice) read and change it; nothing
// here does I/O.
import { randomBytes } from 'node:crypto';

export interface FakeUser {
  id: string;
  username: string;
  bot: boolean;
  /** Account-wide display name (Discord's `global_name`). */
  globalName?: string;
  /** Server nickname (the member's `nick`), shown instead of the global name. */
  nick?: string;
}

export interface FakeChannel {
  id: string;
  name: string;
  /** Discord channel types: 0 guild text, 1 DM, 2 guild voice. */
  type: 0 | 1 | 2;
  /** For DM channels: the human on the other side. */
  recipientId?: string;
  /** Guild channels: permission overwrites (type 0 role, 1 member; allow/deny as decimal strings). */
  overwrites?: FakeOverwrite[];
}

export interface FakeOverwrite {
  id: string;
  type: 0 | 1;
  allow: string;
  deny: string;
}

export interface FakeRole {
  id: string;
  name: string;
  /** Permission bits as a decimal string, as Discord sends them. */
  permissions: string;
  position: number;
}

/** Discord permission bits the bridge needs (and the setup check computes). */
export const PERMISSION = {
  ADMINISTRATOR: 1n << 3n,
  VIEW_CHANNEL: 1n << 10n,
  SEND_MESSAGES: 1n << 11n,
  CONNECT: 1n << 20n,
  SPEAK: 1n << 21n,
} as const;

export interface FakeVoiceState {
  userId: string;
  channelId: string;
  sessionId: string;
}

export interface FakeGuild {
  id: string;
  name: string;
  ownerId: string;
  voiceChannels: FakeChannel[];
  textChannels: FakeChannel[];
}

let snowflakeCounter = 0n;
/** Snowflake-shaped ids (18-19 digits), unique within the process. */
export function snowflake(): string {
  snowflakeCounter += 1n;
  return (1_300_000_000_000_000_000n + BigInt(Date.now() % 1_000_000) * 1_000_000n + snowflakeCounter).toString();
}

export function randomToken(prefix: string): string {
  // Built at run time and obviously fake: never a literal that looks like a real token.
  return `${prefix}-${randomBytes(12).toString('hex')}`;
}

export interface WorldOptions {
  /** Names of the human users besides the owner (default: guest, stranger). */
  extraUsers?: string[];
  /** Whether the owner starts inside the first voice channel (default true). */
  ownerInVoice?: boolean;
}

export class FakeWorld {
  readonly bot: FakeUser;
  readonly owner: FakeUser;
  readonly users = new Map<string, FakeUser>();
  /**
   * Users who accept no DMs from the bot (privacy setting "allow DMs from server members" off, or no
   * shared server): Discord opens the DM channel but refuses each message with 403, code 50007.
   */
  readonly closedDms = new Set<string>();
  readonly guild: FakeGuild;
  readonly dmChannels = new Map<string, FakeChannel>();
  readonly voiceStates = new Map<string, FakeVoiceState>();
  readonly joinedAt = new Date(Date.UTC(2026, 0, 1)).toISOString();
  /** Roles of the guild; the first is @everyone (its id is the guild id, as on Discord). */
  readonly roles: FakeRole[];
  /** Role ids of each member (the @everyone role is implicit, as on Discord). */
  readonly memberRoles = new Map<string, string[]>();
  /** False: the bot was never invited to the guild (REST answers as Discord does for a stranger's guild). */
  botInGuild = true;
  /** Whether the bot may list members (the privileged GUILD_MEMBERS intent); Discord answers 403 otherwise. */
  membersIntent = true;

  constructor(options: WorldOptions = {}) {
    this.bot = { id: snowflake(), username: 'bridge-bot', bot: true };
    this.owner = { id: snowflake(), username: 'owner', bot: false };
    for (const user of [this.bot, this.owner]) this.users.set(user.id, user);
    for (const name of options.extraUsers ?? ['guest', 'stranger']) {
      const user = { id: snowflake(), username: name, bot: false };
      this.users.set(user.id, user);
    }
    this.guild = {
      id: snowflake(),
      name: 'Fake Guild',
      ownerId: this.owner.id,
      voiceChannels: [
        { id: snowflake(), name: 'General Voice', type: 2 },
        { id: snowflake(), name: 'Second Voice', type: 2 },
      ],
      textChannels: [{ id: snowflake(), name: 'general', type: 0 }],
    };
    // @everyone: View Channel, Send Messages, Connect, Speak (3148800), like a fresh community server.
    this.roles = [
      {
        id: this.guild.id,
        name: '@everyone',
        permissions: String(PERMISSION.VIEW_CHANNEL | PERMISSION.SEND_MESSAGES | PERMISSION.CONNECT | PERMISSION.SPEAK),
        position: 0,
      },
    ];
    if (options.ownerInVoice ?? true) this.setVoiceState(this.owner.id, this.guild.voiceChannels[0].id);
  }

  userByName(name: string): FakeUser {
    for (const user of this.users.values()) if (user.username === name) return user;
    throw new Error(`no fake user named ${name}`);
  }

  isVoiceChannel(channelId: string): boolean {
    return this.guild.voiceChannels.some((c) => c.id === channelId);
  }

  findChannel(channelId: string): FakeChannel | undefined {
    return (
      [...this.guild.textChannels, ...this.guild.voiceChannels].find((c) => c.id === channelId) ??
      this.dmChannels.get(channelId)
    );
  }

  dmChannelFor(userId: string): FakeChannel {
    for (const channel of this.dmChannels.values()) if (channel.recipientId === userId) return channel;
    const channel: FakeChannel = { id: snowflake(), name: '', type: 1, recipientId: userId };
    this.dmChannels.set(channel.id, channel);
    return channel;
  }

  setVoiceState(userId: string, channelId: string | null): FakeVoiceState | null {
    if (channelId === null) {
      this.voiceStates.delete(userId);
      return null;
    }
    const state = { userId, channelId, sessionId: randomBytes(16).toString('hex') };
    this.voiceStates.set(userId, state);
    return state;
  }

  usersInChannel(channelId: string): string[] {
    return [...this.voiceStates.values()].filter((s) => s.channelId === channelId).map((s) => s.userId);
  }

  /** Members of the guild: everyone but the bot, plus the bot when it was invited. */
  isMember(userId: string): boolean {
    return this.users.has(userId) && (userId !== this.bot.id || this.botInGuild);
  }

  // --- JSON shapes (Discord API v10) ---

  roleJson(role: FakeRole): Record<string, unknown> {
    return {
      id: role.id,
      name: role.name,
      permissions: role.permissions,
      position: role.position,
      color: 0,
      hoist: false,
      managed: false,
      mentionable: false,
      flags: 0,
    };
  }

  guildJson(): Record<string, unknown> {
    const g = this.guild;
    return {
      id: g.id,
      name: g.name,
      icon: null,
      owner_id: g.ownerId,
      features: [],
      roles: this.roles.map((r) => this.roleJson(r)),
      emojis: [],
      stickers: [],
      verification_level: 0,
      premium_tier: 0,
    };
  }

  userJson(user: FakeUser): Record<string, unknown> {
    return {
      id: user.id,
      username: user.username,
      discriminator: '0',
      global_name: user.globalName ?? null,
      avatar: null,
      bot: user.bot,
    };
  }

  memberJson(userId: string): Record<string, unknown> {
    const user = this.users.get(userId);
    if (!user) throw new Error(`unknown user ${userId}`);
    return {
      user: this.userJson(user),
      nick: user.nick ?? null,
      roles: this.memberRoles.get(userId) ?? [],
      joined_at: this.joinedAt,
      deaf: false,
      mute: false,
      flags: 0,
    };
  }

  voiceStateJson(userId: string, channelId: string | null, sessionId: string): Record<string, unknown> {
    return {
      guild_id: this.guild.id,
      channel_id: channelId,
      user_id: userId,
      session_id: sessionId,
      deaf: false,
      mute: false,
      self_deaf: false,
      self_mute: false,
      self_video: false,
      suppress: false,
      request_to_speak_timestamp: null,
      member: this.memberJson(userId),
    };
  }

  channelJson(channel: FakeChannel): Record<string, unknown> {
    if (channel.type === 1) {
      const recipient = this.users.get(channel.recipientId ?? '');
      return {
        id: channel.id,
        type: 1,
        last_message_id: null,
        recipients: recipient ? [this.userJson(recipient)] : [],
      };
    }
    const base = {
      id: channel.id,
      type: channel.type,
      name: channel.name,
      guild_id: this.guild.id,
      position: 0,
      permission_overwrites: channel.overwrites ?? [],
      parent_id: null,
    };
    return channel.type === 2
      ? { ...base, bitrate: 64000, user_limit: 0, rtc_region: null }
      : { ...base, topic: null, nsfw: false, last_message_id: null };
  }

  guildCreateJson(): Record<string, unknown> {
    const g = this.guild;
    return {
      id: g.id,
      name: g.name,
      icon: null,
      features: [],
      owner_id: g.ownerId,
      unavailable: false,
      large: false,
      member_count: this.users.size,
      joined_at: this.joinedAt,
      roles: this.roles.map((r) => this.roleJson(r)),
      channels: [...g.textChannels, ...g.voiceChannels].map((c) => {
        const { guild_id: _drop, ...rest } = this.channelJson(c);
        return rest;
      }),
      members: [...this.users.keys()].map((id) => this.memberJson(id)),
      voice_states: [...this.voiceStates.values()].map((s) => {
        const { guild_id: _g, member: _m, ...rest } = this.voiceStateJson(s.userId, s.channelId, s.sessionId);
        return rest;
      }),
      presences: [],
      threads: [],
      stage_instances: [],
      guild_scheduled_events: [],
      emojis: [],
      stickers: [],
    };
  }
}
