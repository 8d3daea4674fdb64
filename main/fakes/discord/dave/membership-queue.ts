// The fake gateway's membership changes, one at a time (group.ts): joins, leaves and transitions
// queue up, and the next starts only when the current commit has been announced and executed, as
// Discord's voice gateway serialises them.
export class MembershipQueue {
  readonly #tasks: (() => void)[] = [];
  readonly #blocked: () => boolean;

  /** `blocked`: a change is still in flight (or the group closed); the queue waits. */
  constructor(blocked: () => boolean) {
    this.#blocked = blocked;
  }

  enqueue(task: () => void): void {
    this.#tasks.push(task);
    if (this.#tasks.length === 1) this.#runNext();
  }

  /** The current change is done: start the next one. */
  next(): void {
    this.#tasks.shift();
    this.#runNext();
  }

  clear(): void {
    this.#tasks.length = 0;
  }

  #runNext(): void {
    if (this.#blocked()) return;
    this.#tasks[0]?.();
  }
}
