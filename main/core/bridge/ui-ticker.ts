// The call's UI updates (levels 10 times a second, metrics once a second), driven by the audio
// itself. While frames flow (a packet in or a frame out, every 20 ms), the frame that finds the
// period passed runs the update: a call with audio wakes no timer of its own for its UI, and each
// wake-up costs 100-250 µs on a shared VM (docs/performance.md, "Wake-ups"). When frames stop, a
// timer takes over, so the meters still fall to zero and the last events say "silent"; the update
// itself says when to stop (a second of quiet), and nothing runs until the next frame or start().

import type { LevelReading } from '../api-types.ts';
import type { EventHub } from '../event-hub.ts';
import type { CallMetrics } from './metrics.ts';

const SILENT: LevelReading = { rms: 0, peak: 0 };

export interface UiTickerOptions {
  periodMs: number;
  /** Publishes one update per tick; true when the call has been quiet long enough to stop updating. */
  updates: { tick(): boolean };
  now: () => number;
}

export class UiTicker {
  readonly #periodMs: number;
  readonly #updates: { tick(): boolean };
  readonly #now: () => number;
  #running = false;
  #nextDueAt = 0;
  /** Runs the updates while no frames flow. */
  #interval: NodeJS.Timeout | null = null;
  /** Re-armed by every frame; fires when frames stopped for 1.5 periods and hands over to the interval. */
  #framesWatchdog: NodeJS.Timeout | null = null;

  constructor(options: UiTickerOptions) {
    this.#periodMs = options.periodMs;
    this.#updates = options.updates;
    this.#now = options.now;
  }

  get running(): boolean {
    return this.#running;
  }

  /** Activity without a frame (joined, someone started talking): updates run until quiet. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#nextDueAt = this.#now() + this.#periodMs;
    this.#startInterval();
  }

  /** One audio frame (20 ms, either direction). Hot path: a comparison and a timer refresh. */
  frame(now: number): void {
    if (!this.#running) {
      this.#running = true;
      this.#nextDueAt = now + this.#periodMs;
    }
    if (this.#interval) this.#stopInterval();
    if (this.#framesWatchdog) this.#framesWatchdog.refresh();
    else {
      this.#framesWatchdog = setTimeout(() => this.#framesStopped(), this.#periodMs * 1.5);
      this.#framesWatchdog.unref();
    }
    if (now >= this.#nextDueAt) {
      this.#nextDueAt = now + this.#periodMs;
      this.#run();
    }
  }

  stop(): void {
    this.#running = false;
    this.#stopInterval();
    if (this.#framesWatchdog) clearTimeout(this.#framesWatchdog);
    this.#framesWatchdog = null;
  }

  #framesStopped(): void {
    this.#framesWatchdog = null;
    if (this.#running) this.#startInterval();
  }

  #run(): void {
    if (this.#updates.tick()) this.stop();
  }

  #startInterval(): void {
    if (this.#interval) return;
    this.#interval = setInterval(() => this.#run(), this.#periodMs);
    this.#interval.unref();
  }

  #stopInterval(): void {
    if (this.#interval) clearInterval(this.#interval);
    this.#interval = null;
  }
}

const METRICS_EVERY_UI_TICKS = 10;
/** UI ticks with both meters silent and nobody speaking after which UI updates pause (1 s). */
const QUIET_UI_TICKS = 10;

export interface CallUiUpdatesOptions {
  /** readLevels: current levels, resetting the meters' peak hold (read here, 10 times a second, never per frame). */
  audio: { readLevels(): { input: LevelReading; output: LevelReading }; syncMetrics(): void };
  speaking: ReadonlySet<string>;
  hub: EventHub;
  metrics: CallMetrics;
}

/**
 * One call's UI update: levels (10 Hz, from UiTicker, driven by the audio frames while they flow)
 * and metrics (1 Hz, and with the last quiet update). tick() is true after a second of silence.
 */
export class CallUiUpdates {
  readonly #o: CallUiUpdatesOptions;
  levels: { input: LevelReading; output: LevelReading } = { input: SILENT, output: SILENT };
  #ticks = 0;
  #quietTicks = 0;

  constructor(options: CallUiUpdatesOptions) {
    this.#o = options;
  }

  tick(): boolean {
    const o = this.#o;
    this.levels = o.audio.readLevels();
    o.hub.publish({ type: 'levels', data: { ...this.levels, speaking: [...o.speaking] } });
    const quiet = this.levels.input.peak === 0 && this.levels.output.peak === 0 && o.speaking.size === 0;
    this.#quietTicks = quiet ? this.#quietTicks + 1 : 0;
    const stop = this.#quietTicks >= QUIET_UI_TICKS;
    if (++this.#ticks % METRICS_EVERY_UI_TICKS === 0 || stop) {
      o.audio.syncMetrics();
      o.hub.publish({ type: 'metrics', data: o.metrics.snapshot() });
    }
    if (stop) this.#quietTicks = 0; // the last events said "silent"
    return stop;
  }

  reset(): void {
    this.levels = { input: SILENT, output: SILENT };
  }
}
