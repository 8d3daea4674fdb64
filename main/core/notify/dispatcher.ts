// The notification dispatcher: one `deliver()` behind local_notify, /notify, the scheduler and the
// delegate watcher. Every result tells the truth: a mode is `ok` only when it actually delivered
// (voice: the live session accepted the text for its next turn; dm/channel: Discord returned a
// message id; webhook: the receiver answered 2xx). See docs/notifications.md for the statuses.
import type { Logger } from 'pino';
import type { DeliveryMode, DeliveryOutcome, NotifyRequest, NotifyResult } from '../api-types.ts';
import type { DiscordTextPort, NotesSink } from '../ports.ts';
import { cleanTitle, formatDiscordText, formatVoiceText } from './format.ts';
import { parseNotifyRequest, type ValidNotifyRequest } from './validation.ts';
import { AGENT_NOTIFY, createWebhookDispatcher, type WebhookDispatcher } from './webhook.ts';
import { errorMessage, systemClock, type Clock, type VoiceDelivery } from './types.ts';

/** Order `auto` tries; also the fall-through order for `voice` when no live call exists. */
export const AUTO_ORDER: readonly DeliveryMode[] = ['voice', 'dm', 'channel', 'webhook'];

export interface NotifierDeps {
  /** The live call's text hook, looked up at delivery time (null when no call is live). */
  voice: () => VoiceDelivery | null;
  /** Bot text delivery; a getter when the bot may log in after the notifier is built. */
  discordText: DiscordTextPort | null | (() => DiscordTextPort | null);
  /** Owner's Discord user id (DM target). */
  ownerId?: string;
  /** Text channel for `channel` mode (voice log / notes channel). */
  textChannelId?: string;
  /** agent.notify webhook URL (DISCORD_VOICE_LIVE_WEBHOOK_AGENT_NOTIFY); secret, never logged. */
  webhookUrl?: string;
  /** A ready webhook dispatcher; when given, `webhookUrl`/`fetch`/`throttleSeconds` are ignored. */
  webhook?: WebhookDispatcher;
  fetch?: typeof fetch;
  throttleSeconds?: number;
  /** Plays a sound slot into the live call (a no-op when no call is live). */
  playSound?: (slot: 'notification') => void;
  /** DISCORD_VOICE_LIVE_SFX_ENABLED (PLATFORM_VOICE_LIVE_SFX_ENABLED). */
  sfxEnabled: boolean;
  logger: Logger;
  /** When given, each dispatched notification is recorded in the notes log (kind `notification`). */
  notes?: NotesSink;
  clock?: Clock;
  /** Bound on one Discord send; a hung REST call becomes an `error` outcome. Default 15 s. */
  discordTimeoutMs?: number;
}

export interface DeliverOptions {
  /** Webhook sub-event, e.g. `agent_notify_scheduled` for scheduler deliveries. */
  subEvent?: string;
  /**
   * Called right before bytes go out to a destination (the text handed to the live session, the
   * Discord REST call, the webhook POST after its throttle wait), once per mode tried. Resolving
   * false (or throwing) sends nothing for that mode. The scheduler claims its entry here, so no
   * claim is held while a send waits for a throttle slot.
   */
  onSending?: (mode: DeliveryMode) => Promise<boolean> | boolean;
}

/** Ask `onSending` whether `mode` may send now; an outcome when it may not. */
export async function sendingRefused(options: DeliverOptions, mode: DeliveryMode): Promise<DeliveryOutcome | null> {
  if (!options.onSending) return null;
  try {
    return (await options.onSending(mode)) ? null : { status: 'skipped', detail: 'not sent: the entry was cancelled or is being delivered elsewhere' };
  } catch (err) {
    return { status: 'error', detail: `not sent: ${errorMessage(err)}` };
  }
}

export interface Notifier {
  /** Validates (throws NotifyInputError on empty text / unknown mode) then delivers. Never throws otherwise. */
  deliver(request: NotifyRequest, options?: DeliverOptions): Promise<NotifyResult>;
  readonly webhook: WebhookDispatcher;
}

