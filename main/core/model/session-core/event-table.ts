// A protocol's server events as a table keyed by their `type` (the Realtime wire, GPT-Live): one
// small handler per event instead of one switch over all of them. A handler that reads the event's
// fields validates it first; an event that fails its schema is skipped and reported, never trusted.
import type { ZodType } from 'zod';

export type EventHandler<E, C> = (event: E, connection: C) => void;

export class EventTable<E extends { type: string }, C> {
  readonly #handlers: ReadonlyMap<string, EventHandler<E, C>>;

  /** Types with no handler (a status, a future event) are ignored. */
  constructor(handlers: Readonly<Record<string, EventHandler<E, C>>>) {
    this.#handlers = new Map(Object.entries(handlers));
  }

  dispatch(event: E, connection: C): void {
    this.#handlers.get(event.type)?.(event, connection);
  }
}

/** A handler that gets the event parsed by `schema`; `malformed` gets an event that does not fit it. */
export function validated<E, T, C>(
  schema: ZodType<T>,
  handle: (data: T, connection: C) => void,
  malformed: (event: E) => void,
): EventHandler<E, C> {
  return (event, connection) => {
    const parsed = schema.safeParse(event);
    if (parsed.success) handle(parsed.data, connection);
    else malformed(event);
  };
}

/** `validated` with one `malformed` for a whole table: `on(schema, handle)` per event type. */
export function validating<E, C>(malformed: (event: E) => void) {
  return <T>(schema: ZodType<T>, handle: (data: T, connection: C) => void): EventHandler<E, C> =>
    validated(schema, handle, malformed);
}
