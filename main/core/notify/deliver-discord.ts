// The `dm` and `channel` modes: the text posted by the bot, to the owner or to the text channel.
// A send is bounded and, when its answer is lost, sent once more under the same nonce, so it lands
// at most once; a bot still logging in is waited for (bounded) instead of refused.
import type { Logger } from 'pino';
import type { DeliveryOutcome } from '../api-types.ts';
import type { DiscordTextPort, SentMessage } from '../ports.ts';
import { formatDiscordText } from './format.ts';
import { sendingRefused, type Sending } from './sending.ts';
import { AnswerLostError, errorMessage, NotAcceptedError } from './types.ts';
import type { ValidNotifyRequest } from './validation.ts';

export type DiscordMode = 'dm' | 'channel';

export interface DiscordModeOptions {
  /** The bot's text port now (null while it is not connected). */
  text: () => DiscordTextPort | null;
  /** A bot is configured: without one both modes are `skipped`. */
  configured: boolean;
  /** The bot's login under way (or a new attempt), waited for up to `loginWaitMs`. */
  login?: () => Promise<void>;
  loginWaitMs: number;
  /** The DM target. */
  ownerId?: string;
  /** The `channel` target. */
  textChannelId?: string;
  /** Bound on one send; when it passes the send is aborted (nothing lands later). */
  timeoutMs: number;
  log: Logger;
}

export type SendDiscord = (mode: DiscordMode, req: ValidNotifyRequest, options: Sending) => Promise<DeliveryOutcome>;

export function discordMode(o: DiscordModeOptions): SendDiscord {
  /** The text port once a login under way has ended (bounded, before any claim); null if it did not work. */
  async function afterLogin(): Promise<DiscordTextPort | null> {
    if (!o.login) return null;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, o.loginWaitMs)));
    await Promise.race([o.login().catch(() => undefined), bound]);
    clearTimeout(timer);
    return o.text();
  }

  return async (mode, req, options) => {
    if (!o.configured) return { status: 'skipped', detail: 'no Discord bot configured' };
    // One wait per delivery, shared by its dm and channel tries.
    const port = o.text() ?? (await (options.login ??= afterLogin()));
    if (!port) return { status: 'unavailable', detail: 'Discord bot is not connected' };
    const target = mode === 'dm' ? o.ownerId : o.textChannelId;
    if (!target)
      return {
        status: 'skipped',
        detail: mode === 'dm' ? 'no owner user id configured' : 'no text channel configured',
      };
    const refused = await sendingRefused(options, mode);
    if (refused) return refused;
    const text = formatDiscordText(req.text, req.title, req.source);
    // Every post carries a nonce from the notification's id with enforce_nonce (voice/text.ts): a
    // resend of it within Discord's window returns the message already created instead of a second.
    const post = (signal: AbortSignal) =>
      abortable(
        mode === 'dm'
          ? port.sendDirectMessage(target, text, { signal, deliveryId: options.id })
          : port.postToChannel(target, text, { signal, deliveryId: options.id }),
        signal,
      );
    return sendTwiceAtMost(post, mode, options, o);
  };
}

/**
 * When the time is up the send is ABORTED, not just abandoned (nothing of it lands later); then, or
 * when the connection closed without an answer, it is sent once more under the same nonce: if the
 * first had reached Discord, the answer is the message it created.
 */
async function sendTwiceAtMost(
  post: (signal: AbortSignal) => Promise<SentMessage>,
  mode: DiscordMode,
  options: Sending,
  o: DiscordModeOptions,
): Promise<DeliveryOutcome> {
  let lost = '';
  for (let round = 1; ; round++) {
    const timeUp = AbortSignal.timeout(o.timeoutMs);
    try {
      const sent = await post(timeUp);
      return round === 1
        ? { status: 'ok', message_id: sent.messageId }
        : { status: 'ok', message_id: sent.messageId, detail: `sent again with the same nonce (${lost})` };
    } catch (err) {
      if (round < 2 && (timeUp.aborted || err instanceof AnswerLostError)) {
        lost = timeUp.aborted ? `the first had no answer within ${o.timeoutMs} ms` : errorMessage(err);
        continue;
      }
      return discordFailure(mode, err, timeUp.aborted, options, o);
    }
  }
}

/** The outcome of a Discord send that threw (`timedOut`: its second bound passed too). */
async function discordFailure(
  mode: DiscordMode,
  err: unknown,
  timedOut: boolean,
  options: Sending,
  o: DiscordModeOptions,
): Promise<DeliveryOutcome> {
  // The REST client cannot tell a send dropped from its queue from one whose request reached
  // Discord, so after two bounds the outcome is `unknown` (like a webhook POST with no answer) and
  // `auto` stops here instead of delivering the same notification through the channel or the webhook.
  if (timedOut)
    return {
      status: 'unknown',
      detail: `timeout after ${o.timeoutMs} ms, twice (sent again with the same nonce); it may have reached Discord (not sent elsewhere)`,
    };
  if (err instanceof AnswerLostError)
    return {
      status: 'unknown',
      detail: `${err.message}, twice (sent again with the same nonce); not sent elsewhere`,
    };
  if (err instanceof NotAcceptedError) {
    // Rate limited before anything was posted: the claim is let go now, not held through the wait.
    try {
      await options.onNotAccepted?.(mode, err.retryAtMs, err.message);
    } catch (releaseErr) {
      o.log.warn({ err: releaseErr, mode }, 'could not record a rate-limited send as not accepted');
    }
    return { status: 'error', detail: err.message };
  }
  return { status: 'error', detail: errorMessage(err).slice(0, 300) };
}

/** Rejects as soon as `signal` aborts, even if `work` ignores the signal. */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
