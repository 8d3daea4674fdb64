// The notification dispatcher: one `deliver()` behind local_notify, /notify, the scheduler and the
// delegate watcher. Every result tells the truth: a mode is `ok` only when it actually delivered
// (voice: the text was handed to the live model, i.e. written on its session as the next turn;
// dm/channel: Discord returned a message id; webhook: the receiver answered 2xx). A voice text still
// waiting for an idle moment when the call ends, the queue overflows or the bound passes is dropped
// and `auto` falls through to the next mode. A send that went out with no answer is `unknown` (it may
// have been delivered) and is never re-sent; see overallStatus and docs/notifications.md for the statuses.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { DeliveryMode, DeliveryOutcome, NotifyRequest, NotifyResult } from '../api-types.ts';
import type { DiscordTextPort, NotesSink } from '../ports.ts';
import { cleanTitle } from './format.ts';
import { parseNotifyRequest, type ValidNotifyRequest } from './validation.ts';
import { createWebhookDispatcher, type WebhookDispatcher } from './webhook.ts';
import type { VoiceDelivery } from './types.ts';
import { systemClock, type Clock } from '../contracts/clock.ts';
import { sendingFor, type DeliverOptions, type Sending, type SendMode } from './sending.ts';
import { voiceMode } from './deliver-voice.ts';
import { discordMode } from './deliver-discord.ts';
import { webhookMode } from './deliver-webhook.ts';

// The options of one delivery and the refusal check are in sending.ts, shared with the modes
// (deliver-voice.ts, deliver-discord.ts, deliver-webhook.ts); this file routes a request over them.
export { sendingRefused, type DeliverOptions } from './sending.ts';

/** Order `auto` tries; also the fall-through order for `voice` when no live call exists. */
export const AUTO_ORDER: readonly DeliveryMode[] = ['voice', 'dm', 'channel', 'webhook'];

/** How long a voice text may wait for an idle moment in the call before it is dropped (and `auto` moves on). */
export const DEFAULT_VOICE_BOUND_MS = 20_000;

export interface NotifierDeps {
  /** The live call's text hook, looked up at delivery time (null when no call is live). */
  voice: () => VoiceDelivery | null;
  /** Bot text delivery; a getter when the bot may log in after the notifier is built. */
  discordText: DiscordTextPort | null | (() => DiscordTextPort | null);
  /** A bot is configured (token + owner): without one dm/channel are `skipped`, with one not yet connected `unavailable`. Default: `discordText` was given. */
  discordConfigured?: boolean;
  /** Owner's Discord user id (DM target). */
  ownerId?: string;
  /** Text channel for `channel` mode (voice log / notes channel). */
  textChannelId?: string;
  /** agent.notify webhook URL (DISCORD_VOICE_LIVE_WEBHOOK_AGENT_NOTIFY); secret, never logged. */
  webhookUrl?: string;
  /** A ready webhook dispatcher; when given, `webhookUrl`/`throttleSeconds` are ignored. */
  webhook?: WebhookDispatcher;
  throttleSeconds?: number;
  /** The webhook receiver drops a repeated Idempotency-Key for this long (s); 0: it does not (webhook.ts). */
  webhookKeyWindowSeconds?: number;
  /** Plays a sound slot into the live call (a no-op when no call is live). */
  playSound?: (slot: 'notification') => void;
  /** DISCORD_VOICE_LIVE_SFX_ENABLED (PLATFORM_VOICE_LIVE_SFX_ENABLED); a function is asked at each chime (saved settings apply live). */
  sfxEnabled: boolean | (() => boolean);
  logger: Logger;
  /** When given, each dispatched notification is recorded in the notes log (kind `notification`). */
  notes?: NotesSink;
  clock?: Clock;
  /** Bound on one Discord send; when it passes the send is aborted (nothing lands later). Default 15 s. */
  discordTimeoutMs?: number;
  /** Bound on a voice hand-off (waiting for an idle moment in the call). Default 20 s. */
  voiceBoundMs?: number;
  /**
   * The bot's login under way (or a new attempt): a DM or channel post asked for while the bot is
   * still logging in waits for it (bounded by `loginWaitMs`) instead of being refused at once.
   */
  discordLogin?: () => Promise<void>;
  /** Longest a send waits for the bot's login. Default 10 s. */
  loginWaitMs?: number;
}

