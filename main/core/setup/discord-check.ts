// The setup page's Discord test: is the token accepted, is the bot in a server together with the
// owner, and may it Connect, Speak and Send Messages in the owner's channel? Plain REST calls (API
// v10) with the bot token; every answer is validated, and every failure becomes a sentence a
// person can act on plus an invite link that asks for exactly the permissions the bridge needs.
import { z } from 'zod';
import { CodedError } from '../contracts/coded-error.ts';

/** Discord permission bits (https://discord.com/developers/docs/topics/permissions). */
export const PERMISSION_BITS = {
  ADMINISTRATOR: 1n << 3n,
  VIEW_CHANNEL: 1n << 10n,
  SEND_MESSAGES: 1n << 11n,
  CONNECT: 1n << 20n,
  SPEAK: 1n << 21n,
} as const;

/** What the bridge needs in the owner's channel, by name as Discord's UI says it. */
export const NEEDED_PERMISSIONS = [
  { name: 'Connect', bit: PERMISSION_BITS.CONNECT },
  { name: 'Speak', bit: PERMISSION_BITS.SPEAK },
  { name: 'Send Messages', bit: PERMISSION_BITS.SEND_MESSAGES },
] as const;
export const INVITE_PERMISSIONS = NEEDED_PERMISSIONS.reduce((sum, p) => sum | p.bit, 0n);

export function inviteLink(clientId: string): string {
  return `https://discord.com/oauth2/authorize?client_id=${clientId}&scope=bot&permissions=${INVITE_PERMISSIONS}`;
}

const Snowflake = z.string().regex(/^\d{17,20}$/);
const UserSchema = z.object({
  id: Snowflake,
  username: z.string(),
  global_name: z.string().nullish(),
  bot: z.boolean().optional(),
});
const GuildSummarySchema = z.object({ id: Snowflake, name: z.string() });
const RoleSchema = z.object({ id: Snowflake, name: z.string(), permissions: z.string().regex(/^\d+$/) });
const GuildSchema = z.object({ id: Snowflake, name: z.string(), owner_id: Snowflake, roles: z.array(RoleSchema) });
const OverwriteSchema = z.object({
  id: Snowflake,
  type: z.union([z.literal(0), z.literal(1)]),
  allow: z.string().regex(/^\d+$/),
  deny: z.string().regex(/^\d+$/),
});
const ChannelSchema = z.object({
  id: Snowflake,
  type: z.number().int(),
  name: z.string().nullish(),
  permission_overwrites: z.array(OverwriteSchema).optional(),
});
const MemberSchema = z.object({ user: UserSchema, nick: z.string().nullish(), roles: z.array(Snowflake) });
const VoiceStateSchema = z.object({ channel_id: Snowflake.nullable() });
export type DiscordRole = z.infer<typeof RoleSchema>;
export type DiscordOverwrite = z.infer<typeof OverwriteSchema>;

/** Channel types that matter here. */
const TEXT = 0;
const VOICE = 2;
const STAGE = 13;

/**
 * A member's permissions in a channel, as Discord computes them: @everyone plus the member's roles,
 * everything for the server owner or an administrator, then the channel's @everyone overwrite, its
 * role overwrites (denies then allows, merged), and its member overwrite.
 */
export function channelPermissions(input: {
  guildId: string;
  guildOwnerId: string;
  userId: string;
  roles: readonly DiscordRole[];
  memberRoleIds: readonly string[];
  overwrites: readonly DiscordOverwrite[];
}): bigint {
  const ALL = (1n << 53n) - 1n;
  if (input.userId === input.guildOwnerId) return ALL;
  const byId = new Map(input.roles.map((r) => [r.id, BigInt(r.permissions)]));
  let perms = byId.get(input.guildId) ?? 0n;
  for (const id of input.memberRoleIds) perms |= byId.get(id) ?? 0n;
  if (perms & PERMISSION_BITS.ADMINISTRATOR) return ALL;
  const everyone = input.overwrites.find((o) => o.type === 0 && o.id === input.guildId);
  if (everyone) perms = (perms & ~BigInt(everyone.deny)) | BigInt(everyone.allow);
  let allow = 0n;
  let deny = 0n;
  for (const o of input.overwrites) {
    if (o.type === 0 && input.memberRoleIds.includes(o.id)) {
      allow |= BigInt(o.allow);
      deny |= BigInt(o.deny);
    }
  }
  perms = (perms & ~deny) | allow;
  const member = input.overwrites.find((o) => o.type === 1 && o.id === input.userId);
  if (member) perms = (perms & ~BigInt(member.deny)) | BigInt(member.allow);
  return perms;
}

