// Fake Discord for what people do in a channel's text chat: slash commands (registered by the bot,
// used by a member, answered by the bot), reactions on the bot's messages, and edits of them.
// As strict as Discord:
// - Commands: `PUT /applications/{app}/guilds/{guild}/commands` (bulk overwrite) with names
//   1–32 lower-case characters and descriptions 1–100 (docs: interactions/application-commands,
//   "Application Command Naming"); a command not registered cannot be used.
// - An interaction is answered once, within 3 s (docs: interactions/receiving-and-responding,
//   "Interaction tokens ... you must send an initial response within 3 seconds"): late →
//   404 10062 Unknown interaction; twice → 400 40060 Interaction has already been acknowledged.
//   Flag 64 (EPHEMERAL) marks an answer only its user sees.
// - MESSAGE_REACTION_ADD only reaches sessions that identified with GUILD_MESSAGE_REACTIONS (1 << 10).
// - Message edits (`PATCH /channels/{c}/messages/{m}`): only the author's own messages (50005), and
//   a per-channel bucket of 5 edits per 5 s answered 429 with `retry_after` beyond it (the limit
//   discord.js reports for the route; Discord's docs say limits are per route and not to hard-code
//   them, so a well-behaved client stays far below).
import { z } from 'zod';
import { randomToken, snowflake, type FakeWorld } from './world.ts';

export interface RegisteredCommand {
  id: string;
  name: string;
  description: string;
}

export interface InteractionAnswer {
  interactionId: string;
  userId: string;
  command: string;
  type: number;
  content: string;
  ephemeral: boolean;
  receivedAt: number;
}

export interface MessageEdit {
  channelId: string;
  messageId: string;
  content: string;
  receivedAt: number;
}

const COMMAND_NAME = /^[-_\p{Ll}\p{N}]{1,32}$/u;
const commandSchema = z
  .object({
    name: z.string().regex(COMMAND_NAME),
    description: z.string().min(1).max(100),
    type: z.number().int().optional(),
  })
  .passthrough();
const callbackSchema = z.object({
  type: z.number().int(),
  data: z
    .object({ content: z.string().max(2000).optional(), flags: z.number().int().optional() })
    .passthrough()
    .optional(),
});
const editSchema = z.object({ content: z.string().max(2000) }).passthrough();

const ANSWER_WITHIN_MS = 3000;
const EDITS_PER_WINDOW = 5;
const EDIT_WINDOW_MS = 5000;

interface Pending {
  userId: string;
  command: string;
  token: string;
  createdAt: number;
  answered: boolean;
}

export type RouteAnswer = { status: number; body: unknown } | null;

export class FakeInteractions {
  readonly commands = new Map<string, RegisteredCommand>();
  readonly answers: InteractionAnswer[] = [];
  readonly edits: MessageEdit[] = [];
  /** 429s sent for edits over the bucket (a well-behaved client gets none). */
  rateLimited = 0;
  readonly #pending = new Map<string, Pending>();
  readonly #editTimes = new Map<string, number[]>();
  readonly #world: FakeWorld;
  readonly #dispatch: (event: string, data: unknown) => void;
  readonly #botMessage: (channelId: string, messageId: string) => boolean;

  constructor(
    world: FakeWorld,
    dispatch: (event: string, data: unknown) => void,
    botMessage: (channelId: string, messageId: string) => boolean,
  ) {
    this.#world = world;
    this.#dispatch = dispatch;
    this.#botMessage = botMessage;
  }