/**
 * The overall status of a delivery from the outcomes of the modes tried. `every`: the request wants
 * every configured destination (`all`), so `ok` needs all non-`skipped` modes `ok`; otherwise (auto,
 * voice, a single mode) one `ok` is enough.
 *
 * - `ok`: delivered (to every configured destination for `all`).
 * - `partial` (`all` only): at least one delivered and at least one did not. It stays `partial` even
 *   when some of the others are `unknown`: the notification did reach somebody, so sending it again
 *   to all would deliver it twice there.
 * - `unknown`: none is known `ok` and at least one is `unknown` (sent, no answer): it may have been
 *   delivered, so it must not be sent again (a retry may deliver it twice).
 * - `error`: none delivered and none may have: nothing reached anybody, so it is safe to send again.
 */
export function overallStatus(outcomes: readonly DeliveryOutcome[], every: boolean): NotifyResult['status'] {
  const delivered = outcomes.filter((o) => o.status === 'ok').length;
  if (delivered === 0) return outcomes.some((o) => o.status === 'unknown') ? 'unknown' : 'error';
  if (!every) return 'ok';
  return delivered === outcomes.filter((o) => o.status !== 'skipped').length ? 'ok' : 'partial';
}

export interface Notifier {
  /** Validates (throws NotifyInputError on empty text / unknown mode) then delivers. Never throws otherwise. */
  deliver(request: NotifyRequest, options?: DeliverOptions): Promise<NotifyResult>;
  readonly webhook: WebhookDispatcher;
}

export function createNotifier(deps: NotifierDeps): Notifier {
  const clock = deps.clock ?? systemClock;
  const webhook =
    deps.webhook ??
    createWebhookDispatcher({
      url: deps.webhookUrl,
      throttleSeconds: deps.throttleSeconds,
      keyWindowSeconds: deps.webhookKeyWindowSeconds,
      clock,
      logger: deps.logger,
    });
  const toDiscord = discordMode({
    text: () => (typeof deps.discordText === 'function' ? deps.discordText() : deps.discordText),
    configured: deps.discordConfigured ?? deps.discordText !== null,
    login: deps.discordLogin,
    loginWaitMs: deps.loginWaitMs ?? 10_000,
    ownerId: deps.ownerId,
    textChannelId: deps.textChannelId,
    timeoutMs: deps.discordTimeoutMs ?? 15_000,
    log: deps.logger,
  });
  const modes: Record<DeliveryMode, SendMode> = {
    voice: voiceMode({
      voice: deps.voice,
      boundMs: deps.voiceBoundMs ?? DEFAULT_VOICE_BOUND_MS,
      chime: () => playChime(deps),
    }),
    dm: (req, options) => toDiscord('dm', req, options),
    channel: (req, options) => toDiscord('channel', req, options),
    webhook: webhookMode(webhook),
  };
  const attempt: Attempt = async (mode, req, options) => {
    const outcome = await modes[mode](req, options);
    // A mode whose send the caller refused (e.g. the webhook's beforeSend) is `unavailable`:
    // configured here, just not sent to this time.
    return options.refused?.has(mode) && outcome.status === 'skipped' ? { ...outcome, status: 'unavailable' } : outcome;
  };
  return {
    webhook,
    async deliver(request, options = {}) {
      const req = parseNotifyRequest(request);
      const id = options.notificationId ?? `n-${randomUUID()}`;
      const routed = await route(req, sendingFor(options, id), attempt);
      const result: NotifyResult = { id, ...routed, notified_at: clock.now() / 1000 };
      recordDispatch(deps, req, result);
      return result;
    },
  };
}

/** One mode tried for one delivery, a refused send reported as such. */
type Attempt = (mode: DeliveryMode, req: ValidNotifyRequest, options: Sending) => Promise<DeliveryOutcome>;

function playChime(deps: NotifierDeps): void {
  const enabled = typeof deps.sfxEnabled === 'function' ? deps.sfxEnabled() : deps.sfxEnabled;
  if (!enabled || !deps.playSound) return;
  try {
    deps.playSound('notification');
  } catch (err) {
    deps.logger.warn({ err }, 'notification sound failed');
  }
}

