// The one in-process fan-out for what the dashboard watches (`GET /events`). Modules publish;
// the SSE route subscribes. Publishing never throws into the publisher and never blocks it.
import type { SidecarEvent } from './api-types.ts';

export type SidecarEventListener = (event: SidecarEvent) => void;

export class EventHub {
  readonly #listeners = new Set<SidecarEventListener>();

  publish(event: SidecarEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A broken subscriber (e.g. a closed SSE socket) must not break the bridge or other subscribers.
      }
    }
  }

  subscribe(listener: SidecarEventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get subscriberCount(): number {
    return this.#listeners.size;
  }
}