  /** A member types `/name` in `channelId` (default the bot's voice channel chat). Returns the interaction id. */
  use(userId: string, name: string, channelId: string): string {
    const command = this.commands.get(name);
    if (!command) throw new Error(`/${name} is not registered by the bot`);
    const id = snowflake();
    const token = randomToken('interaction');
    this.#pending.set(id, { userId, command: name, token, createdAt: Date.now(), answered: false });
    this.#dispatch('INTERACTION_CREATE', {
      id,
      application_id: this.#world.bot.id,
      type: 2,
      data: { id: command.id, name, type: 1 },
      guild_id: this.#world.guild.id,
      channel_id: channelId,
      member: this.#world.memberJson(userId),
      token,
      version: 1,
      locale: 'en-US',
      guild_locale: 'en-US',
      app_permissions: '0',
      entitlements: [],
      // A guild-installed app: Discord always sends who authorised it (discord.js reads it).
      authorizing_integration_owners: { '0': this.#world.guild.id },
      context: 0,
    });
    return id;
  }

  react(userId: string, channelId: string, messageId: string, emoji: string): void {
    this.#dispatch('MESSAGE_REACTION_ADD', {
      user_id: userId,
      channel_id: channelId,
      message_id: messageId,
      guild_id: this.#world.guild.id,
      member: this.#world.memberJson(userId),
      emoji: { id: null, name: emoji },
      message_author_id: this.#world.bot.id,
      burst: false,
      type: 0,
    });
  }

  /** REST routes of this module; null when the path is not one of them. */
  route(method: string, path: string, body: unknown): RouteAnswer {
    const commands = /^\/applications\/(\d+)\/guilds\/(\d+)\/commands$/.exec(path);
    if (commands && method === 'PUT') return this.#register(commands[1]!, commands[2]!, body);
    const callback = /^\/interactions\/(\d+)\/([^/]+)\/callback$/.exec(path);
    if (callback && method === 'POST') return this.#answer(callback[1]!, callback[2]!, body);
    const edit = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(path);
    if (edit && method === 'PATCH') return this.#edit(edit[1]!, edit[2]!, body);
    return null;
  }

  #register(appId: string, guildId: string, body: unknown): RouteAnswer {
    if (appId !== this.#world.bot.id || guildId !== this.#world.guild.id)
      return { status: 404, body: { message: 'Unknown Application', code: 10002 } };
    const parsed = z.array(commandSchema).max(100).safeParse(body);
    if (!parsed.success) return { status: 400, body: { message: 'Invalid Form Body', code: 50035 } };
    this.commands.clear();
    for (const c of parsed.data)
      this.commands.set(c.name, { id: snowflake(), name: c.name, description: c.description });
    return {
      status: 200,
      body: [...this.commands.values()].map((c) => ({
        ...c,
        application_id: appId,
        guild_id: guildId,
        type: 1,
        version: snowflake(),
      })),
    };
  }

  #answer(id: string, token: string, body: unknown): RouteAnswer {
    const pending = this.#pending.get(id);
    if (!pending || pending.token !== token || Date.now() - pending.createdAt > ANSWER_WITHIN_MS)
      return { status: 404, body: { message: 'Unknown interaction', code: 10062 } };
    if (pending.answered)
      return { status: 400, body: { message: 'Interaction has already been acknowledged.', code: 40060 } };
    const parsed = callbackSchema.safeParse(body);
    if (!parsed.success) return { status: 400, body: { message: 'Invalid Form Body', code: 50035 } };
    pending.answered = true;
    const flags = parsed.data.data?.flags ?? 0;
    this.answers.push({
      interactionId: id,
      userId: pending.userId,
      command: pending.command,
      type: parsed.data.type,
      content: parsed.data.data?.content ?? '',
      ephemeral: (flags & 64) !== 0,
      receivedAt: Date.now(),
    });
    return { status: 204, body: null };
  }

  #edit(channelId: string, messageId: string, body: unknown): RouteAnswer {
    if (!this.#botMessage(channelId, messageId))
      return { status: 403, body: { message: 'Cannot edit a message authored by another user', code: 50005 } };
    const now = Date.now();
    const times = (this.#editTimes.get(channelId) ?? []).filter((t) => now - t < EDIT_WINDOW_MS);
    if (times.length >= EDITS_PER_WINDOW) {
      this.rateLimited++;
      const retryAfter = (EDIT_WINDOW_MS - (now - times[0]!)) / 1000;
      return { status: 429, body: { message: 'You are being rate limited.', retry_after: retryAfter, global: false } };
    }
    const parsed = editSchema.safeParse(body);
    if (!parsed.success) return { status: 400, body: { message: 'Invalid Form Body', code: 50035 } };
    times.push(now);
    this.#editTimes.set(channelId, times);
    this.edits.push({ channelId, messageId, content: parsed.data.content, receivedAt: now });
    return {
      status: 200,
      body: {
        id: messageId,
        channel_id: channelId,
        content: parsed.data.content,
        author: this.#world.userJson(this.#world.bot),
        edited_timestamp: new Date(now).toISOString(),
      },
    };
  }
}
