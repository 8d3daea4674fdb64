// Text delivery through the bot's REST client: DMs and channel posts. Mentions are always
// disabled (`allowed_mentions: { parse: [] }`) so a notification can never ping @everyone or a
// role, and long text is split to fit Discord's 2000-character message limit.
import { createHash } from 'node:crypto';
import type { RateLimitData, REST } from 'discord.js';
import { DiscordAPIError, HTTPError, RateLimitError, Routes } from 'discord.js';
import { z } from 'zod';
import { AnswerLostError, NotAcceptedError } from '../notify/types.ts';
import type { DiscordTextPort, SendOptions, SentMessage } from '../ports.ts';

export const DISCORD_MESSAGE_LIMIT = 2000;
/** A notification longer than this many messages is truncated rather than flooding the channel. */
export const MAX_MESSAGE_PARTS = 4;
const TRUNCATION_MARK = '\n… (truncated)';

/**
 * How long after a delivery's first post a resend of it may rely on Discord dropping the repeat.
 * Discord checks an enforced nonce "for uniqueness in the past few minutes"
 * (https://discord.com/developers/docs/resources/message#create-message, `enforce_nonce`); "a few"
 * is read as at least 2 minutes, and a resend is made only within 90 s of the first post, leaving
 * 30 s for clocks and the request itself. The fake Discord forgets after exactly 2 minutes.
 */
export const NONCE_RESEND_WINDOW_S = 90;

/** Discord's limit on a nonce: "up to 25 characters" (same page, the `nonce` param). */
const NONCE_LENGTH = 25;

/**
 * The nonce of part `part` of delivery `deliveryId` through `target`: a hash (ids are longer than 25
 * characters), the same on every resend of the same delivery, different per part and destination.
 */
export function messageNonce(deliveryId: string, target: string, part: number): string {
  return createHash('sha256').update(`${deliveryId}\n${target}\n${part}`).digest('base64url').slice(0, NONCE_LENGTH);
}

const messageResponse = z.object({ id: z.string(), channel_id: z.string() });
const channelResponse = z.object({ id: z.string() });

/**
 * The REST client's `rejectOnRateLimit`: a message send (or the DM channel it needs) that Discord
 * rate-limits is refused at once instead of waited out inside the client, so a reminder's claim is
 * not held through the wait: the send is reported not accepted, to be retried at `retry_after`.
 */
export function rejectMessageRateLimits(data: RateLimitData): boolean {
  return (
    data.method.toUpperCase() === 'POST' &&
    (data.route.endsWith('/messages') || data.route.startsWith('/users/@me/channels'))
  );
}

/**
 * A rate-limit refusal before anything was posted as NotAcceptedError (retry at Discord's time); a
 * connection that closed without an answer (discord.js resends only on ECONNRESET, not on undici's
 * "other side closed") as AnswerLostError: it may have been posted. Others unchanged.
 */
function notAccepted(err: unknown, nothingPosted: boolean, signal: AbortSignal | undefined): unknown {
  if (err instanceof RateLimitError) {
    return nothingPosted
      ? new NotAcceptedError(
          `rate limited by Discord (retry after ${Math.ceil(err.retryAfter / 1000)} s); nothing sent`,
          Date.now() + err.retryAfter,
        )
      : err;
  }
  if (err instanceof DiscordAPIError || err instanceof HTTPError || signal?.aborted) return err;
  const code = connectionLostCode(err);
  return code ? new AnswerLostError(`no answer from Discord (${code}); it may have been posted`) : err;
}

/**
 * Codes of a connection that closed after the request may have gone out (undici's socket errors, a
 * reset, a broken pipe), on the error or its `cause`; null for anything else — a refused
 * connection or a client-side error sent nothing, and stays an error (safe to send elsewhere).
 */
const LOST_CODES = new Set(['UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNRESET', 'EPIPE']);
function connectionLostCode(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++) {
    const code = (e as Error & { code?: unknown }).code;
    if (typeof code === 'string' && LOST_CODES.has(code)) return code;
  }
  return null;
}

/**
 * Split `text` into Discord-sized parts, preferring line breaks, then spaces, then a hard cut.
 * At most `maxParts` parts; the last one ends with a truncation mark when text was dropped.
 */
export function splitMessage(text: string, limit = DISCORD_MESSAGE_LIMIT, maxParts = MAX_MESSAGE_PARTS): string[] {
  const parts: string[] = [];
  let rest = text.trim();
  while (rest.length > 0 && parts.length < maxParts) {
    if (rest.length <= limit) {
      parts.push(rest);
      rest = '';
      break;
    }
    let cut = rest.lastIndexOf('\n', limit);
    if (cut < limit / 2) cut = rest.lastIndexOf(' ', limit);
    if (cut < limit / 2) cut = limit;
    parts.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest.length > 0) {
    const last = parts[parts.length - 1];
    parts[parts.length - 1] = last.slice(0, limit - TRUNCATION_MARK.length).trimEnd() + TRUNCATION_MARK;
  }
  return parts;
}

export class DiscordText implements DiscordTextPort {
  #rest: () => REST;
  #dmChannels = new Map<string, string>();

  /** `rest` is read lazily: the client's REST instance exists before login but needs its token. */
  constructor(rest: () => REST) {
    this.#rest = rest;
  }

  async sendDirectMessage(userId: string, text: string, options: SendOptions = {}): Promise<SentMessage> {
    let channelId = this.#dmChannels.get(userId);
    if (!channelId) {
      const raw = await this.#rest()
        .post(Routes.userChannels(), { body: { recipient_id: userId }, signal: options.signal })
        .catch((err: unknown) => Promise.reject(notAccepted(err, true, options.signal)));
      const channel = channelResponse.parse(raw);
      channelId = channel.id;
      this.#dmChannels.set(userId, channelId);
    }
    return this.postToChannel(channelId, text, options);
  }

  /** Replaces a message's text (one of the bot's own; cut to one message). */
  async editMessage(channelId: string, messageId: string, text: string, options: SendOptions = {}): Promise<void> {
    const content = splitMessage(text, DISCORD_MESSAGE_LIMIT, 1)[0] ?? '…';
    await this.#rest().patch(Routes.channelMessage(channelId, messageId), {
      body: { content, allowed_mentions: { parse: [] } },
      signal: options.signal,
    });
  }

  /** Posts every part in order; returns the first message (the one a link should point to). */
  async postToChannel(channelId: string, text: string, options: SendOptions = {}): Promise<SentMessage> {
    const parts = splitMessage(text);
    if (parts.length === 0) throw new Error('cannot send an empty Discord message');
    let first: SentMessage | null = null;
    for (const [part, content] of parts.entries()) {
      // Aborted (time is up): the REST client drops the request, queued or in flight, and rejects.
      options.signal?.throwIfAborted();
      const once = options.deliveryId
        ? { nonce: messageNonce(options.deliveryId, channelId, part), enforce_nonce: true }
        : {};
      const raw = await this.#rest()
        .post(Routes.channelMessages(channelId), {
          body: { content, allowed_mentions: { parse: [] }, ...once },
          signal: options.signal,
        })
        .catch((err: unknown) => Promise.reject(notAccepted(err, first === null, options.signal)));
      const message = messageResponse.parse(raw);
      first ??= { messageId: message.id, channelId: message.channel_id };
    }
    return first as SentMessage;
  }
}
