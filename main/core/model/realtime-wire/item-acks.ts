// Waiting for the service to acknowledge an item we wrote (an image): it answers with the item
// (`conversation.item.added`/`created`/`done`, by item id) or an `error` naming our event id; no
// answer within the timeout counts as a refusal. Settled once, whichever comes first.
import type { TimerClock } from '../../contracts/clock.ts';
import { imageItem } from './events.ts';
import type { JsonSocket } from './json-socket.ts';

export class ItemAcks {
  readonly #clock: TimerClock;
  readonly #waiting = new Map<string, (error: string | null) => void>();

  constructor(clock: TimerClock) {
    this.#clock = clock;
  }

  /** Resolves with null when acknowledged, else with why not. */
  wait(itemId: string, eventId: string, timeoutMs: number): Promise<string | null> {
    return new Promise<string | null>((resolve) => {
      const timer = this.#clock.setTimeout(() => settle('no acknowledgement from the service'), timeoutMs);
      const settle = (error: string | null): void => {
        this.#clock.clearTimeout(timer);
        this.#waiting.delete(itemId);
        this.#waiting.delete(eventId);
        resolve(error);
      };
      this.#waiting.set(itemId, settle);
      this.#waiting.set(eventId, settle);
    });
  }

  /** Writes image item number `n` on `socket`; resolves like wait(). */
  sendImage(socket: JsonSocket, jpeg: Buffer, n: number, timeoutMs: number): Promise<string | null> {
    const itemId = `item_frame_${n}`;
    const eventId = `evt_frame_${n}`;
    const ack = this.wait(itemId, eventId, timeoutMs);
    socket.send(imageItem(jpeg, itemId, eventId));
    return ack;
  }

  /** The service answered for an item id or an event id (`error`: it refused). */
  settle(id: string, error: string | null): void {
    this.#waiting.get(id)?.(error);
  }

  /** Everything still waiting fails with `reason`. */
  failAll(reason: string): void {
    for (const settle of [...this.#waiting.values()]) settle(reason);
    this.#waiting.clear();
  }
}
