// What one delivery carries to each mode it tries (deliver-voice.ts, deliver-discord.ts,
// deliver-webhook.ts): the caller's hooks, the notification's id, and the state the modes of one
// delivery share. Apart from the dispatcher so the modes and the dispatcher do not import each other.
import type { DeliveryMode, DeliveryOutcome } from '../api-types.ts';
import type { DiscordTextPort } from '../ports.ts';
import type { ValidNotifyRequest } from './validation.ts';
import { errorMessage } from './types.ts';

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

/** `voiceNotSpoken`: a voice text that was not spoken records how it was delivered instead (its GET /say/{id}). */
export type Sending = DeliverOptions & {
  id: string;
  refused?: Set<DeliveryMode>;
  login?: Promise<DiscordTextPort | null>;
  voiceNotSpoken?: (instead: string) => void;
};

/** One mode's try at one delivery. */
export type SendMode = (req: ValidNotifyRequest, options: Sending) => Promise<DeliveryOutcome>;

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

/**
 * The caller's options for one delivery with its id; an `onSending` is wrapped so the modes it
 * refused are remembered (attempt() reports such a mode `unavailable`, never `skipped`).
 */
export function sendingFor(options: DeliverOptions, id: string): Sending {
  const sending: Sending = { ...options, id };
  if (!options.onSending) return sending;
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
  return sending;
}
