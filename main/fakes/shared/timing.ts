// How a model fake paces itself: the provider's published timing (service-timing.ts) BY DEFAULT,
// each figure overridable by the fake's options (a test that needs instant replies passes 0).
import { SERVICE_TIMING, type ServiceTimingProvider } from './service-timing.ts';

export interface FakeTimingOptions {
  /** Audio per server message, ms (default 40: "tens of ms per chunk", protocols.md). */
  chunkMs?: number;
  /** Wall time between reply messages, ms; default chunkMs / deliveryRealtimeFactor. */
  paceMs?: number;
  /** Reply audio arrives this many times faster than it plays (default SERVICE_TIMING). */
  deliveryRealtimeFactor?: number;
  /**
   * The service's end of turn → the reply's first audio, ms (default SERVICE_TIMING). Applies to a
   * reply started while that turn end is unanswered (auto replies, and scripts the test starts on
   * the turn); a reply's own `delayMs` overrides it. 0: at once.
   */
  firstAudioAfterTurnEndMs?: number;
}

export interface FakeTiming {
  readonly chunkMs: number;
  /** null: chunkMs / deliveryRealtimeFactor for each reply's own chunk length. */
  readonly paceMs: number | null;
  readonly deliveryRealtimeFactor: number;
  readonly firstAudioAfterTurnEndMs: number;
}

export const DEFAULT_CHUNK_MS = 40;

export function fakeTiming(provider: ServiceTimingProvider, options: FakeTimingOptions): FakeTiming {
  const modelled = SERVICE_TIMING[provider];
  const factor = options.deliveryRealtimeFactor ?? modelled.deliveryRealtimeFactor;
  if (!(factor > 0)) throw new Error(`deliveryRealtimeFactor must be > 0 (got ${factor})`);
  return {
    chunkMs: options.chunkMs ?? DEFAULT_CHUNK_MS,
    paceMs: options.paceMs ?? null,
    deliveryRealtimeFactor: factor,
    firstAudioAfterTurnEndMs: options.firstAudioAfterTurnEndMs ?? modelled.firstAudioAfterTurnEndMs,
  };
}

/** The wall time between two messages of `chunkMs` of audio. */
export function paceFor(timing: FakeTiming, chunkMs: number): number {
  return timing.paceMs ?? chunkMs / timing.deliveryRealtimeFactor;
}
