// The bridge's stand-in when the bot token, the owner id or the model key is missing: the sidecar,
// notifications and helper tools still work; starting a call says exactly what to configure.
import type { FrameSendResult } from '../ports.ts';
import { BridgeError, type BridgeControl, type BridgeStatus } from './types.ts';

export class UnconfiguredBridge implements BridgeControl {
  readonly #missing: string[];
  readonly #since = Date.now() / 1000;

  constructor(missing: string[]) {
    this.#missing = missing;
  }

  status(): BridgeStatus {
    return {
      state: 'idle',
      reason: `not configured: set ${this.#missing.join(', ')}`,
      since: this.#since,
      connections: { discord: 'disconnected', model: 'disconnected' },
      opus: null,
      levels: { input: { rms: 0, peak: 0 }, output: { rms: 0, peak: 0 } },
      speaking: [],
    };
  }

  async start(): Promise<BridgeStatus> {
    throw new BridgeError('not_configured', `voice calls need ${this.#missing.join(', ')} (see README: Configuration)`);
  }

  async stop(): Promise<{ stopped: boolean; status: BridgeStatus }> {
    return { stopped: false, status: this.status() };
  }

  say(): string {
    throw new BridgeError('no_call', 'no live call to speak in');
  }

  async sendFrame(): Promise<FrameSendResult> {
    throw new BridgeError('no_call', 'no live call to send the frame to');
  }

  metrics(): Record<string, unknown> {
    return {};
  }
}
