// Mixes the allowed speakers' 20 ms receive frames into one stream on the bridge's 20 ms clock.
//
// Mix at 48 kHz mono, then downsample once (Downsampler48kTo16k on the mixer output):
// the resampler is linear, so resampling the sum equals summing the resampled speakers, at 1/N of
// the cost and with one filter state instead of one per speaker that would have to be created,
// flushed and discarded as people start and stop talking. It also puts the (non-linear) limiter
// before the anti-alias filter, so limiter harmonics above 8 kHz are filtered rather than aliased.
import { FRAME_SAMPLES_48K } from '../ports.ts';
import { softLimitInto } from './pcm.ts';

const FRAME_VALUES = FRAME_SAMPLES_48K;

export interface SpeakerMixerOptions {
  /** Frames queued per speaker before the oldest is dropped (bounds added latency). Default 5 (100 ms). */
  maxQueueFrames?: number;
  /** Ticks without a packet after which a speaker with an empty queue is forgotten. Default 50 (1 s). */
  idleTicks?: number;
  /** Parked queues kept for returning speakers (each holds maxQueueFrames x 1920 bytes). Default 16. */
  maxKnownSpeakers?: number;
}

export interface SpeakerMixerStats {
  speakers: number;
  mixedFrames: number;
  /** Oldest frames dropped because a speaker's queue was full (packets arriving faster than the clock). */
  droppedFrames: number;
  /** Ticks where a known speaker had nothing queued and contributed silence. */
  starvedTicks: number;
  /** Frames whose length was not 960 samples (padded with silence or truncated). */
  malformedFrames: number;
}

class SpeakerQueue {
  id = '';
  active = false;
  readonly slots: Int16Array[];
  head = 0;
  count = 0;
  lastPushTick = 0;

  constructor(capacity: number) {
    this.slots = Array.from({ length: capacity }, () => new Int16Array(FRAME_VALUES));
  }
}

export class SpeakerMixer {
  readonly #maxQueue: number;
  readonly #idleTicks: number;
  /**
   * Speakers being mixed: the first #activeCount entries of an array that never shrinks (push/pop
   * on a JS array can trim and regrow its backing store, an allocation per talk spurt).
   */
  #active: SpeakerQueue[] = [];
  #activeCount = 0;
  /**
   * Every queue, active or parked. A departed speaker's queue stays here under its id, so someone
   * who pauses and talks again reuses it without touching the map (whose rehashing allocates); a
   * new speaker beyond the cap takes over a parked queue.
   */
  readonly #byId = new Map<string, SpeakerQueue>();
  readonly #maxKnown: number;
  readonly #sum = new Float64Array(FRAME_VALUES);
  readonly #out = new Int16Array(FRAME_VALUES);
  #tick = 0;
  #mixed = 0;
  #dropped = 0;
  #starved = 0;
  #malformed = 0;

  constructor(options: SpeakerMixerOptions = {}) {
    this.#maxQueue = Math.max(1, Math.floor(options.maxQueueFrames ?? 5));
    this.#idleTicks = Math.max(1, Math.floor(options.idleTicks ?? 50));
    this.#maxKnown = Math.max(1, Math.floor(options.maxKnownSpeakers ?? 16));
  }

