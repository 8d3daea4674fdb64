// Which scheduled notifications became `delivered` since the last schedule snapshot. The first
// snapshot only seeds the memory, so starting the app does not replay old deliveries.
import type { ScheduledNotification } from '../core/api-types.ts';

export class DeliveryWatcher {
  #known: Map<string, ScheduledNotification['state']> | null = null;

  observe(entries: readonly ScheduledNotification[]): ScheduledNotification[] {
    const previous = this.#known;
    this.#known = new Map(entries.map((e) => [e.id, e.state]));
    if (!previous) return [];
    return entries.filter((e) => e.state === 'delivered' && previous.get(e.id) !== 'delivered');
  }
}
