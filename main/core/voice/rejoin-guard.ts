// The one choke point for gateway op 4 (voice state update). @discordjs/voice 0.19.2 rejoins
// immediately on every voice close code except 4014, with no back-off: a server that keeps
// refusing (4017 "DAVE required", a dead session) turns that into a storm of op 4 payloads.
// Wrapping the guild's adapter lets us delay every rejoin with exponential back-off, cap the
// number of rejoins, and refuse all of them once a close code says retrying is pointless.
import type { DiscordGatewayAdapterCreator } from '@discordjs/voice';

export interface RejoinPolicy {
  /** Rejoins allowed before giving up (the first join is not counted). */
  maxRejoins: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Ready this long without trouble resets the rejoin budget. */
  stableAfterMs: number;
}

export const DEFAULT_REJOIN_POLICY: RejoinPolicy = {
  maxRejoins: 4,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  stableAfterMs: 30_000,
};

interface VoicePayload {
  op: number;
  d: { channel_id?: string | null };
}

export class RejoinGuard {
  readonly policy: RejoinPolicy;
  /** Rejoin payloads let through (immediately or after back-off) since the last reset. */
  rejoins = 0;
  #joined = false;
  #stopped: string | null = null;
  #pending: NodeJS.Timeout | null = null;
  #stableTimer: NodeJS.Timeout | null = null;
  #onGiveUp: (reason: string) => void;

  constructor(policy: RejoinPolicy, onGiveUp: (reason: string) => void) {
    this.policy = policy;
    this.#onGiveUp = onGiveUp;
  }

  get stoppedReason(): string | null {
    return this.#stopped;
  }

  wrap(inner: DiscordGatewayAdapterCreator): DiscordGatewayAdapterCreator {
    return (methods) => {
      const implementation = inner(methods);
      return {
        sendPayload: (payload) => this.#send(payload as VoicePayload, () => implementation.sendPayload(payload)),
        destroy: () => {
          this.#cancelPending();
          implementation.destroy();
        },
      };
    };
  }

  /** The connection reached Ready: start the clock that restores the rejoin budget. */
  markReady(): void {
    this.#clearStable();
    this.#stableTimer = setTimeout(() => (this.rejoins = 0), this.policy.stableAfterMs);
    this.#stableTimer.unref();
  }

  markUnstable(): void {
    this.#clearStable();
  }

  /** No further joins: a fatal close code, or the budget ran out. */
  stop(reason: string): void {
    if (this.#stopped) return;
    this.#stopped = reason;
    this.#cancelPending();
    this.#clearStable();
  }

  dispose(): void {
    this.#cancelPending();
    this.#clearStable();
  }

  #send(payload: VoicePayload, send: () => boolean): boolean {
    const isLeave = payload.op === 4 && (payload.d.channel_id ?? null) === null;
    if (payload.op !== 4 || isLeave) {
      this.#cancelPending();
      return send();
    }
    if (this.#stopped) return false;
    if (!this.#joined) {
      this.#joined = true;
      return send();
    }
    this.rejoins += 1;
    if (this.rejoins > this.policy.maxRejoins) {
      const reason = `voice rejoin limit reached (${this.policy.maxRejoins} attempts)`;
      this.stop(reason);
      this.#onGiveUp(reason);
      return false;
    }
    const delay = Math.min(this.policy.baseDelayMs * 2 ** (this.rejoins - 1), this.policy.maxDelayMs);
    this.#cancelPending();
    this.#pending = setTimeout(() => {
      this.#pending = null;
      if (!this.#stopped) send();
    }, delay);
    return true;
  }

  #cancelPending(): void {
    if (this.#pending) clearTimeout(this.#pending);
    this.#pending = null;
  }

  #clearStable(): void {
    if (this.#stableTimer) clearTimeout(this.#stableTimer);
    this.#stableTimer = null;
  }
}
