// The call's own state (idle → connecting → connected ⇄ reconnecting/parked → stopping → stopped,
// or error), apart from what drives it: the bridge starts and stops calls, call-states.ts follows
// the two connections. Each transition is logged, noted, published and emitted once.
import type { Logger } from 'pino';
import type { BridgeState, BridgeStateEvent } from '../api-types.ts';
import type { EventHub } from '../event-hub.ts';
import type { NotesLog } from '../notes/notes-log.ts';

/** The call's state as its parts read it (created first: every part may ask it). */
export interface CallStateView {
  readonly state: BridgeState;
  readonly reason: string | undefined;
  /** Connected, reconnecting or parked inside a call that is still going (the model link holds input meanwhile). */
  live(): boolean;
}

export interface CallLifecycleOptions {
  logger: Logger;
  notes: NotesLog;
  hub: EventHub;
  /** The bridge's own `state` event. */
  emitter: { emit(event: 'state', data: BridgeStateEvent): boolean };
}

export class CallLifecycle implements CallStateView {
  readonly #o: CallLifecycleOptions;
  #state: BridgeState = 'idle';
  #reason: string | undefined;
  #since = Date.now() / 1000;

  constructor(options: CallLifecycleOptions) {
    this.#o = options;
  }

  get state(): BridgeState {
    return this.#state;
  }

  get reason(): string | undefined {
    return this.#reason;
  }

  /** When the state last changed (unix seconds). */
  get since(): number {
    return this.#since;
  }

  live(): boolean {
    return this.#state === 'connected' || this.#state === 'reconnecting' || this.#state === 'parked';
  }

  transition(state: BridgeState, reason?: string): void {
    const previous = this.#state;
    if (previous === state && reason === this.#reason) return;
    this.#state = state;
    this.#reason = reason;
    this.#since = Date.now() / 1000;
    const event: BridgeStateEvent = { state, previous, ts: this.#since, ...(reason ? { reason } : {}) };
    this.#o.logger.info({ state, previous, reason }, 'bridge state');
    this.#o.notes.append({ kind: 'state', text: reason ? `${state}: ${reason}` : state });
    this.#o.hub.publish({ type: 'state', data: event });
    this.#o.emitter.emit('state', event);
  }
}
