// The model's turn as the bridge sees it, for every provider: opened by the model's first output
// on a socket, cut by an interruption (the bridge mutes playback until the turn completes), ended
// by the service or by the end of the socket that carried it (else the next reply would stay
// muted). Output after an interruption with no end between means the service moved on: the cut
// turn ends there. The provider says when each of these happens in its protocol: Gemini by its
// serverContent (gemini/model-output.ts), the Realtime wire by its responses (response.created opens,
// a barge-in's response.cancel cuts, response.done ends: realtime-wire/reply.ts), GPT-Live by the
// gaps in its audio stream (openai/live/audio-turns.ts).
export class ModelTurn<S> {
  #open = false;
  #socket: S | null = null;
  #interruptPending = false;

  /** The model is saying or doing something (its turn is open). */
  get open(): boolean {
    return this.#open;
  }

  /** `interrupted` came and its end has not. */
  get interruptPending(): boolean {
    return this.#interruptPending;
  }

  /** The turn is open on this socket (the model answers there). */
  openOn(socket: S): boolean {
    return this.#open && this.#socket === socket;
  }

  /**
   * Model output on `socket`. `endedCut`: an interrupted turn ended here (the caller tells the
   * bridge `turnComplete` first); `wasOpen`: the output continues a turn already open.
   */
  output(socket: S): { wasOpen: boolean; endedCut: boolean } {
    const endedCut = this.#interruptPending;
    if (endedCut) {
      this.#interruptPending = false;
      this.#open = false;
    }
    const wasOpen = this.#open;
    this.#open = true;
    this.#socket = socket;
    return { wasOpen, endedCut };
  }

  /** The service cut the turn on `socket` (the user spoke over it). */
  interrupted(socket: S): void {
    this.#interruptPending = true;
    this.#socket = socket;
  }

  /** The service ended the turn. False when none was open. */
  complete(): boolean {
    const was = this.#open || this.#interruptPending;
    this.#open = false;
    this.#interruptPending = false;
    return was;
  }

  /** `socket` ended: true when it carried the open (or cut) turn, which is over now. */
  socketEnded(socket: S): boolean {
    if (this.#socket !== socket || !(this.#open || this.#interruptPending)) return false;
    this.#open = false;
    this.#interruptPending = false;
    this.#socket = null;
    return true;
  }
}
