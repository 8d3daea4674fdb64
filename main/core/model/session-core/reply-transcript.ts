// The transcript of the model's reply in progress, for the history a provider without resumption
// replays on its next socket (the Realtime wire, GPT-Live): recorded whole when the reply finished,
// with "…" when it was cut (a barge-in, the model yielding, or its socket ending), so the model's
// next socket knows its last words were not all heard.
export class ReplyTranscript {
  #text = '';
  readonly #record: (text: string) => void;

  constructor(record: (text: string) => void) {
    this.#record = record;
  }

  /** A new reply began: nothing of it said yet. */
  reset(): void {
    this.#text = '';
  }

  add(delta: string): void {
    this.#text += delta;
  }

  /** The service's whole transcript of the reply (it replaces the deltas). */
  set(text: string): void {
    this.#text = text;
  }

  /** The reply is over; `cut`: it was not heard to its end. */
  end(cut: boolean): void {
    if (this.#text) this.#record(cut ? `${this.#text} …` : this.#text);
    this.#text = '';
  }
}
