// The connection-state story both OpenAI sessions share: connecting → connected, reconnecting after
// an unexpected close (one reconnect at a time), error when the service stays away, disconnected
// after close(); plus backoff sleeps that close() cuts short.
import type { ConnectionState } from '../../../api-types.ts';
import type { Clock } from '../../clock.ts';
import { FatalSessionError, openWithFallback, type FallbackLoop } from './fallback.ts';

export class SessionLifecycle {
  #state: ConnectionState = 'disconnected';
  #closed = false;
  #reconnecting = false;
  readonly #sleepers = new Set<() => void>();
  readonly #clock: Clock;
  readonly #onState: (state: ConnectionState, reason?: string) => void;
  reconnects = 0;

  constructor(clock: Clock, onState: (state: ConnectionState, reason?: string) => void) {
    this.#clock = clock;
    this.#onState = onState;
  }

  get state(): ConnectionState {
    return this.#state;
  }

  get closed(): boolean {
    return this.#closed;
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
  async reconnect(reason: string, connect: () => Promise<void>, survived: () => string): Promise<void> {
    if (this.#reconnecting || this.#closed) return;
    this.#reconnecting = true;
    this.reconnects++;
    this.set('reconnecting', reason);
    try {
      await connect();
      if (!this.#closed) this.set('connected', survived());
    } catch (err) {
      if (!this.#closed) this.set('error', err instanceof Error ? err.message : String(err));
    } finally {
      this.#reconnecting = false;
    }
  }

  /** Marks the session closed and wakes every backoff sleep; false when it already was. */
  close(): boolean {
    if (this.#closed) return false;
    this.#closed = true;
    for (const wake of this.#sleepers) wake();
    return true;
  }

  /** Opens a connection with model fallback and backoff; a connection that arrives after close() is discarded. */
  async open<C>(loop: Omit<FallbackLoop<C>, 'sleep' | 'isClosed'>, discard: (connection: C) => void): Promise<{ connection: C; index: number }> {
    const result = await openWithFallback({ ...loop, sleep: (ms) => this.sleep(ms), isClosed: () => this.#closed });
    if (this.#closed) {
      discard(result.connection);
      throw new FatalSessionError('session closed');
    }
    return result;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        this.#sleepers.delete(wake);
        this.#clock.clearTimeout(timer);
        resolve();
      };
      const timer = this.#clock.setTimeout(wake, ms);
      this.#sleepers.add(wake);
    });
  }
}
