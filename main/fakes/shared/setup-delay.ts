// How long a session takes to be ready after the client asks for it, for every model fake (Gemini:
// `setup` → `setupComplete`; Realtime: upgrade → `session.created`; GPT-Live: `session.start` →
// `session.started`), so a client that sends before the session is ready (a parked call waking) is
// caught losing it, and wake → ready figures include a setup time like the service's. The default
// is the provider's SERVICE_TIMING.setupMs (service-timing.ts, with its sources); tests that need
// none pass `setupDelayMs: 0`.
import type { SocketTimers } from './paced-reply.ts';

interface SetupSocket extends SocketTimers {
  readonly isOpen: boolean;
  /** The delay its setup was scheduled with (for tests and benches). */
  setupDelayMs: number | null;
}

/** One session's setup at a time per connection, finished after the delay unless the socket closed. */
export class SetupDelay {
  readonly #ms: () => number;
  readonly #pending = new WeakSet<SetupSocket>();

  /** `ms` is read at each setup (a test may change the fake's delay between two). */
  constructor(ms: number | (() => number)) {
    this.#ms = typeof ms === 'number' ? () => ms : ms;
  }

  /** A setup for `connection` is under way (a second one is refused, as once started). */
  pending(connection: SetupSocket): boolean {
    return this.#pending.has(connection);
  }

  /** Runs `ready` after the delay (at once with 0); the timer dies with the socket. */
  run(connection: SetupSocket, ready: () => void): void {
    const ms = this.#ms();
    connection.setupDelayMs = Math.max(0, ms);
    if (ms <= 0) return ready();
    this.#pending.add(connection);
    connection.later(() => {
      this.#pending.delete(connection);
      if (connection.isOpen) ready();
    }, ms);
  }
}
