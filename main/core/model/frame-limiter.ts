// At most one frame per interval reaches the model; when frames arrive faster, the newest waits
// for the next slot and any older waiting frame is dropped (and counted). A screen feeder sending
// 10 fps therefore costs the model 1 fps of the freshest picture, never a growing backlog.
import type { FrameSendResult } from '../ports.ts';
import type { TimerClock, TimerHandle } from '../contracts/clock.ts';
import { assertSupportedImage } from './frame-converter.ts';

export interface FrameStats {
  sent: number;
  dropped: number;
}

interface PendingFrame {
  image: Buffer;
  resolve: (result: FrameSendResult) => void;
  reject: (err: unknown) => void;
}

export interface FrameLimiterOptions {
  clock: TimerClock;
  intervalMs?: number;
  /** Converts and sends one frame; called at most once per interval. */
  send: (image: Buffer) => Promise<FrameSendResult>;
}

export class FrameLimiter {
  readonly #clock: TimerClock;
  readonly #intervalMs: number;
  readonly #send: (image: Buffer) => Promise<FrameSendResult>;
  #lastSentAt: number | null = null;
  #pending: PendingFrame | null = null;
  #timer: TimerHandle | null = null;
  #closed = false;
  /** One conversion/send at a time: otherwise a slow older frame could land after a newer one. */
  #inFlight = false;
  readonly stats: FrameStats = { sent: 0, dropped: 0 };

  constructor(options: FrameLimiterOptions) {
    this.#clock = options.clock;
    this.#intervalMs = options.intervalMs ?? 1000;
    this.#send = options.send;
  }

  /** Resolves when this frame is sent, or as `dropped` when a newer one replaced it. Bad bytes reject. */
  submit(image: Buffer): Promise<FrameSendResult> {
    try {
      // Checked before queueing, so garbage never displaces a good waiting frame.
      assertSupportedImage(image);
    } catch (err) {
      return Promise.reject(err);
    }
    if (this.#closed) return Promise.resolve(this.#drop('closed'));
    if (this.#pending) this.#pending.resolve(this.#drop('rate_limited'));
    const result = new Promise<FrameSendResult>((resolve, reject) => {
      this.#pending = { image, resolve, reject };
    });
    this.#schedule();
    return result;
  }

  close(): void {
    this.#closed = true;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#pending) this.#pending.resolve(this.#drop('closed'));
    this.#pending = null;
  }

  #drop(reason: string): FrameSendResult {
    this.stats.dropped++;
    return { status: 'dropped', reason };
  }

  #schedule(): void {
    if (this.#timer || !this.#pending || this.#inFlight) return;
    const wait = this.#lastSentAt === null ? 0 : this.#lastSentAt + this.#intervalMs - this.#clock.now();
    if (wait <= 0) this.#flush();
    else this.#timer = this.#clock.setTimeout(() => this.#flush(), wait);
  }

  #flush(): void {
    this.#timer = null;
    const frame = this.#pending;
    this.#pending = null;
    if (!frame) return;
    this.#lastSentAt = this.#clock.now();
    this.#inFlight = true;
    this.#send(frame.image)
      .then(
        (result) => {
          if (result.status === 'sent') this.stats.sent++;
          else this.stats.dropped++;
          frame.resolve(result);
        },
        (err: unknown) => frame.reject(err),
      )
      .finally(() => {
        this.#inFlight = false;
        if (!this.#closed) this.#schedule();
      });
  }
}
