// What is asked of a live call from outside its audio: text for the model to speak or answer (/say,
// the notifier's voice mode) and an image for it to see (/frame). A parked call wakes for them
// unless the daily cap refuses; the notes record each request.
import type { SayVerb } from '../api-types.ts';
import type { NotesLog } from '../notes/notes-log.ts';
import type { VoiceHandOff } from '../notify/types.ts';
import type { FrameSendResult, TextDelivery, TextOutcome } from '../ports.ts';
import type { CallStateView } from './call-lifecycle.ts';
import type { CallMetrics } from './metrics.ts';
import type { ModelLink } from './model-link.ts';
import type { InFlight } from './park.ts';
import type { ReplyFollower, Resend } from './reply-follower.ts';
import type { SpokenOutcomes } from './spoken-outcomes.ts';
import { BridgeError, type SpokenVerb } from './types.ts';
import { DROP_REASONS, handOffText, type HandOffOptions } from './voice-handoff.ts';

export interface CallRequestsDeps {
  link: ModelLink;
  inFlight: InFlight;
  notes: NotesLog;
  metrics: CallMetrics;
  /** The call's state (the bridge's, not the link's), and why it is ending (the stop's reason, for a text the end dropped). */
  call: CallStateView;
  /** A reason a parked call may not wake (the daily cost cap), or null. */
  wakeRefusal?: () => string | null;
  /** Each request's outcome (GET /say/{id}), and what follows the model's reply to it. */
  outcomes: SpokenOutcomes;
  follower: ReplyFollower;
}

const WAITING = 'waiting for a pause in the conversation';

export class CallRequests {
  readonly #d: CallRequestsDeps;

  constructor(deps: CallRequestsDeps) {
    this.#d = deps;
  }

  /**
   * Held while the call reconnects (the model session queues it) or is parked (it wakes the model).
   * Returns the request's id: its outcome is followed to the end (spoken-outcomes.ts).
   */
  say(text: string, source: string, verb: SpokenVerb, route: SayVerb): string {
    const d = this.#d;
    if (!d.call.live()) throw new BridgeError('no_call', 'no live call to speak in');
    const refusal = d.link.state === 'parked' ? d.wakeRefusal?.() : null;
    if (refusal) throw new BridgeError('daily_cap_reached', refusal);
    const id = d.outcomes.create(route, text, source, WAITING);
    const delivery: TextDelivery = verb === 'message' ? { asMessage: true } : {};
    const resend = () => d.link.sendText(text, d.inFlight.text(this.#followed(id, delivery, null), 120_000));
    d.link.sendText(text, d.inFlight.text(this.#followed(id, delivery, resend), 120_000));
    // One note per request, with what was sent (never the announce wording) and which verb it was.
    d.notes.append({ kind: 'say', text, speaker: `${source} · ${verb}` });
    return id;
  }

  /**
   * Notifier's voice mode. Resolves `delivered` when the text was handed to the model (written on
   * the live session as its next turn), or why it was dropped: no live call, the call ended while
   * it waited, the queue overflowed, or no idle moment came within `withinMs`. During a reconnect
   * the text waits in the session's queue like any other. A text handed to the call carries the id
   * of its spoken outcome.
   */
  speak(text: string, options: HandOffOptions): Promise<VoiceHandOff> {
    const d = this.#d;
    if (!d.call.live() || (d.link.state === 'parked' && d.wakeRefusal?.()))
      return Promise.resolve({ delivered: false, reason: 'no live call' });
    const id = d.outcomes.create('notify', text, 'notification', WAITING);
    const send = (t: string, delivery: TextDelivery) => {
      // Sent again (its claim already made: no second confirmation) if the service cancels its reply before a word.
      const resend = () => d.link.sendText(t, d.inFlight.text(this.#followed(id, {}, null), options.withinMs + 5000));
      d.link.sendText(t, d.inFlight.text(this.#followed(id, delivery, resend), options.withinMs + 5000));
    };
    return handOffText(send, text, options).then((handOff) =>
      handOff.delivered
        ? { ...handOff, id }
        : { ...handOff, id, sentInstead: (instead: string) => d.outcomes.sentInstead(id, handOff.reason, instead) },
    );
  }

  /**
   * `delivery` that also settles the request's record: handed over (the follower takes it on, with
   * `resend` for a reply the service cancels before a word) or dropped.
   */
  #followed(id: string, delivery: TextDelivery, resend: Resend | null): TextDelivery {
    const d = this.#d;
    return {
      ...delivery,
      onSettled: (outcome: TextOutcome) => {
        if (outcome.delivered) d.follower.handedOver(id, resend);
        else {
          const why = d.call.reason;
          const words = DROP_REASONS[outcome.reason];
          d.outcomes.settle(id, 'dropped', {
            reason: outcome.reason === 'call_ended' && why ? `${words} (${why})` : words,
          });
        }
        delivery.onSettled?.(outcome);
      },
    };
  }

  /**
   * A parked call is a call: the frame wakes the model (or joins a wake under way) and goes to the
   * session the wake opened. Refused only without a call, in an outage (no session to see it), or
   * when the daily cap keeps the model parked.
   */
  async sendFrame(image: Buffer): Promise<FrameSendResult> {
    const d = this.#d;
    if (!d.call.live()) throw new BridgeError('no_call', 'no live call to send the frame to');
    if (d.link.state === 'parked' || d.link.state === 'waking') {
      const refusal = d.link.state === 'parked' ? d.wakeRefusal?.() : null;
      if (refusal) throw new BridgeError('daily_cap_reached', refusal);
      await d.link.wake('frame');
    }
    const model = d.link.session;
    if (!model || d.call.state !== 'connected') throw new BridgeError('no_call', 'no live call to send the frame to');
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
