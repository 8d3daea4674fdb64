// A small incremental parser for the sidecar's server-sent events, so the main process follows
// `/events` like any other client (the same API the dashboard and curl use).
import type { SidecarEvent } from '../core/api-types.ts';

const EVENT_TYPES: ReadonlySet<string> = new Set(['state', 'note', 'metrics', 'levels', 'schedule', 'talk']);

export class SseParser {
  #buffer = '';

  /** Feed decoded text; returns the complete events it finished. Comments and unknown types are skipped. */
  push(chunk: string): SidecarEvent[] {
    this.#buffer += chunk.replace(/\r\n?/g, '\n');
    const events: SidecarEvent[] = [];
    let end: number;
    while ((end = this.#buffer.indexOf('\n\n')) !== -1) {
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      let type = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') type = value;
        else if (field === 'data') data.push(value);
      }
      if (!EVENT_TYPES.has(type) || data.length === 0) continue;
      try {
        events.push({ type, data: JSON.parse(data.join('\n')) } as SidecarEvent);
      } catch {
        // A malformed event is dropped; the stream goes on.
      }
    }
    return events;
  }
}
