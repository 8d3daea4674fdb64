// A notification's voice mode through the call's model: the text is handed over at an idle moment
// (the provider's text delivery), or the reason it was not, in words for the notes.
import type { TextDelivery, TextDropReason } from '../ports.ts';
import type { VoiceHandOff } from '../notify/types.ts';

/** Why a text was not handed to the model, in words (the notes, a notification's detail, GET /say/{id}). */
export const DROP_REASONS: Record<TextDropReason, string> = {
  call_ended: 'the call ended before the text could be spoken',
  queue_full: 'too many texts waiting to be spoken; the oldest was dropped',
  timeout: 'no pause in the conversation to speak it in time',
  refused: 'not sent: the entry was cancelled or is being delivered elsewhere',
};

export interface HandOffOptions {
  withinMs: number;
  onHandedOver?: () => void;
  beforeHandOver?: () => Promise<boolean>;
}

/** Resolves `delivered` once the text is written on the live session, or why it was dropped. */
export function handOffText(
  send: (text: string, delivery: TextDelivery) => void,
  text: string,
  options: HandOffOptions,
): Promise<VoiceHandOff> {
  return new Promise((resolve) => {
    // A provider that never settles (no delivery support) must not hold the caller forever.
    const guard = setTimeout(
      () => resolve({ delivered: false, reason: 'the model did not confirm the hand-off in time' }),
      options.withinMs + 5000,
    );
    send(text, {
      deadlineMs: options.withinMs,
      beforeHandOver: options.beforeHandOver,
      onSettled: (outcome) => {
        clearTimeout(guard);
        if (outcome.delivered) {
          options.onHandedOver?.();
          resolve({ delivered: true });
        } else {
          resolve({ delivered: false, reason: DROP_REASONS[outcome.reason] });
        }
      },
    });
  });
}