export interface NamedId {
  id: string;
  name: string;
}

export interface GuildDirectory {
  id: string;
  name: string;
  /** Members the bot can list (empty when it lacks the Server Members intent). */
  members: NamedId[];
  voiceChannels: NamedId[];
  textChannels: NamedId[];
}

export interface SetupCheck {
  /** Stable id of the step (token, server, permissions). */
  step: 'token' | 'server' | 'permissions';
  ok: boolean;
  message: string;
}

export interface DiscordCheckResult {
  ok: boolean;
  /** Code of the first failed step (token_rejected, not_in_server, not_a_voice_channel, missing_permissions, …). */
  code?: string;
  checks: SetupCheck[];
  bot?: NamedId;
  /** Invite link with exactly Connect, Speak and Send Messages. */
  invite?: string;
  /** The server the check used (the configured one, or the first shared with the owner). */
  guild?: NamedId;
  /** The channel whose permissions were checked. */
  channel?: NamedId;
  missingPermissions?: string[];
  /** Servers, members and channels the bot can see, for picking by name. */
  directory: GuildDirectory[];
}

export interface DiscordCheckInput {
  token: string;
  ownerId?: string;
  guildId?: string;
  voiceChannelId?: string;
  /** e.g. http://127.0.0.1:PORT/api for the fake; default https://discord.com/api. */
  apiBaseUrl?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

class DiscordAnswer extends CodedError<'discord_answer'> {
  readonly status: number;
  readonly discordCode: number | null;
  constructor(status: number, discordCode: number | null) {
    super('discord_answer', `Discord answered HTTP ${status}${discordCode !== null ? ` (code ${discordCode})` : ''}`);
    this.status = status;
    this.discordCode = discordCode;
  }
}

const ErrorBodySchema = z.object({ code: z.number().int() }).loose();

export function displayName(member: z.infer<typeof MemberSchema>): string {
  return member.nick || member.user.global_name || member.user.username;
}

/**
 * Whether a check read the bot's whole directory (servers, channels, members): every outcome after
 * the listing does, even a failed one (`not_in_server`); a rejected token, an unreachable Discord or
 * a refusal mid-listing (`discord_error`) leave it empty or partial, so nothing in it can be called
 * missing.
 */
export function directoryComplete(result: DiscordCheckResult): boolean {
  return result.code !== 'token_rejected' && result.code !== 'discord_unreachable' && result.code !== 'discord_error';
}

type GuildSummary = z.infer<typeof GuildSummarySchema>;
type Member = z.infer<typeof MemberSchema>;
type Channel = z.infer<typeof ChannelSchema>;

/** A step of the check that did not pass: the result the caller gets. */
class CheckStop {
  readonly result: DiscordCheckResult;
  constructor(result: DiscordCheckResult) {
    this.result = result;
  }
}

/** One run of the check: Discord's REST API read with the token, the steps recorded as they pass or fail. */
class DiscordCheckRun {
  readonly checks: SetupCheck[] = [];
  readonly #input: DiscordCheckInput;
  readonly #base: string;
  readonly #fetch: typeof fetch;
  #bot: NamedId | undefined;
  #invite: string | undefined;
  #directory: GuildDirectory[] = [];

  constructor(input: DiscordCheckInput) {
    this.#input = input;
    this.#base = `${(input.apiBaseUrl ?? 'https://discord.com/api').replace(/\/$/, '')}/v10`;
    this.#fetch = input.fetch ?? fetch;
  }

  /** The token's bot, or the failed token step. */
  async token(): Promise<{ id: string; name: string } | DiscordCheckResult> {
    let bot: z.infer<typeof UserSchema>;
    try {
      bot = await this.#get('/users/@me', UserSchema);
    } catch (err) {
      const unauthorized = err instanceof DiscordAnswer && err.status === 401;
      const message = unauthorized
        ? 'Discord rejected the token. Copy it again from the Developer Portal (Bot → Reset Token) and paste it whole.'
        : `Could not reach Discord: ${err instanceof Error ? err.message : String(err)}.`;
      this.checks.push({ step: 'token', ok: false, message });
      return {
        ok: false,
        code: unauthorized ? 'token_rejected' : 'discord_unreachable',
        checks: this.checks,
        directory: [],
      };
    }
    this.#bot = { id: bot.id, name: bot.global_name || bot.username };
    // A bot's user id is its application's client id (https://discord.com/developers/docs/topics/oauth2#bot-users).
    this.#invite = inviteLink(bot.id);
    this.checks.push({ step: 'token', ok: true, message: `Token accepted: the bot is ${this.#bot.name}.` });
    return this.#bot;
  }

