// How long an OpenAI session takes to be ready after the socket opens, for both OpenAI fakes
// (Realtime: upgrade → `session.created`; GPT-Live: `session.start` → `session.started`), so a
// client that sends before the session is ready (a parked call waking) is caught losing it, and
// wake → ready figures include a setup time like the service's.
//
// The figure is an ASSUMPTION: OpenAI publishes no session-setup time and none was found in issues
// or reports (searched 2026-11-27). 300 ms = a TLS + WebSocket handshake to api.openai.com (two to
// three round trips, ~100–150 ms from Europe) plus the session's creation, in the range reported
// for Gemini Live's setup ("hundreds of ms", field notes; its fake takes 150 ms by default).
// Tests that need none pass `setupDelayMs: 0`.
export const OPENAI_SETUP_DELAY_MS = 300;

interface Socketish {
  readonly isOpen: boolean;
}

/** One session's setup at a time per connection, finished after the delay unless the socket closed. */
export class SetupDelay {
  readonly #ms: number;
  readonly #pending = new WeakSet<Socketish>();

  constructor(ms: number | undefined) {
    this.#ms = ms ?? OPENAI_SETUP_DELAY_MS;
  }

  /** A setup for `connection` is under way (a second one is refused, as once started). */
  pending(connection: Socketish): boolean {
    return this.#pending.has(connection);
  }

  /** Runs `ready` after the delay (at once with 0) if the connection is still open. */
  run(connection: Socketish, ready: () => void): void {
    if (this.#ms <= 0) return ready();
    this.#pending.add(connection);
    setTimeout(() => {
      this.#pending.delete(connection);
      if (connection.isOpen) ready();
    }, this.#ms).unref();
  }
}
