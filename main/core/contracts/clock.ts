// Time is injected so rate limits, backoff, switch-over deadlines and the schedule can be tested
// without waiting on the wall clock (the machine is shared and noisy; tests never assert real
// durations). One clock for the whole core: `now()` is the wall clock in epoch milliseconds, because
// the schedule compares it with stored fire times and a laptop's suspend must count as time passed
// (a monotonic clock stops during suspend); durations measured on it are wrong by a clock step at
// worst, which every user of it tolerates (a stall watch fires, a back-off is cut short).

export interface TimerHandle {
  readonly id: number;
}

/** Reads the time: epoch milliseconds. All that the schedule and the notifiers need. */
export interface Clock {
  now(): number;
}

/** A clock that also runs timers (the model sessions' deadlines and back-off). */
export interface TimerClock extends Clock {
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle | null | undefined): void;
}

let nextTimerId = 1;

export const systemClock: TimerClock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const timer = setTimeout(fn, Math.max(0, ms));
    timer.unref?.();
    const handle = { id: nextTimerId++, timer };
    return handle;
  },
  clearTimeout(handle) {
    if (handle) clearTimeout((handle as TimerHandle & { timer: ReturnType<typeof setTimeout> }).timer);
  },
};

/**
 * A clock that only moves when told to. Timers fire synchronously inside `advance()` in due order.
 * Exported from core (not test/) because the demo and benchmarks may drive it too.
 */
export class ManualClock implements TimerClock {
  #now: number;
  #timers = new Map<number, { due: number; fn: () => void }>();

  constructor(start = 0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = nextTimerId++;
    this.#timers.set(id, { due: this.#now + Math.max(0, ms), fn });
    return { id };
  }

  clearTimeout(handle: TimerHandle | null | undefined): void {
    if (handle) this.#timers.delete(handle.id);
  }

  /** Move time forward, firing every timer that falls due on the way. */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      let nextId = -1;
      let nextDue = Infinity;
      for (const [id, timer] of this.#timers) {
        if (timer.due <= end && timer.due < nextDue) {
          nextDue = timer.due;
          nextId = id;
        }
      }
      if (nextId < 0) break;
      const timer = this.#timers.get(nextId)!;
      this.#timers.delete(nextId);
      this.#now = Math.max(this.#now, timer.due);
      timer.fn();
    }
    this.#now = end;
  }

  get pendingTimers(): number {
    return this.#timers.size;
  }
}

/** Sleeps on a clock that can all be woken at once (a session that closes stops waiting on back-off). */
export class Sleeps {
  readonly #clock: TimerClock;
  readonly #wakers = new Set<() => void>();

  constructor(clock: TimerClock) {
    this.#clock = clock;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        this.#wakers.delete(wake);
        this.#clock.clearTimeout(timer);
        resolve();
      };
      const timer = this.#clock.setTimeout(wake, ms);
      this.#wakers.add(wake);
    });
  }

  wakeAll(): void {
    for (const wake of this.#wakers) wake();
  }
}
