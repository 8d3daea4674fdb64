// Fake Discord REST (API v10, JSON only): just what discord.js needs to log in plus the message
// routes the bridge uses. Every posted message is recorded with its raw JSON body so tests can
// assert on exactly what would have reached Discord.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RouteAnswer } from './interactions.ts';
import { snowflake, type FakeWorld } from './world.ts';

export interface RecordedMessage {
  id: string;
  channelId: string;
  /** Set when the channel is a DM: the user who receives it. */
  dmRecipientId: string | null;
  content: string;
  /** The JSON body exactly as the client sent it (content, allowed_mentions, ...). */
  body: Record<string, unknown>;
  receivedAt: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
}

/** Discord's limit on `content` (characters). */
export const MESSAGE_CONTENT_LIMIT = 2000;

/**
 * Discord's limit on a message `nonce` (a string or an integer, "up to 25 characters"):
 * https://discord.com/developers/docs/resources/message#create-message (the `nonce` param).
 */
export const MESSAGE_NONCE_LIMIT = 25;

/**
 * How long a nonce sent with `enforce_nonce: true` is remembered. Discord: "it will be checked for
 * uniqueness in the past few minutes. If another message was created by the same author with the
 * same nonce, that message will be returned and no new message will be created"
 * (https://discord.com/developers/docs/resources/message#create-message, `enforce_nonce`). "A few
 * minutes" is not a number; the fake forgets after 2 minutes, the shortest honest reading, so a
 * client that relies on a longer window fails here first (the product resends only within
 * NONCE_RESEND_WINDOW_S, main/core/voice/text.ts).
 */
export const NONCE_DEDUPE_WINDOW_MS = 120_000;

/** Faults for the message route. */
export interface RestFaults {
  /**
   * The next N message posts are created (recorded, their nonce remembered) and then the
   * connection is destroyed before any answer: the client sees ECONNRESET with the message posted.
   */
  dropAnswerAfterCreate: number;
}

export interface RestServer {
  readonly server: Server;
  readonly apiBaseUrl: string;
  readonly messages: RecordedMessage[];
  readonly requests: RecordedRequest[];
  readonly faults: RestFaults;
  /** More routes (interactions.ts): tried before this module's own; null = not theirs. */
  readonly routes: ((method: string, path: string, body: unknown) => RouteAnswer)[];
  close(): Promise<void>;
}