export function createNotifier(deps: NotifierDeps): Notifier {
  const clock = deps.clock ?? systemClock;
  const log = deps.logger;
  const discordTimeoutMs = deps.discordTimeoutMs ?? 15_000;
  const webhook =
    deps.webhook ??
    createWebhookDispatcher({ url: deps.webhookUrl, fetch: deps.fetch, throttleSeconds: deps.throttleSeconds, clock, logger: log });
  const discordText = (): DiscordTextPort | null => (typeof deps.discordText === 'function' ? deps.discordText() : deps.discordText);

  async function tryVoice(req: ValidNotifyRequest, options: DeliverOptions): Promise<DeliveryOutcome> {
    const bridge = deps.voice();
    if (!bridge) return { status: 'unavailable', queued: false, detail: 'no live call' };
    const refused = await sendingRefused(options, 'voice');
    if (refused) return { ...refused, queued: false };
    try {
      return bridge.speakNextTurn(formatVoiceText(req.text, req.title))
        ? { status: 'ok', queued: true }
        : { status: 'unavailable', queued: false, detail: 'the live session is not accepting text' };
    } catch (err) {
      return { status: 'error', queued: false, detail: errorMessage(err) };
    }
  }

  async function tryDiscord(mode: 'dm' | 'channel', req: ValidNotifyRequest, options: DeliverOptions): Promise<DeliveryOutcome> {
    const port = discordText();
    if (!port) return { status: 'unavailable', detail: 'Discord bot is not connected' };
    const target = mode === 'dm' ? deps.ownerId : deps.textChannelId;
    if (!target) return { status: 'skipped', detail: mode === 'dm' ? 'no owner user id configured' : 'no text channel configured' };
    const refused = await sendingRefused(options, mode);
    if (refused) return refused;
    const text = formatDiscordText(req.text, req.title, req.source);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timeout after ${discordTimeoutMs} ms`)), discordTimeoutMs);
    });
    try {
      const send = mode === 'dm' ? port.sendDirectMessage(target, text) : port.postToChannel(target, text);
      const sent = await Promise.race([send, timeout]);
      return { status: 'ok', message_id: sent.messageId };
    } catch (err) {
      return { status: 'error', detail: errorMessage(err).slice(0, 300) };
    } finally {
      clearTimeout(timer);
    }
  }

  function tryWebhook(req: ValidNotifyRequest, options: DeliverOptions): Promise<DeliveryOutcome> {
    return webhook
      .emit({
        eventClass: AGENT_NOTIFY,
        subEvent: options.subEvent ?? 'agent_notification',
        title: cleanTitle(req.title),
        text: req.text,
        source: req.source,
        urgent: req.urgent,
      }, options.onSending ? { beforeSend: () => options.onSending!('webhook') } : undefined)
      .catch((err: unknown) => ({ status: 'error', detail: errorMessage(err) }) as DeliveryOutcome);
  }

  function attempt(mode: DeliveryMode, req: ValidNotifyRequest, options: DeliverOptions): Promise<DeliveryOutcome> {
    switch (mode) {
      case 'voice':
        return tryVoice(req, options);
      case 'dm':
      case 'channel':
        return tryDiscord(mode, req, options);
      case 'webhook':
        return tryWebhook(req, options);
    }
  }

  /** Try `order` one by one; stop at the first `ok`. */
  async function firstSuccess(order: readonly DeliveryMode[], req: ValidNotifyRequest, options: DeliverOptions) {
    const results: NotifyResult['results'] = {};
    for (const mode of order) {
      results[mode] = await attempt(mode, req, options);
      if (results[mode].status === 'ok') return { results, channel: mode };
    }
    return { results, channel: null };
  }

  async function route(req: ValidNotifyRequest, options: DeliverOptions): Promise<Omit<NotifyResult, 'notified_at'>> {
    switch (req.mode) {
      case 'auto':
      case 'voice': {
        // `voice` with no live call falls through to the other modes (spec: /notify, Errors 2).
        const { results, channel } = await firstSuccess(AUTO_ORDER, req, options);
        return { status: channel ? 'ok' : 'error', channel, results };
      }
      case 'all': {
        const outcomes = await Promise.all(AUTO_ORDER.map((mode) => attempt(mode, req, options)));
        const results: NotifyResult['results'] = {};
        AUTO_ORDER.forEach((mode, i) => (results[mode] = outcomes[i]!));
        // `skipped` = not configured here (no webhook URL, no text channel): not counted against `ok`.
        const considered = outcomes.filter((o) => o.status !== 'skipped');
        const delivered = considered.filter((o) => o.status === 'ok').length;
        const status = delivered === 0 ? 'error' : delivered === considered.length ? 'ok' : 'partial';
        return { status, channel: delivered > 0 ? 'all' : null, results };
      }
      default: {
        const outcome = await attempt(req.mode, req, options);
        return { status: outcome.status === 'ok' ? 'ok' : 'error', channel: outcome.status === 'ok' ? req.mode : null, results: { [req.mode]: outcome } };
      }
    }
  }

  return {
    webhook,
    async deliver(request, options = {}) {
      const req = parseNotifyRequest(request);
      const routed = await route(req, options);
      const result: NotifyResult = { ...routed, notified_at: clock.now() / 1000 };
      log.info(
        { mode: req.mode, status: result.status, channel: result.channel, outcomes: Object.fromEntries(Object.entries(result.results).map(([m, o]) => [m, o.status])) },
        'notification dispatched',
      );
      try {
        deps.notes?.append({
          kind: 'notification',
          speaker: req.source,
          text: `[${req.mode} → ${result.channel ?? 'nobody'}: ${result.status}] ${cleanTitle(req.title)}: ${req.text}`,
        });
      } catch (err) {
        log.warn({ err }, 'could not record the notification in the notes log');
      }
      if (result.status !== 'error' && deps.sfxEnabled && deps.playSound) {
        try {
          deps.playSound('notification');
        } catch (err) {
          log.warn({ err }, 'notification sound failed');
        }
      }
      return result;
    },
  };
}
