// The connection-state story every provider's session shares: connecting → connected, reconnecting
// after an unexpected close (one reconnect at a time; a planned rotation may skip announcing it),
// error when the service stays away, disconnected after close(); plus back-off sleeps that close()
// cuts short.
import type { ConnectionState } from '../../api-types.ts';
import { Sleeps, type TimerClock } from '../../contracts/clock.ts';
import { FatalSessionError, openWithFallback, type FallbackLoop } from './fallback.ts';

export interface ReconnectOptions {
  /** false: a planned rotation, the call does not go through `reconnecting`. Default true. */
  announce?: boolean;
}

export class SessionLifecycle {
  #state: ConnectionState = 'disconnected';
  #closed = false;
  #reconnecting = false;
  readonly #sleeps: Sleeps;
  readonly #onState: (state: ConnectionState, reason?: string) => void;
  reconnects = 0;

  constructor(clock: TimerClock, onState: (state: ConnectionState, reason?: string) => void) {
    this.#sleeps = new Sleeps(clock);
    this.#onState = onState;
  }

  get state(): ConnectionState {
    return this.#state;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get reconnecting(): boolean {
    return this.#reconnecting;
  }

  set(state: ConnectionState, reason?: string): void {
    if (state === this.#state && state !== 'error') return;
    this.#state = state;
    this.#onState(state, reason);
  }

  /** The first connection: rejects with a readable reason (and state `error`) when it fails. */
  async start(connect: () => Promise<void>): Promise<void> {
    this.set('connecting');
    try {
      await connect();
      this.set('connected');
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.set('error', reason);
      throw new Error(reason, { cause: err });
    }
  }

  /** After an unexpected close: one reconnect at a time; `connected` says what survived. */
  async reconnect(
    reason: string,
    connect: () => Promise<void>,
    survived: () => string,
    options: ReconnectOptions = {},
  ): Promise<void> {
    if (this.#reconnecting || this.#closed) return;
    this.#reconnecting = true;
    this.reconnects++;
    if (options.announce ?? true) this.set('reconnecting', reason);
    try {
      await connect();
      if (!this.#closed) this.set('connected', survived());
    } catch (err) {
      if (!this.#closed) this.set('error', err instanceof Error ? err.message : String(err));
    } finally {
      this.#reconnecting = false;
    }
  }

  /** Marks the session closed and wakes every back-off sleep; false when it already was. */
  close(): boolean {
    if (this.#closed) return false;
    this.#closed = true;
    this.#sleeps.wakeAll();
    return true;
  }

  /** Opens a connection with model fallback and back-off; a connection that arrives after close() is discarded. */
  async open<C>(
    loop: Omit<FallbackLoop<C>, 'sleep' | 'isClosed'>,
    discard: (connection: C) => void,
  ): Promise<{ connection: C; index: number }> {
    const result = await openWithFallback({ ...loop, sleep: (ms) => this.sleep(ms), isClosed: () => this.#closed });
    if (this.#closed) {
      discard(result.connection);
      throw new FatalSessionError('session closed');
    }
    return result;
  }

  sleep(ms: number): Promise<void> {
    return this.#sleeps.sleep(ms);
  }
}
