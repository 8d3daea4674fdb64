// The outcome of the text sent from the call panel's say box, under it: "Waiting: …", then
// "Spoken.", "Cut off after "…" — Alice spoke." or "Not spoken: …", from the `say` events on
// /events (the same record as GET /say/{id}; docs/sidecar.md). An event may arrive before the POST
// that created it has answered, so the last few are kept until the page knows which one it sent.
import type { SayOutcome } from '../main/core/api-types.ts';
import { byId, status } from './dom.ts';

const KEPT = 20;

/** The outcome in words (the same wording as the CLI and the notes: main/core/contracts/say-outcome-words.ts). */
export function sayOutcomeWords(o: Pick<SayOutcome, 'outcome' | 'spoken_text' | 'reason'>): string {
  switch (o.outcome) {
    case 'spoken':
      return 'Spoken.';
    case 'cut':
      return `${o.spoken_text ? `Cut off after "${o.spoken_text}"` : 'Cut off before a word was heard'}${o.reason ? ` — ${o.reason}` : ''}.`;
    case 'dropped':
      return `Not spoken: ${o.reason ?? 'dropped'}.`;
    case 'waiting':
      return `Waiting: ${o.reason ?? 'not spoken yet'}.`;
  }
}

const KIND: Record<SayOutcome['outcome'], 'ok' | 'warn' | 'error' | 'info'> = {
  spoken: 'ok',
  cut: 'warn',
  dropped: 'error',
  waiting: 'info',
};

export class SayOutcomeLine {
  #el: HTMLElement | null = null;
  #watching: string | null = null;
  readonly #recent = new Map<string, SayOutcome>();

  /** The say box sent a text and got its id: show its outcome from now on. */
  track(id: string): void {
    this.#watching = id;
    const known = this.#recent.get(id);
    if (known) this.#show(known);
    else this.#show({ outcome: 'waiting', spoken_text: null, reason: 'waiting for a pause in the conversation' });
  }

  /** A `say` event. */
  apply(outcome: SayOutcome): void {
    this.#recent.delete(outcome.id);
    this.#recent.set(outcome.id, outcome);
    if (this.#recent.size > KEPT) this.#recent.delete(this.#recent.keys().next().value!);
    if (outcome.id === this.#watching) this.#show(outcome);
  }

  #show(o: Pick<SayOutcome, 'outcome' | 'spoken_text' | 'reason'>): void {
    this.#el ??= byId('say-outcome');
    this.#el.dataset.outcome = o.outcome;
    status(this.#el, sayOutcomeWords(o), KIND[o.outcome]);
  }
}

/** The one line of the page (the call panel tracks, the event stream applies). */
export const sayOutcomeLine = new SayOutcomeLine();