  /** Queue one 20 ms 48 kHz mono frame, 960 samples (copied; the caller may reuse its buffer). */
  push(speakerId: string, frame: Int16Array): void {
    let q = this.#byId.get(speakerId);
    if (q === undefined) q = this.#adopt(speakerId);
    if (!q.active) {
      q.active = true;
      q.head = 0;
      q.count = 0;
      if (this.#activeCount === this.#active.length) this.#active = [...this.#active, q];
      else this.#active[this.#activeCount] = q;
      this.#activeCount++;
    }
    q.lastPushTick = this.#tick;
    if (q.count === this.#maxQueue) {
      q.head = (q.head + 1) % this.#maxQueue;
      q.count--;
      this.#dropped++;
    }
    const slot = q.slots[(q.head + q.count) % this.#maxQueue]!;
    if (frame.length === FRAME_VALUES) slot.set(frame);
    else {
      this.#malformed++;
      const n = Math.min(frame.length, FRAME_VALUES);
      slot.set(n === frame.length ? frame : frame.subarray(0, n));
      slot.fill(0, n);
    }
    q.count++;
  }

  /**
   * Advance the 20 ms clock: take one frame from every speaker that has one and mix them. Returns a
   * reused 960-sample 48 kHz mono buffer (valid until the next call), or null when nobody had a
   * frame queued (feed the voice gate silence for that tick). Never returns a stale frame.
   */
  mixNext(): Int16Array | null {
    this.#tick++;
    const sum = this.#sum;
    const out = this.#out;
    let contributors = 0;
    let only: Int16Array | null = null;
    for (let s = this.#activeCount - 1; s >= 0; s--) {
      const q = this.#active[s]!;
      if (q.count === 0) {
        if (this.#tick - q.lastPushTick > this.#idleTicks) this.#forget(s);
        else this.#starved++;
        continue;
      }
      const frame = q.slots[q.head]!;
      q.head = (q.head + 1) % this.#maxQueue;
      q.count--;
      if (contributors === 0) {
        only = frame;
        for (let i = 0; i < FRAME_VALUES; i++) sum[i] = frame[i]!;
      } else {
        for (let i = 0; i < FRAME_VALUES; i++) sum[i] += frame[i]!;
      }
      contributors++;
    }
    if (contributors === 0) return null;
    this.#mixed++;
    // One speaker passes bit-exact (it cannot overflow); a sum goes through the soft limiter.
    if (contributors === 1) out.set(only!);
    else softLimitInto(sum, out, FRAME_VALUES);
    return out;
  }

  /**
   * True when mixing now loses nobody's audio and lets no queue grow: every active speaker has a
   * frame queued, or one speaker already has two (a whole frame ahead of someone who is late or has
   * stopped). Lets the bridge mix on packet arrival (no clock wait for the common one-speaker case)
   * and fall back to its 20 ms tick only for the last frame of a talk spurt. The second rule is what
   * keeps many speakers balanced: without it every mix forced by the clock while one speaker was
   * momentarily late left that speaker a frame deeper for good, until its queue overflowed (10
   * speakers: a third of all frames dropped). Mixing whoever is ahead, with the late speakers
   * starved for that frame, brings the queues back to the same depth.
   */
  readyToMix(): boolean {
    if (this.#activeCount === 0) return false;
    let allQueued = true;
    for (let s = 0; s < this.#activeCount; s++) {
      const count = this.#active[s]!.count;
      if (count >= 2) return true;
      if (count === 0) allQueued = false;
    }
    return allQueued;
  }

  /** Speakers being mixed (heard within the last `idleTicks` mixes). */
  get activeSpeakers(): number {
    return this.#activeCount;
  }

  /** Forget all queued audio and speakers (a new call). Counters are kept. */
  reset(): void {
    while (this.#activeCount > 0) this.#forget(this.#activeCount - 1);
  }

  removeSpeaker(speakerId: string): void {
    const q = this.#byId.get(speakerId);
    if (q !== undefined && q.active) this.#forget(this.#active.indexOf(q));
  }

  /** Speaker ids currently tracked (allocates; for status, not the hot path). */
  speakerIds(): string[] {
    return this.#active.slice(0, this.#activeCount).map((q) => q.id);
  }

  stats(): SpeakerMixerStats {
    return {
      speakers: this.#activeCount,
      mixedFrames: this.#mixed,
      droppedFrames: this.#dropped,
      starvedTicks: this.#starved,
      malformedFrames: this.#malformed,
    };
  }

  #forget(index: number): void {
    const q = this.#active[index]!;
    const lastIndex = --this.#activeCount;
    this.#active[index] = this.#active[lastIndex]!;
    this.#active[lastIndex] = q;
    q.active = false;
    q.count = 0;
  }

  /** A queue for a speaker never seen (or long gone): a new one, or a parked one taken over. */
  #adopt(speakerId: string): SpeakerQueue {
    let q: SpeakerQueue | undefined;
    if (this.#byId.size >= this.#maxKnown) {
      for (const candidate of this.#byId.values()) {
        if (!candidate.active) {
          q = candidate;
          break;
        }
      }
      if (q !== undefined) this.#byId.delete(q.id);
    }
    q ??= new SpeakerQueue(this.#maxQueue);
    q.id = speakerId;
    q.active = false;
    this.#byId.set(speakerId, q);
    return q;
  }
}
