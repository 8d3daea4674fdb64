// How the call's state follows its two connections: Discord voice and the model (its session's own
// state, and the model link's: parked, waking, down, open). A lost voice connection reconnects or
// ends the call; a lost model is retried by the link for as long as the call lasts (never its end).
import type { ConnectionState } from '../api-types.ts';
import type { CallLifecycle } from './call-lifecycle.ts';
import type { CallMetrics } from './metrics.ts';
import type { ModelLink, ModelLinkState } from './model-link.ts';
import type { ParkTimer } from './park.ts';

export interface CallStatesDeps {
  call: Pick<CallLifecycle, 'state' | 'live' | 'transition'>;
  /** Discord is gone: the call ends in `error` (the bridge tears it down). */
  owner: { fail(reason: string): unknown };
  metrics: CallMetrics;
  link: Pick<ModelLink, 'state' | 'lost'>;
  voice: { readonly state: ConnectionState };
  parkTimer: Pick<ParkTimer, 'start' | 'stop'>;
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
    if (!d.call.live()) return;
    if (state === 'reconnecting') {
      d.metrics.reconnects += 1;
      d.call.transition('reconnecting', `discord: ${reason ?? 'voice connection lost'}`);
    } else if (state === 'connected' && (this.modelState === 'connected' || d.link.state === 'parked')) {
      this.linkChanged(d.link.state);
    } else if (state === 'error' || state === 'disconnected') {
      void d.owner.fail(`discord: ${reason ?? 'voice connection ended'}`);
    }
  }

  modelChanged(state: ConnectionState, reason?: string): void {
    const d = this.#d;
    this.modelState = state;
    if (d.call.state !== 'connected' && d.call.state !== 'reconnecting') return;
    if (state === 'reconnecting') {
      d.metrics.reconnects += 1;
      d.call.transition('reconnecting', `model: ${reason ?? 'connection lost'}`);
    } else if (state === 'connected' && d.voice.state === 'connected') {
      d.call.transition('connected');
    } else if (state === 'error' || state === 'disconnected') {
      // An outage longer than the session's own retries: the call stays, the link keeps trying.
      d.link.lost(reason ?? 'connection ended');
    }
  }

  /** The model link parked, woke, lost or reopened the session: the call's state says so. */
  linkChanged(state: ModelLinkState, reason?: string): void {
    const d = this.#d;
    if (state === 'open') d.parkTimer.start();
    else d.parkTimer.stop();
    if (!d.call.live()) return;
    if (state === 'parked') d.call.transition('parked', reason);
    else if (state === 'waking') d.call.transition('reconnecting', `waking the model (${reason ?? 'wake'})`);
    else if (state === 'down') d.call.transition('reconnecting', reason);
    else if (state === 'open' && d.voice.state === 'connected' && this.modelState === 'connected')
      d.call.transition('connected');
  }
}
