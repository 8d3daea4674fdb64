// How the call's state follows its two connections: Discord voice and the model (its session's own
// state, and the model link's: parked, waking, down, open). A lost voice connection reconnects or
// ends the call; a lost model is retried by the link for as long as the call lasts (never its end).
import type { BridgeState, ConnectionState } from '../api-types.ts';
import type { CallMetrics } from './metrics.ts';
import type { ModelLink, ModelLinkState } from './model-link.ts';
import type { ParkTimer } from './park.ts';

export interface CallStatesDeps {
  state: () => BridgeState;
  /** Connected, reconnecting or parked inside a call that is still going. */
  live: () => boolean;
  transition: (state: BridgeState, reason?: string) => void;
  /** Discord is gone: the call ends in `error`. */
  fail: (reason: string) => void;
  metrics: CallMetrics;
  link: () => ModelLink;
  voiceState: () => ConnectionState;
  parkTimer: () => ParkTimer;
}

export class CallStates {
  readonly #d: CallStatesDeps;
  /** The current model session's own state (disconnected while none is bound). */
  modelState: ConnectionState = 'disconnected';

  constructor(deps: CallStatesDeps) {
    this.#d = deps;
  }

  voiceChanged(state: ConnectionState, reason?: string): void {
    const d = this.#d;
    if (!d.live()) return;
    if (state === 'reconnecting') {
      d.metrics.reconnects += 1;
      d.transition('reconnecting', `discord: ${reason ?? 'voice connection lost'}`);
    } else if (state === 'connected' && (this.modelState === 'connected' || d.link().state === 'parked')) {
      this.linkChanged(d.link().state);
    } else if (state === 'error' || state === 'disconnected') {
      d.fail(`discord: ${reason ?? 'voice connection ended'}`);
    }
  }

  modelChanged(state: ConnectionState, reason?: string): void {
    const d = this.#d;
    this.modelState = state;
    if (d.state() !== 'connected' && d.state() !== 'reconnecting') return;
    if (state === 'reconnecting') {
      d.metrics.reconnects += 1;
      d.transition('reconnecting', `model: ${reason ?? 'connection lost'}`);
    } else if (state === 'connected' && d.voiceState() === 'connected') {
      d.transition('connected');
    } else if (state === 'error' || state === 'disconnected') {
      // An outage longer than the session's own retries: the call stays, the link keeps trying.
      d.link().lost(reason ?? 'connection ended');
    }
  }

  /** The model link parked, woke, lost or reopened the session: the call's state says so. */
  linkChanged(state: ModelLinkState, reason?: string): void {
    const d = this.#d;
    if (state === 'open') d.parkTimer().start();
    else d.parkTimer().stop();
    if (!d.live()) return;
    if (state === 'parked') d.transition('parked', reason);
    else if (state === 'waking') d.transition('reconnecting', `waking the model (${reason ?? 'wake'})`);
    else if (state === 'down') d.transition('reconnecting', reason);
    else if (state === 'open' && d.voiceState() === 'connected' && this.modelState === 'connected') d.transition('connected');
  }
}
