// Which scheduled notifications just became `delivered`. Schedule events carry only the entries
// that changed, so an entry seen `delivered` for the first time was delivered just now; ids already
// reported are remembered (bounded) so a repeated event does not notify twice.
import type { ScheduledNotification } from '../core/api-types.ts';

const REMEMBERED = 10_000;

export class DeliveryWatcher {
  readonly #reported = new Set<string>();

  observe(changed: readonly ScheduledNotification[]): ScheduledNotification[] {
    const fresh = changed.filter((e) => e.state === 'delivered' && !this.#reported.has(e.id));
    for (const e of fresh) this.#reported.add(e.id);
    // Sets iterate in insertion order: drop the oldest beyond the bound.
    for (const id of this.#reported) {
      if (this.#reported.size <= REMEMBERED) break;
      this.#reported.delete(id);
    }
    return fresh;
  }
}