  /** What the bot can see, then the server it shares with the owner, then the channel's permissions. */
  async afterToken(bot: NamedId): Promise<DiscordCheckResult> {
    const guilds = await this.#get('/users/@me/guilds?limit=200', z.array(GuildSummarySchema));
    for (const g of guilds.slice(0, 20)) this.#directory.push(await this.#guildDirectory(g));
    if (guilds.length === 0)
      throw this.#stop(
        'server',
        'not_in_server',
        `${bot.name} is in no server yet. Open the invite link, pick your server and authorize.`,
      );
    if (!this.#input.ownerId)
      throw this.#stop('server', 'owner_missing', 'Pick the owner (you) so the bot knows whom to follow.');
    const shared = await this.#sharedServer(guilds, this.#input.ownerId);
    const guild = { id: shared.guild.id, name: shared.guild.name };
    this.checks.push({
      step: 'server',
      ok: true,
      message: `${bot.name} and ${displayName(shared.owner)} are both in ${guild.name}.`,
    });
    return this.#permissions(bot, guild, this.#input.ownerId);
  }

  /** The failure of the step under way: Discord refused something after the token was accepted. */
  failed(step: SetupCheck['step'], err: unknown): DiscordCheckResult {
    this.checks.push({ step, ok: false, message: plainFailure(err) });
    return {
      ok: false,
      code: 'discord_error',
      checks: this.checks,
      ...(this.#bot ? { bot: this.#bot } : {}),
      ...(this.#invite ? { invite: this.#invite } : {}),
      directory: [],
    };
  }

  /** The step that passed last, for `failed`. */
  get step(): SetupCheck['step'] {
    return this.checks.some((c) => c.step === 'server' && c.ok) ? 'permissions' : 'server';
  }

  async #sharedServer(guilds: GuildSummary[], ownerId: string): Promise<{ guild: GuildSummary; owner: Member }> {
    const candidates = this.#input.guildId ? guilds.filter((g) => g.id === this.#input.guildId) : guilds;
    for (const g of candidates) {
      try {
        return { guild: g, owner: await this.#get(`/guilds/${g.id}/members/${ownerId}`, MemberSchema.loose()) };
      } catch (err) {
        if (!(err instanceof DiscordAnswer && err.status === 404)) throw err;
      }
    }
    const where = this.#input.guildId ? 'the chosen server' : 'any server';
    throw this.#stop(
      'server',
      'not_in_server',
      `${this.#bot!.name} is not in ${where} together with the owner. Open the invite link and add it to a server you are in.`,
    );
  }

  async #permissions(bot: NamedId, guildNamed: NamedId, ownerId: string): Promise<DiscordCheckResult> {
    const guild = await this.#get(`/guilds/${guildNamed.id}`, GuildSchema.loose());
    const channels = await this.#get(`/guilds/${guildNamed.id}/channels`, z.array(ChannelSchema.loose()));
    const botMember = await this.#get(`/guilds/${guildNamed.id}/members/${bot.id}`, MemberSchema.loose());
    const channel = await this.#voiceChannel(guildNamed, channels, ownerId);
    const channelNamed = { id: channel.id, name: channel.name ?? channel.id };
    // The bot can only join a voice (or stage) channel; a text channel's permissions say nothing about a call.
    if (channel.type !== VOICE && channel.type !== STAGE) {
      const kind = channel.type === TEXT ? 'a text channel' : 'not a voice channel';
      throw this.#stop(
        'permissions',
        'not_a_voice_channel',
        `${channelNamed.name} is ${kind}, and the bot can only join a voice channel. Pick one of ${guildNamed.name}'s voice channels.`,
        { guild: guildNamed, channel: channelNamed },
      );
    }
    const perms = channelPermissions({
      guildId: guild.id,
      guildOwnerId: guild.owner_id,
      userId: bot.id,
      roles: guild.roles,
      memberRoleIds: botMember.roles,
      overwrites: channel.permission_overwrites ?? [],
    });
    // Without View Channel every other permission in the channel is void (Discord's implicit deny).
    const hidden = (perms & PERMISSION_BITS.VIEW_CHANNEL) === 0n;
    const missing = [
      ...(hidden ? ['View Channel'] : []),
      ...NEEDED_PERMISSIONS.filter((p) => hidden || (perms & p.bit) === 0n).map((p) => p.name),
    ];
    if (missing.length) {
      const message = `In ${channelNamed.name} the bot lacks ${missing.join(', ')}. Allow them for the bot's role in the channel's settings, or re-invite it with the link.`;
      throw this.#stop('permissions', 'missing_permissions', message, {
        guild: guildNamed,
        channel: channelNamed,
        missingPermissions: missing,
      });
    }
    this.checks.push({
      step: 'permissions',
      ok: true,
      message: `The bot may Connect, Speak and Send Messages in ${channelNamed.name}.`,
    });
    return {
      ok: true,
      checks: this.checks,
      bot,
      invite: this.#invite!,
      guild: guildNamed,
      channel: channelNamed,
      directory: this.#directory,
    };
  }

  /** The chosen voice channel, else the owner's, else the server's first. */
  async #voiceChannel(guild: NamedId, channels: Channel[], ownerId: string): Promise<Channel> {
    const ownerVoice = await this.#get(`/guilds/${guild.id}/voice-states/${ownerId}`, VoiceStateSchema.loose()).catch(
      () => null,
    );
    const chosen = this.#input.voiceChannelId;
    const channelId = chosen ?? ownerVoice?.channel_id ?? channels.find((c) => c.type === VOICE)?.id;
    const channel = channels.find((c) => c.id === channelId);
    if (channel) return channel;
    if (chosen)
      throw this.#stop(
        'permissions',
        'channel_not_found',
        `The chosen voice channel (${chosen}) is not a channel of ${guild.name} that the bot can see. Pick one of its voice channels.`,
        { guild },
      );
    throw this.#stop('permissions', 'no_voice_channel', `${guild.name} has no voice channel the bot can see.`, {
      guild,
    });
  }

  async #guildDirectory(g: GuildSummary): Promise<GuildDirectory> {
    const channels = await this.#get(`/guilds/${g.id}/channels`, z.array(ChannelSchema.loose()));
    // Listing members needs the privileged Server Members intent; without it, ids still work.
    const members = await this.#get(`/guilds/${g.id}/members?limit=1000`, z.array(MemberSchema.loose())).catch(
      () => [],
    );
    const named = (types: number[]) =>
      channels.filter((c) => types.includes(c.type)).map((c) => ({ id: c.id, name: c.name ?? c.id }));
    return {
      id: g.id,
      name: g.name,
      members: members.filter((m) => !m.user.bot).map((m) => ({ id: m.user.id, name: displayName(m) })),
      voiceChannels: named([VOICE, STAGE]),
      textChannels: named([TEXT]),
    };
  }

  #stop(step: SetupCheck['step'], code: string, message: string, extra: Partial<DiscordCheckResult> = {}): CheckStop {
    this.checks.push({ step, ok: false, message });
    return new CheckStop({
      ok: false,
      code,
      checks: this.checks,
      bot: this.#bot,
      invite: this.#invite,
      directory: this.#directory,
      ...extra,
    });
  }

  async #get<T>(route: string, schema: z.ZodType<T>): Promise<T> {
    const headers = {
      authorization: `Bot ${this.#input.token}`,
      'user-agent': 'DiscordBot (live-voice-bridge, setup)',
    };
    const res = await this.#fetch(`${this.#base}${route}`, {
      headers,
      signal: AbortSignal.timeout(this.#input.timeoutMs ?? 10_000),
    });
    const body: unknown = await res.json().catch(() => null);
    if (!res.ok) {
      const parsed = ErrorBodySchema.safeParse(body);
      throw new DiscordAnswer(res.status, parsed.success ? parsed.data.code : null);
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success)
      throw new Error(`Discord sent an answer this version does not understand (${route.split('?')[0]})`);
    return parsed.data;
  }
}

export async function checkDiscord(input: DiscordCheckInput): Promise<DiscordCheckResult> {
  const run = new DiscordCheckRun(input);
  const bot = await run.token();
  if (!('id' in bot)) return bot;
  // Anything Discord refuses after the token was accepted (rate limit, access) ends the check with
  // that step failed in plain words, never as a server error.
  try {
    return await run.afterToken(bot);
  } catch (err) {
    if (err instanceof CheckStop) return err.result;
    return run.failed(run.step, err);
  }
}

function plainFailure(err: unknown): string {
  if (err instanceof DiscordAnswer) {
    if (err.status === 429) return 'Discord asked to slow down; test again in a few seconds.';
    if (err.status === 403)
      return "Discord refused to show the server's details to the bot (Missing Access). Re-invite it with the link.";
    return `Discord answered HTTP ${err.status}; test again, and if it persists see status.discord.com.`;
  }
  return `Could not reach Discord: ${err instanceof Error ? err.message : String(err)}.`;
}
