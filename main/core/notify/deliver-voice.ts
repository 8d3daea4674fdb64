// The `voice` mode: the text handed to the live call, to be said at its next idle moment (or, when
// the live model asked for it, returned for the model to say in this turn).
import type { DeliveryOutcome } from '../api-types.ts';
import { formatVoiceText } from './format.ts';
import { sendingRefused, type SendMode } from './sending.ts';
import { errorMessage, type VoiceDelivery } from './types.ts';

export interface VoiceModeOptions {
  /** The live call's text hook, looked up at delivery time (null when no call is live). */
  voice: () => VoiceDelivery | null;
  /** Bound on the wait for an idle moment in the call. */
  boundMs: number;
  /** The notification chime; it plays the moment the text is handed to the model. */
  chime: () => void;
}

export function voiceMode({ voice, boundMs, chime }: VoiceModeOptions): SendMode {
  return async (req, options) => {
    const bridge = voice();
    // A voice destination exists only while a call is live.
    if (!bridge) return { status: 'skipped', detail: 'no live call', queued: false };
    if (options.fromLiveModel) {
      chime();
      // Handed to the model in its own tool result, to say in this turn.
      return { status: 'ok', say_now: formatVoiceText(req.text, req.title), queued: true };
    }
    // Asked at the pause the text goes out in, not before the wait for it (up to `boundMs`): a
    // crash while the text waits then leaves a reminder unclaimed, delivered by the next start,
    // instead of claimed and reported "may have been delivered".
    let refused: DeliveryOutcome | null = null;
    const beforeHandOver = async (): Promise<boolean> => (refused = await sendingRefused(options, 'voice')) === null;
    try {
      const handOff = await bridge.speak(formatVoiceText(req.text, req.title), {
        withinMs: boundMs,
        ...(options.onSending ? { beforeHandOver } : {}),
        // The chime goes with the text: it plays the moment the text is handed to the model.
        onHandedOver: chime,
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
  };
}
