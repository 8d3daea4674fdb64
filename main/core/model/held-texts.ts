// Text handed to the model (/say, voice notifications) is "delivered" once it is written on a live
// socket, but a socket can die right after (a service that accepts a setup and then closes, a drop),
// and a resumed session knows the conversation only as of its handle. So texts written on a socket
// stay held here until a resumable handle from that socket covers them (with transparent
// resumption: a handle whose consumed index reaches the text's message); when the socket ends first,
// they are handed back to be delivered again on the next one. Never `queued` and silently dropped —
// and never said twice: once the model began answering a text on its socket (the user hears the
// reply), the text is not written again when that socket ends before a handle covered it.

interface SentText<C> {
  on: C;
  /** The client message number the text went out as on `on`. */
  index: number;
  text: string;
  /** The model's reply to it began on `on`: written again, it would be said twice. */
  answered?: true;
}

export class HeldTexts<C> {
  /** Texts from the public sendText not yet written (by their formatted text). */
  readonly #expected = new Map<string, number>();
  #sent: SentText<C>[] = [];

  /** A text the caller handed over (the only kind held: internal texts have their own recovery). */
  expect(text: string): void {
    this.#expected.set(text, (this.#expected.get(text) ?? 0) + 1);
  }

  /** The queue wrote `texts` on `on` as message `index`. */
  written(on: C, index: number, texts: readonly string[]): void {
    for (const text of texts) {
      const count = this.#expected.get(text);
      if (!count) continue;
      if (count === 1) this.#expected.delete(text);
      else this.#expected.set(text, count - 1);
      this.#sent.push({ on, index, text });
    }
  }

  /** A resumable handle from `on`: it covers what `on` consumed (up to `index` when the service says). */
  covered(on: C, index: number | undefined): void {
    if (this.#sent.length === 0) return;
    this.#sent = this.#sent.filter((sent) => sent.on !== on || (index !== undefined && sent.index > index));
  }

  /** The model's output began on `on`: every text written there before it is being answered. */
  replyBegan(on: C): void {
    for (const sent of this.#sent) if (sent.on === on) sent.answered = true;
  }

  /** `on` ended: the texts no handle covered and the model had not begun answering, to be written again on the next socket. */
  lost(on: C): { again: string[]; answered: number } {
    const mine = this.#sent.filter((sent) => sent.on === on);
    if (mine.length > 0) this.#sent = this.#sent.filter((sent) => sent.on !== on);
    return {
      again: mine.filter((sent) => !sent.answered).map((sent) => sent.text),
      answered: mine.filter((sent) => sent.answered).length,
    };
  }

  /** A text handed back to the queue is expected again (it will be written again). */
  expectAgain(texts: readonly string[]): void {
    for (const text of texts) this.expect(text);
  }
}
