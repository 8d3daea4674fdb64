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
import { cleanTitle, formatDiscordText, formatVoiceText } from './format.ts';
import { parseNotifyRequest, type ValidNotifyRequest } from './validation.ts';
import { AGENT_NOTIFY, createWebhookDispatcher, type WebhookDispatcher } from './webhook.ts';
import { AnswerLostError, errorMessage, NotAcceptedError, type VoiceDelivery } from './types.ts';
import { systemClock, type Clock } from '../contracts/clock.ts';

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

export interface DeliverOptions {
  /** Webhook sub-event, e.g. `agent_notify_scheduled` for scheduler deliveries. */
  subEvent?: string;
  /** Stable id of this notification (the schedule entry id for reminders); generated when absent. */
  notificationId?: string;
  /**
   * Called right before bytes go out to a destination (the text handed to the live session, the
   * Discord REST call, the webhook POST after its throttle wait), once per mode tried — for `all`
   * concurrently, so the hook must give every mode of one delivery the same answer (the scheduler
   * shares one claim per attempt). Resolving false (or throwing) sends nothing for that mode, which
   * is then reported `unavailable` (never `skipped`). The scheduler claims its entry here, so no
   * claim is held while a send waits for a throttle slot or a voice text for a pause in the call.
   */
  onSending?: (mode: DeliveryMode) => Promise<boolean> | boolean;
  /**
   * `mode`'s request was answered without being accepted (5xx, 429) or provably never sent: called
   * BEFORE any back-off or Retry-After wait (and when giving up), with the time the receiver asked
   * to be retried at (epoch ms) when it said. The scheduler releases its claim here.
   */
  onNotAccepted?: (mode: DeliveryMode, retryAtMs: number | null, detail: string) => Promise<void> | void;
  /**
   * The live model asked for it (its own tool call): `voice` is answered at once with the text for
   * the model to say now (`say_now`), because a hand-off that waits for a pause in the call would
   * wait on the model's own turn, which cannot end while the model waits for this tool.
   */
  fromLiveModel?: boolean;
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

/** Ask `onSending` whether `mode` may send now; an outcome when it may not. */
export async function sendingRefused(options: DeliverOptions, mode: DeliveryMode): Promise<DeliveryOutcome | null> {
  if (!options.onSending) return null;
  try {
    // `unavailable`, not `skipped`: the destination exists, it was just not sent to this time, so
    // `all` counts it against `ok` (a refusal can never make a partial delivery look complete).
    return (await options.onSending(mode))
      ? null
      : { status: 'unavailable', detail: 'not sent: the entry was cancelled or is being delivered elsewhere' };
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
  const voiceBoundMs = deps.voiceBoundMs ?? DEFAULT_VOICE_BOUND_MS;
  const webhook =
    deps.webhook ??
    createWebhookDispatcher({
      url: deps.webhookUrl,
      throttleSeconds: deps.throttleSeconds,
      keyWindowSeconds: deps.webhookKeyWindowSeconds,
      clock,
      logger: log,
    });
  const discordText = (): DiscordTextPort | null =>
    typeof deps.discordText === 'function' ? deps.discordText() : deps.discordText;
  const discordConfigured = deps.discordConfigured ?? deps.discordText !== null;

  function playChime(): void {
    const enabled = typeof deps.sfxEnabled === 'function' ? deps.sfxEnabled() : deps.sfxEnabled;
    if (!enabled || !deps.playSound) return;
    try {
      deps.playSound('notification');
    } catch (err) {
      log.warn({ err }, 'notification sound failed');
    }
  }

  async function tryVoice(req: ValidNotifyRequest, options: Sending): Promise<DeliveryOutcome> {
    const bridge = deps.voice();
    // A voice destination exists only while a call is live.
    if (!bridge) return { status: 'skipped', detail: 'no live call', queued: false };
    if (options.fromLiveModel) {
      playChime();
      // Handed to the model in its own tool result, to say in this turn.
      return { status: 'ok', say_now: formatVoiceText(req.text, req.title), queued: true };
    }
    // Asked at the pause the text goes out in, not before the wait for it (up to `voiceBoundMs`): a
    // crash while the text waits then leaves a reminder unclaimed, delivered by the next start,
    // instead of claimed and reported "may have been delivered".
    let refused: DeliveryOutcome | null = null;
    const beforeHandOver = async (): Promise<boolean> => (refused = await sendingRefused(options, 'voice')) === null;
    try {
      const handOff = await bridge.speak(formatVoiceText(req.text, req.title), {
        withinMs: voiceBoundMs,
        ...(options.onSending ? { beforeHandOver } : {}),
        // The chime goes with the text: it plays the moment the text is handed to the model.
        onHandedOver: playChime,
      });
      // `queued` is the spec's results.voice.queued: true once the text was handed to the model.
      // `say_id`: what became of it in the call (spoken, cut, dropped) is at GET /say/{id}.
      const sayId = handOff.id ? { say_id: handOff.id } : {};
      if (handOff.delivered) return { status: 'ok', queued: true, ...sayId };
      options.voiceNotSpoken = handOff.sentInstead;
      return { ...(refused ?? { status: 'unavailable', detail: handOff.reason }), queued: false, ...sayId };
    } catch (err) {
      return { status: 'error', detail: errorMessage(err), queued: false };
    }
  }

  /** The text port once a login under way has ended (bounded, before any claim); null if it did not work. */
  async function afterLogin(): Promise<DiscordTextPort | null> {
    if (!deps.discordLogin) return null;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, deps.loginWaitMs ?? 10_000)));
    await Promise.race([deps.discordLogin().catch(() => undefined), bound]);
    clearTimeout(timer);
    return discordText();
  }

  async function tryDiscord(
    mode: 'dm' | 'channel',
    req: ValidNotifyRequest,
    options: Sending,
  ): Promise<DeliveryOutcome> {
    if (!discordConfigured) return { status: 'skipped', detail: 'no Discord bot configured' };
    // One wait per delivery, shared by its dm and channel tries.
    const port = discordText() ?? (await (options.login ??= afterLogin()));
    if (!port) return { status: 'unavailable', detail: 'Discord bot is not connected' };
    const target = mode === 'dm' ? deps.ownerId : deps.textChannelId;
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
    // When the time is up the send is ABORTED, not just abandoned (nothing of it lands later); then,
    // or when the connection closed without an answer, it is sent once more under the same nonce:
    // if the first had reached Discord, the answer is the message it created.
    let lost = '';
    for (let round = 1; ; round++) {
      const timeUp = AbortSignal.timeout(discordTimeoutMs);
      try {
        const sent = await post(timeUp);
        return round === 1
          ? { status: 'ok', message_id: sent.messageId }
          : { status: 'ok', message_id: sent.messageId, detail: `sent again with the same nonce (${lost})` };
      } catch (err) {
        if (round < 2 && (timeUp.aborted || err instanceof AnswerLostError)) {
          lost = timeUp.aborted ? `the first had no answer within ${discordTimeoutMs} ms` : errorMessage(err);
          continue;
        }
        return discordFailure(mode, err, timeUp.aborted, options);
      }
    }
  }

  /** The outcome of a Discord send that threw (`timedOut`: its second bound passed too). */
  async function discordFailure(
    mode: 'dm' | 'channel',
    err: unknown,
    timedOut: boolean,
    options: Sending,
  ): Promise<DeliveryOutcome> {
    // The REST client cannot tell a send dropped from its queue from one whose request reached
    // Discord, so after two bounds the outcome is `unknown` (like a webhook POST with no answer) and
    // `auto` stops here instead of delivering the same notification through the channel or the webhook.
    if (timedOut)
      return {
        status: 'unknown',
        detail: `timeout after ${discordTimeoutMs} ms, twice (sent again with the same nonce); it may have reached Discord (not sent elsewhere)`,
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
        log.warn({ err: releaseErr, mode }, 'could not record a rate-limited send as not accepted');
      }
      return { status: 'error', detail: err.message };
    }
    return { status: 'error', detail: errorMessage(err).slice(0, 300) };
  }

  function tryWebhook(req: ValidNotifyRequest, options: Sending): Promise<DeliveryOutcome> {
    if (!webhook.configured) return Promise.resolve({ status: 'skipped', detail: 'no webhook URL configured' });
    return webhook
      .emit(
        {
          eventClass: AGENT_NOTIFY,
          subEvent: options.subEvent ?? 'agent_notification',
          title: cleanTitle(req.title),
          text: req.text,
          source: req.source,
          urgent: req.urgent,
          id: options.id,
        },
        {
          ...(options.onSending ? { beforeSend: () => options.onSending!('webhook') } : {}),
          ...(options.onNotAccepted
            ? {
                notAccepted: (retryAtMs: number | null, detail: string) =>
                  options.onNotAccepted!('webhook', retryAtMs, detail),
              }
            : {}),
        },
      )
      .catch((err: unknown) => ({ status: 'error', detail: errorMessage(err) }) as DeliveryOutcome);
  }

  /** `voiceNotSpoken`: a voice text that was not spoken records how it was delivered instead (its GET /say/{id}). */
  type Sending = DeliverOptions & {
    id: string;
    refused?: Set<DeliveryMode>;
    login?: Promise<DiscordTextPort | null>;
    voiceNotSpoken?: (instead: string) => void;
  };

  async function attempt(mode: DeliveryMode, req: ValidNotifyRequest, options: Sending): Promise<DeliveryOutcome> {
    const outcome = await send(mode, req, options);
    // A mode whose send the caller refused (e.g. the webhook's beforeSend) is `unavailable`:
    // configured here, just not sent to this time.
    return options.refused?.has(mode) && outcome.status === 'skipped' ? { ...outcome, status: 'unavailable' } : outcome;
  }

  function send(mode: DeliveryMode, req: ValidNotifyRequest, options: Sending): Promise<DeliveryOutcome> {
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

  /** Try `order` one by one; stop at the first `ok`, or at an `unknown` (it may have been delivered). */
  async function firstSuccess(order: readonly DeliveryMode[], req: ValidNotifyRequest, options: Sending) {
    const results: NotifyResult['results'] = {};
    for (const mode of order) {
      const outcome = await attempt(mode, req, options);
      results[mode] = outcome;
      if (outcome.status === 'ok') return { results, channel: mode };
      if (outcome.status === 'unknown') break;
    }
    return { results, channel: undefined };
  }

  async function route(req: ValidNotifyRequest, options: Sending): Promise<Omit<NotifyResult, 'notified_at' | 'id'>> {
    switch (req.mode) {
      case 'auto':
      case 'voice': {
        // `voice` with no live call falls through to the other modes (spec: /notify, Errors 2).
        const { results, channel } = await firstSuccess(AUTO_ORDER, req, options);
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

  return {
    webhook,
    async deliver(request, options = {}) {
      const req = parseNotifyRequest(request);
      const id = options.notificationId ?? `n-${randomUUID()}`;
      const sending: Sending = { ...options, id };
      if (options.onSending) {
        const hook = options.onSending;
        const refused = (sending.refused = new Set<DeliveryMode>());
        sending.onSending = async (mode) => {
          let go = false;
          try {
            go = await hook(mode);
            return go;
          } finally {
            if (!go) refused.add(mode);
          }
        };
      }
      const routed = await route(req, sending);
      const result: NotifyResult = { id, ...routed, notified_at: clock.now() / 1000 };
      const delivered = result.channel ?? (result.channels?.length ? result.channels.join('+') : 'nobody');
      log.info(
        {
          id,
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
        log.warn({ err }, 'could not record the notification in the notes log');
      }
      return result;
    },
  };
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

/** Rejects as soon as `signal` aborts, even if `work` ignores the signal. */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