export async function startRestServer(
  world: FakeWorld,
  botToken: string,
  gatewayUrl: () => string,
): Promise<RestServer> {
  const messages: RecordedMessage[] = [];
  const requests: RecordedRequest[] = [];
  const routes: RestServer['routes'] = [];
  const faults: RestFaults = { dropAnswerAfterCreate: 0 };
  /** `<author>:<nonce>` of messages created with enforce_nonce → the message and when (Discord's dedupe is per author). */
  const nonces = new Map<string, { message: RecordedMessage; at: number }>();

  function send(res: ServerResponse, status: number, body: unknown): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }
  const notFound = (res: ServerResponse) => send(res, 404, { message: '404: Not Found', code: 0 });

  async function readAnyJson(req: IncomingMessage): Promise<unknown> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (chunks.length === 0) return {};
    try {
      return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    } catch {
      return null;
    }
  }

  async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | null> {
    const parsed = await readAnyJson(req);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname.replace(/^\/api\/v10/, '');
    const method = req.method ?? 'GET';
    requests.push({ method, path });
    if (!url.pathname.startsWith('/api/v10/')) return notFound(res);
    // Interaction answers carry the interaction's token in the path, not the bot's (no Authorization).
    if (routes.length > 0 && (method === 'PUT' || method === 'PATCH' || path.startsWith('/interactions/'))) {
      const body = await readAnyJson(req);
      if (!path.startsWith('/interactions/') && req.headers.authorization !== `Bot ${botToken}`)
        return send(res, 401, { message: '401: Unauthorized', code: 0 });
      for (const route of routes) {
        const answer = route(method, path, body);
        if (!answer) continue;
        if (answer.status === 204) {
          res.writeHead(204);
          return void res.end();
        }
        return send(res, answer.status, answer.body);
      }
      return notFound(res);
    }
    if (req.headers.authorization !== `Bot ${botToken}`)
      return send(res, 401, { message: '401: Unauthorized', code: 0 });

    if (method === 'GET' && path === '/gateway/bot') {
      return send(res, 200, {
        url: gatewayUrl(),
        shards: 1,
        session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 },
      });
    }
    if (method === 'GET' && path === '/gateway') return send(res, 200, { url: gatewayUrl() });
    if (method === 'GET' && path === '/users/@me') return send(res, 200, world.userJson(world.bot));
    if (method === 'GET' && path === '/users/@me/guilds') {
      const g = world.guild;
      return send(
        res,
        200,
        world.botInGuild
          ? [
              {
                id: g.id,
                name: g.name,
                icon: null,
                owner: false,
                permissions: world.roles[0]!.permissions,
                features: [],
              },
            ]
          : [],
      );
    }
    const guildMatch = /^\/guilds\/(\d+)(?:\/(channels|roles|members|voice-states)(?:\/(\d+|@me))?)?$/.exec(path);
    if (method === 'GET' && guildMatch)
      return guildRoute(res, guildMatch[1]!, guildMatch[2], guildMatch[3], url.searchParams);
    if (method === 'POST' && path === '/users/@me/channels') {
      const body = await readJson(req);
      const recipient = typeof body?.recipient_id === 'string' ? world.users.get(body.recipient_id) : undefined;
      if (!recipient || recipient.bot) return send(res, 400, { message: 'Invalid Recipient(s)', code: 50033 });
      return send(res, 200, world.channelJson(world.dmChannelFor(recipient.id)));
    }
    const channelMatch = /^\/channels\/(\d+)(\/messages)?$/.exec(path);
    if (channelMatch) {
      const channel = world.findChannel(channelMatch[1]);
      if (!channel) return send(res, 404, { message: 'Unknown Channel', code: 10003 });
      if (channel.type !== 1 && !world.botInGuild) return send(res, 403, { message: 'Missing Access', code: 50001 });
      if (method === 'GET' && !channelMatch[2]) return send(res, 200, world.channelJson(channel));
      if (method === 'POST' && channelMatch[2]) {
        // A voice channel has its own text chat (Discord's "Text in Voice", for every server since 2022).
        if (channel.recipientId && world.closedDms.has(channel.recipientId))
          return send(res, 403, { message: 'Cannot send messages to this user', code: 50007 });
        const body = await readJson(req);
        if (!body) return send(res, 400, { message: '400: Bad Request', code: 0 });
        const content = typeof body.content === 'string' ? body.content : '';
        if (content.length === 0) return send(res, 400, { message: 'Cannot send an empty message', code: 50006 });
        if (content.length > MESSAGE_CONTENT_LIMIT) {
          return send(res, 400, {
            message: 'Invalid Form Body',
            code: 50035,
            errors: {
              content: {
                _errors: [
                  { code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${MESSAGE_CONTENT_LIMIT} or fewer in length.` },
                ],
              },
            },
          });
        }
        const nonce = nonceOf(body);
        if (nonce.error)
          return send(res, 400, {
            message: 'Invalid Form Body',
            code: 50035,
            errors: { nonce: { _errors: [nonce.error] } },
          });
        const key = nonce.value !== undefined && body.enforce_nonce === true ? `${world.bot.id}:${nonce.value}` : null;
        const now = Date.now();
        const prior = key ? nonces.get(key) : undefined;
        // A repeat within the window: the existing message is returned, nothing new is created.
        if (prior && now - prior.at < NONCE_DEDUPE_WINDOW_MS) return send(res, 200, messageJson(prior.message));
        const message: RecordedMessage = {
          id: snowflake(),
          channelId: channel.id,
          dmRecipientId: channel.recipientId ?? null,
          content,
          body,
          receivedAt: now,
        };
        messages.push(message);
        if (key) rememberNonce(key, message, now);
        if (faults.dropAnswerAfterCreate > 0) {
          faults.dropAnswerAfterCreate--;
          return void req.socket.destroy();
        }
        return send(res, 200, messageJson(message));
      }
    }
    return notFound(res);
  }

  /** The message object Discord answers a create with (the same for a nonce's repeat). */
  function messageJson(message: RecordedMessage): Record<string, unknown> {
    return {
      id: message.id,
      channel_id: message.channelId,
      type: 0,
      content: message.content,
      author: world.userJson(world.bot),
      timestamp: new Date(message.receivedAt).toISOString(),
      edited_timestamp: null,
      tts: false,
      mention_everyone: false,
      mentions: [],
      mention_roles: [],
      attachments: [],
      embeds: [],
      pinned: false,
      ...(message.body.nonce !== undefined ? { nonce: message.body.nonce } : {}),
    };
  }

  function rememberNonce(key: string, message: RecordedMessage, now: number): void {
    // Forget what is past the window first, so the map stays as small as a few minutes of posts.
    for (const [k, v] of nonces) if (now - v.at >= NONCE_DEDUPE_WINDOW_MS) nonces.delete(k);
    nonces.set(key, { message, at: now });
  }

  // Guild reads as Discord answers them: a guild the bot is not in is 403 Missing Access (50001),
  // an unknown one 404 Unknown Guild; absent members and voice states have their own 404 codes.
  function guildRoute(
    res: ServerResponse,
    guildId: string,
    sub: string | undefined,
    id: string | undefined,
    query: URLSearchParams,
  ): void {
    if (guildId !== world.guild.id) return send(res, 404, { message: 'Unknown Guild', code: 10004 });
    if (!world.botInGuild) return send(res, 403, { message: 'Missing Access', code: 50001 });
    if (sub === undefined) return send(res, 200, world.guildJson());
    if (id === undefined) {
      if (sub === 'channels')
        return send(
          res,
          200,
          [...world.guild.textChannels, ...world.guild.voiceChannels].map((c) => world.channelJson(c)),
        );
      if (sub === 'roles')
        return send(
          res,
          200,
          world.roles.map((r) => world.roleJson(r)),
        );
      if (sub === 'members') {
        if (!world.membersIntent) return send(res, 403, { message: 'Missing Access', code: 50001 });
        const limit = Number(query.get('limit') ?? '1');
        if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
          return send(res, 400, {
            message: 'Invalid Form Body',
            code: 50035,
            errors: {
              limit: {
                _errors: [{ code: 'NUMBER_TYPE_MAX', message: 'int value should be less than or equal to 1000.' }],
              },
            },
          });
        }
        return send(
          res,
          200,
          [...world.users.keys()]
            .filter((u) => world.isMember(u))
            .slice(0, limit)
            .map((u) => world.memberJson(u)),
        );
      }
      return notFound(res);
    }
    const userId = id === '@me' ? world.bot.id : id;
    if (sub === 'members')
      return world.isMember(userId)
        ? send(res, 200, world.memberJson(userId))
        : send(res, 404, { message: 'Unknown Member', code: 10007 });
    if (sub === 'voice-states') {
      const state = world.voiceStates.get(userId);
      if (!state) return send(res, 404, { message: 'Unknown Voice State', code: 10065 });
      const { member: _m, ...rest } = world.voiceStateJson(userId, state.channelId, state.sessionId);
      return send(res, 200, rest);
    }
    return notFound(res);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => send(res, 500, { message: '500: Internal Server Error', code: 0 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    apiBaseUrl: `http://127.0.0.1:${port}/api`,
    messages,
    requests,
    faults,
    routes,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A create's `nonce` as Discord validates it: absent, a string of ≤ 25 characters or an integer.
 * The error shape is Discord's Invalid Form Body (50035) with a per-field `_errors` list, as for
 * `content` above; the exact `code` strings for a nonce are not documented.
 */
function nonceOf(body: Record<string, unknown>): { value?: string; error?: { code: string; message: string } } {
  const nonce = body.nonce;
  if (nonce === undefined || nonce === null) return {};
  if (typeof nonce === 'number' && Number.isSafeInteger(nonce)) return { value: String(nonce) };
  if (typeof nonce !== 'string')
    return { error: { code: 'NONCE_TYPE_INVALID', message: 'Nonce must be an integer or a string.' } };
  if (nonce.length > MESSAGE_NONCE_LIMIT)
    return { error: { code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${MESSAGE_NONCE_LIMIT} or fewer in length.` } };
  return { value: nonce };
}
