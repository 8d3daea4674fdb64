// What is asked of a live call from outside its audio: text for the model to speak or answer (/say,
// the notifier's voice mode) and an image for it to see (/frame). A parked call wakes for them
// unless the daily cap refuses; the notes record each request.
import type { NotesLog } from '../notes/notes-log.ts';
import type { VoiceHandOff } from '../notify/types.ts';
import type { FrameSendResult } from '../ports.ts';
import type { CallMetrics } from './metrics.ts';
import type { ModelLink } from './model-link.ts';
import type { InFlight } from './park.ts';
import { BridgeError, type SpokenVerb } from './types.ts';
import { handOffText, type HandOffOptions } from './voice-handoff.ts';

export interface CallRequestsDeps {
  link: ModelLink;
  inFlight: InFlight;
  notes: NotesLog;
  metrics: CallMetrics;
  /** Connected, reconnecting or parked inside a call that is still going. */
  live: () => boolean;
  /** The call's state is connected / parked (the bridge's, not the link's). */
  connected: () => boolean;
  parked: () => boolean;
  /** A reason a parked call may not wake (the daily cost cap), or null. */
  wakeRefusal?: () => string | null;
}

export class CallRequests {
  readonly #d: CallRequestsDeps;

  constructor(deps: CallRequestsDeps) {
    this.#d = deps;
  }

  /** Held while the call reconnects (the model session queues it) or is parked (it wakes the model). */
  say(text: string, source: string, verb: SpokenVerb): void {
    const d = this.#d;
    if (!d.live()) throw new BridgeError('no_call', 'no live call to speak in');
    const refusal = d.link.state === 'parked' ? d.wakeRefusal?.() : null;
    if (refusal) throw new BridgeError('daily_cap_reached', refusal);
    d.link.sendText(text, d.inFlight.text(verb === 'message' ? { asMessage: true } : {}, 120_000));
    // One note per request, with what was sent (never the announce wording) and which verb it was.
    d.notes.append({ kind: 'say', text, speaker: `${source} · ${verb}` });
  }

  /**
   * Notifier's voice mode. Resolves `delivered` when the text was handed to the model (written on
   * the live session as its next turn), or why it was dropped: no live call, the call ended while
   * it waited, the queue overflowed, or no idle moment came within `withinMs`. During a reconnect
   * the text waits in the session's queue like any other.
   */
  speak(text: string, options: HandOffOptions): Promise<VoiceHandOff> {
    const d = this.#d;
    if (!d.live() || (d.link.state === 'parked' && d.wakeRefusal?.())) return Promise.resolve({ delivered: false, reason: 'no live call' });
    return handOffText((t, delivery) => d.link.sendText(t, d.inFlight.text(delivery, options.withinMs + 5000)), text, options);
  }

  async sendFrame(image: Buffer): Promise<FrameSendResult> {
    const d = this.#d;
    if (d.parked()) await d.link.wake('frame');
    const model = d.link.session;
    if (!model || !d.connected()) throw new BridgeError('no_call', 'no live call to send the frame to');
    const result = await model.sendFrame(image);
    if (result.status === 'sent') {
      d.metrics.framesSent += 1;
      d.notes.append({ kind: 'frame', text: `image ${result.width}×${result.height} sent to the model` });
    } else {
      d.metrics.framesDropped += 1;
    }
    return result;
  }
}