/** The modes the request's mode asks for, tried in its way: in order (auto, voice), all at once, or one. */
async function route(
  req: ValidNotifyRequest,
  options: Sending,
  attempt: Attempt,
): Promise<Omit<NotifyResult, 'notified_at' | 'id'>> {
  switch (req.mode) {
    case 'auto':
    case 'voice': {
      // `voice` with no live call falls through to the other modes (spec: /notify, Errors 2).
      const { results, channel } = await firstSuccess(AUTO_ORDER, req, options, attempt);
      // The call did not speak it but another mode delivered it: its say record says so ("sent to the fallback").
      if (channel && channel !== 'voice') options.voiceNotSpoken?.(SENT_INSTEAD[channel]);
      const status = overallStatus(Object.values(results), false);
      return channel ? { status, channel, results } : { status, results };
    }
    case 'all': {
      const outcomes = await Promise.all(AUTO_ORDER.map((mode) => attempt(mode, req, options)));
      const results: NotifyResult['results'] = {};
      AUTO_ORDER.forEach((mode, i) => (results[mode] = outcomes[i]!));
      // `skipped` = not configured here (no live call, no bot, no webhook URL, no text channel):
      // not counted against `ok`, which means every configured destination delivered. A send the
      // caller refused is `unavailable` (see attempt), so it is counted.
      const channels = AUTO_ORDER.filter((_, i) => outcomes[i]!.status === 'ok');
      return { status: overallStatus(outcomes, true), channels, results };
    }
    default: {
      const outcome = await attempt(req.mode, req, options);
      const status = overallStatus([outcome], false);
      return outcome.status === 'ok'
        ? { status, channel: req.mode, results: { [req.mode]: outcome } }
        : { status, results: { [req.mode]: outcome } };
    }
  }
}

/** Try `order` one by one; stop at the first `ok`, or at an `unknown` (it may have been delivered). */
async function firstSuccess(
  order: readonly DeliveryMode[],
  req: ValidNotifyRequest,
  options: Sending,
  attempt: Attempt,
) {
  const results: NotifyResult['results'] = {};
  for (const mode of order) {
    const outcome = await attempt(mode, req, options);
    results[mode] = outcome;
    if (outcome.status === 'ok') return { results, channel: mode };
    if (outcome.status === 'unknown') break;
  }
  return { results, channel: undefined };
}

/** The delivery in the log and, when a notes log is given, in the notes (a failure there is logged, not thrown). */
function recordDispatch(deps: NotifierDeps, req: ValidNotifyRequest, result: NotifyResult): void {
  const delivered = result.channel ?? (result.channels?.length ? result.channels.join('+') : 'nobody');
  deps.logger.info(
    {
      id: result.id,
      mode: req.mode,
      status: result.status,
      delivered,
      outcomes: Object.fromEntries(Object.entries(result.results).map(([m, o]) => [m, o.status])),
    },
    'notification dispatched',
  );
  try {
    deps.notes?.append({
      kind: 'notification',
      speaker: req.source,
      text: `[${req.mode} → ${delivered}: ${result.status}${failures(result)}] ${cleanTitle(req.title)}: ${req.text}`,
    });
  } catch (err) {
    deps.logger.warn({ err }, 'could not record the notification in the notes log');
  }
}

/** How a voice notification that was not spoken reached its reader instead, for its say record. */
const SENT_INSTEAD: Record<Exclude<DeliveryMode, 'voice'>, string> = {
  dm: 'sent by direct message instead',
  channel: 'posted in the text channel instead',
  webhook: 'sent to the webhook instead',
};

/** `; voice: unavailable (call ended)`: why the modes tried before the one that delivered did not. */
function failures(result: NotifyResult): string {
  const parts = Object.entries(result.results)
    .filter(([, o]) => o.status !== 'ok' && o.status !== 'skipped')
    .map(([mode, o]) => `${mode}: ${o.status}${o.detail ? ` (${o.detail})` : ''}`);
  return parts.length ? `; ${parts.join('; ')}` : '';
}
