// Usage a service reports as a running total per socket (GPT-Live's `session.usage.updated` counts
// audio seconds since its session began, never increments): the call's total is every finished
// socket's last total plus the current socket's. A repeated or out-of-order report never counts twice.
export class SocketTotals {
  #finished = 0;
  #current = 0;

  /** A running total from the current socket. */
  report(total: number): void {
    this.#current = Math.max(this.#current, total);
  }

  /** A new socket starts counting from zero. */
  nextSocket(): void {
    this.#finished += this.#current;
    this.#current = 0;
  }

  get total(): number {
    return this.#finished + this.#current;
  }
}
