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
const UserSchema = z.object({ id: Snowflake, username: z.string(), global_name: z.string().nullish(), bot: z.boolean().optional() });
const GuildSummarySchema = z.object({ id: Snowflake, name: z.string() });
const RoleSchema = z.object({ id: Snowflake, name: z.string(), permissions: z.string().regex(/^\d+$/) });
const GuildSchema = z.object({ id: Snowflake, name: z.string(), owner_id: Snowflake, roles: z.array(RoleSchema) });
const OverwriteSchema = z.object({ id: Snowflake, type: z.union([z.literal(0), z.literal(1)]), allow: z.string().regex(/^\d+$/), deny: z.string().regex(/^\d+$/) });
const ChannelSchema = z.object({ id: Snowflake, type: z.number().int(), name: z.string().nullish(), permission_overwrites: z.array(OverwriteSchema).optional() });
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
export function channelPermissions(input: { guildId: string; guildOwnerId: string; userId: string; roles: readonly DiscordRole[]; memberRoleIds: readonly string[]; overwrites: readonly DiscordOverwrite[] }): bigint {
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

export async function checkDiscord(input: DiscordCheckInput): Promise<DiscordCheckResult> {
  const base = `${(input.apiBaseUrl ?? 'https://discord.com/api').replace(/\/$/, '')}/v10`;
  const doFetch = input.fetch ?? fetch;
  async function get<T>(route: string, schema: z.ZodType<T>): Promise<T> {
    const res = await doFetch(`${base}${route}`, { headers: { authorization: `Bot ${input.token}`, 'user-agent': 'DiscordBot (live-voice-bridge, setup)' }, signal: AbortSignal.timeout(input.timeoutMs ?? 10_000) });
    const body: unknown = await res.json().catch(() => null);
    if (!res.ok) {
      const parsed = ErrorBodySchema.safeParse(body);
      throw new DiscordAnswer(res.status, parsed.success ? parsed.data.code : null);
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw new Error(`Discord sent an answer this version does not understand (${route.split('?')[0]})`);
    return parsed.data;
  }
  const checks: SetupCheck[] = [];
  const fail = (step: SetupCheck['step'], code: string, message: string, extra: Partial<DiscordCheckResult> = {}): DiscordCheckResult => {
    checks.push({ step, ok: false, message });
    return { ok: false, code, checks, directory: [], ...extra };
  };

  let bot: z.infer<typeof UserSchema>;
  try {
    bot = await get('/users/@me', UserSchema);
  } catch (err) {
    if (err instanceof DiscordAnswer && err.status === 401) return fail('token', 'token_rejected', 'Discord rejected the token. Copy it again from the Developer Portal (Bot → Reset Token) and paste it whole.');
    return fail('token', 'discord_unreachable', `Could not reach Discord: ${err instanceof Error ? err.message : String(err)}.`);
  }
  const botNamed = { id: bot.id, name: bot.global_name || bot.username };
  // A bot's user id is its application's client id (https://discord.com/developers/docs/topics/oauth2#bot-users).
  const invite = inviteLink(bot.id);
  checks.push({ step: 'token', ok: true, message: `Token accepted: the bot is ${botNamed.name}.` });

  // Anything Discord refuses after the token was accepted (rate limit, access) ends the check with
  // that step failed in plain words, never as a server error.
  let step: SetupCheck['step'] = 'server';
  try {
    return await afterToken();
  } catch (err) {
    checks.push({ step, ok: false, message: plainFailure(err) });
    return { ok: false, code: 'discord_error', checks, bot: botNamed, invite, directory: [] };
  }

  async function afterToken(): Promise<DiscordCheckResult> {
    const guilds = await get('/users/@me/guilds?limit=200', z.array(GuildSummarySchema));
    const directory: GuildDirectory[] = [];
    for (const g of guilds.slice(0, 20)) directory.push(await guildDirectory(g));
    const result = (extra: Partial<DiscordCheckResult>): DiscordCheckResult => ({ ok: false, checks, bot: botNamed, invite, directory, ...extra });

    async function guildDirectory(g: z.infer<typeof GuildSummarySchema>): Promise<GuildDirectory> {
      const channels = await get(`/guilds/${g.id}/channels`, z.array(ChannelSchema.loose()));
      // Listing members needs the privileged Server Members intent; without it, ids still work.
      const members = await get(`/guilds/${g.id}/members?limit=1000`, z.array(MemberSchema.loose())).catch(() => []);
      const named = (types: number[]) => channels.filter((c) => types.includes(c.type)).map((c) => ({ id: c.id, name: c.name ?? c.id }));
      return {
        id: g.id,
        name: g.name,
        members: members.filter((m) => !m.user.bot).map((m) => ({ id: m.user.id, name: displayName(m) })),
        voiceChannels: named([VOICE, STAGE]),
        textChannels: named([TEXT]),
      };
    }

    if (guilds.length === 0) {
      checks.push({ step: 'server', ok: false, message: `${botNamed.name} is in no server yet. Open the invite link, pick your server and authorize.` });
      return result({ code: 'not_in_server' });
    }
    if (!input.ownerId) {
      checks.push({ step: 'server', ok: false, message: 'Pick the owner (you) so the bot knows whom to follow.' });
      return result({ code: 'owner_missing' });
    }
    const candidates = input.guildId ? guilds.filter((g) => g.id === input.guildId) : guilds;
    let shared: { guild: z.infer<typeof GuildSummarySchema>; owner: z.infer<typeof MemberSchema> } | null = null;
    for (const g of candidates) {
      try {
        shared = { guild: g, owner: await get(`/guilds/${g.id}/members/${input.ownerId}`, MemberSchema.loose()) };
        break;
      } catch (err) {
        if (!(err instanceof DiscordAnswer && err.status === 404)) throw err;
      }
    }
    if (!shared) {
      const where = input.guildId ? 'the chosen server' : 'any server';
      checks.push({ step: 'server', ok: false, message: `${botNamed.name} is not in ${where} together with the owner. Open the invite link and add it to a server you are in.` });
      return result({ code: 'not_in_server' });
    }
    const guildNamed = { id: shared.guild.id, name: shared.guild.name };
    step = 'permissions';
    checks.push({ step: 'server', ok: true, message: `${botNamed.name} and ${displayName(shared.owner)} are both in ${guildNamed.name}.` });

    const guild = await get(`/guilds/${guildNamed.id}`, GuildSchema.loose());
    const channels = await get(`/guilds/${guildNamed.id}/channels`, z.array(ChannelSchema.loose()));
    const botMember = await get(`/guilds/${guildNamed.id}/members/${bot.id}`, MemberSchema.loose());
    const ownerVoice = await get(`/guilds/${guildNamed.id}/voice-states/${input.ownerId}`, VoiceStateSchema.loose()).catch(() => null);
    const channelId = input.voiceChannelId ?? ownerVoice?.channel_id ?? channels.find((c) => c.type === VOICE)?.id;
    const channel = channels.find((c) => c.id === channelId);
    if (!channel && input.voiceChannelId) {
      checks.push({ step: 'permissions', ok: false, message: `The chosen voice channel (${input.voiceChannelId}) is not a channel of ${guildNamed.name} that the bot can see. Pick one of its voice channels.` });
      return result({ code: 'channel_not_found', guild: guildNamed });
    }
    if (!channel) {
      checks.push({ step: 'permissions', ok: false, message: `${guildNamed.name} has no voice channel the bot can see.` });
      return result({ code: 'no_voice_channel', guild: guildNamed });
    }
    const channelNamed = { id: channel.id, name: channel.name ?? channel.id };
    // The bot can only join a voice (or stage) channel; a text channel's permissions say nothing about a call.
    if (channel.type !== VOICE && channel.type !== STAGE) {
      const kind = channel.type === TEXT ? 'a text channel' : 'not a voice channel';
      checks.push({ step: 'permissions', ok: false, message: `${channelNamed.name} is ${kind}, and the bot can only join a voice channel. Pick one of ${guildNamed.name}'s voice channels.` });
      return result({ code: 'not_a_voice_channel', guild: guildNamed, channel: channelNamed });
    }
    const perms = channelPermissions({ guildId: guild.id, guildOwnerId: guild.owner_id, userId: bot.id, roles: guild.roles, memberRoleIds: botMember.roles, overwrites: channel.permission_overwrites ?? [] });
    // Without View Channel every other permission in the channel is void (Discord's implicit deny).
    const hidden = (perms & PERMISSION_BITS.VIEW_CHANNEL) === 0n;
    const missing = [...(hidden ? ['View Channel'] : []), ...NEEDED_PERMISSIONS.filter((p) => hidden || (perms & p.bit) === 0n).map((p) => p.name)];
    if (missing.length) {
      checks.push({ step: 'permissions', ok: false, message: `In ${channelNamed.name} the bot lacks ${missing.join(', ')}. Allow them for the bot's role in the channel's settings, or re-invite it with the link.` });
      return result({ code: 'missing_permissions', guild: guildNamed, channel: channelNamed, missingPermissions: missing });
    }
    checks.push({ step: 'permissions', ok: true, message: `The bot may Connect, Speak and Send Messages in ${channelNamed.name}.` });
    return { ok: true, checks, bot: botNamed, invite, guild: guildNamed, channel: channelNamed, directory };
  }
}

function plainFailure(err: unknown): string {
  if (err instanceof DiscordAnswer) {
    if (err.status === 429) return 'Discord asked to slow down; test again in a few seconds.';
    if (err.status === 403) return "Discord refused to show the server's details to the bot (Missing Access). Re-invite it with the link.";
    return `Discord answered HTTP ${err.status}; test again, and if it persists see status.discord.com.`;
  }
  return `Could not reach Discord: ${err instanceof Error ? err.message : String(err)}.`;
}
