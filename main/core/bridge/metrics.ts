// Call metrics kept cheaply enough for the 20 ms path: plain counters and fixed-bucket latency
// histograms (0.25 ms buckets up to 2 s, one Uint32Array each), so recording never allocates.
import type { LatencySummary } from '../api-types.ts';

const BUCKET_MS = 0.25;
const BUCKETS = 8000; // 2 s; slower samples land in the last bucket

export class LatencyHistogram {
  readonly #counts = new Uint32Array(BUCKETS);
  #total = 0;

  record(ms: number): void {
    const bucket = ms <= 0 ? 0 : Math.min(BUCKETS - 1, Math.floor(ms / BUCKET_MS));
    this.#counts[bucket]! += 1;
    this.#total += 1;
  }

  get count(): number {
    return this.#total;
  }

  /** Upper edge of the bucket holding the q-quantile, in ms; null when empty. */
  quantile(q: number): number | null {
    if (this.#total === 0) return null;
    const rank = Math.max(1, Math.ceil(q * this.#total));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.#counts[i]!;
      if (seen >= rank) return (i + 1) * BUCKET_MS;
    }
    return BUCKETS * BUCKET_MS;
  }

  summary(): LatencySummary {
    return { count: this.#total, p50_ms: this.quantile(0.5), p95_ms: this.quantile(0.95), p99_ms: this.quantile(0.99) };
  }

  reset(): void {
    this.#counts.fill(0);
    this.#total = 0;
  }
}

export class CallMetrics {
  framesIn = 0;
  /** Speaker frames dropped unheard because the user muted (or released push-to-talk). */
  framesMuted = 0;
  framesOut = 0;
  bytesToModel = 0;
  bytesFromModel = 0;
  /** Receive frames dropped because a speaker's queue overflowed (packets faster than the clock). */
  droppedFrames = 0;
  reconnects = 0;
  interrupts = 0;
  /** Of the interrupts: cut by us the moment a speaker talked over the bot (barge-in.ts), before any service signal. */
  localBargeIns = 0;
  /** Playback held on a speaker's onset not yet told from echo (call-audio.ts holdPlayback). */
  bargeInHolds = 0;
  /** Of those, holds no speech confirmed: the reply played on after a 90 ms gap. */
  bargeInHoldsReleased = 0;
  framesSent = 0;
  framesDropped = 0;
  /** Utterances ended, and the quiet each sent after its last loud frame (ms: summed, the longest): what the service's detector was given to end the turn on (issue #52). */
  turnsEnded = 0;
  turnSilenceMsTotal = 0;
  turnSilenceMsMax = 0;

  /** An utterance ended after `quietMs` of quiet sent (voice gate's close). */
  turnEnded(quietMs: number): void {
    this.turnsEnded += 1;
    this.turnSilenceMsTotal += quietMs;
    if (quietMs > this.turnSilenceMsMax) this.turnSilenceMsMax = quietMs;
  }
  readonly ingress = new LatencyHistogram();
  readonly egress = new LatencyHistogram();
  readonly bargeIn = new LatencyHistogram();

  snapshot(): Record<string, number | LatencySummary> {
    return {
      frames_in: this.framesIn,
      frames_muted: this.framesMuted,
      frames_out: this.framesOut,
      bytes_to_model: this.bytesToModel,
      bytes_from_model: this.bytesFromModel,
      dropped_frames: this.droppedFrames,
      reconnects: this.reconnects,
      interrupts: this.interrupts,
      local_barge_ins: this.localBargeIns,
      barge_in_holds: this.bargeInHolds,
      barge_in_holds_released: this.bargeInHoldsReleased,
      image_frames_sent: this.framesSent,
      image_frames_dropped: this.framesDropped,
      turns_ended: this.turnsEnded,
      turn_silence_ms_total: this.turnSilenceMsTotal,
      turn_silence_ms_max: this.turnSilenceMsMax,
      ingress_latency: this.ingress.summary(),
      egress_latency: this.egress.summary(),
      barge_in_latency: this.bargeIn.summary(),
    };
  }
}
