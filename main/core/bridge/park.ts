// When a quiet call parks its model (model-link.ts closes the session; the call stays): after
// `afterMs` with nothing sent to or heard from the model, no utterance open, no tool call running
// and no text (a /say, a notification, a reminder) waiting to be spoken or answered.
//
// Nothing runs per tick: activity only stamps a time (the 20 ms paths call touch()), and one timer
// wakes at the earliest moment the call could park, checks, and sleeps again for what is left.
import type { TextDelivery } from '../ports.ts';

export interface ParkTimerOptions {
  /** Quiet this long parks the model; 0 never parks (read at each start: a saved setting applies). */
  afterMs: () => number;
  /** Monotonic ms clock. */
  now: () => number;
  /** Work outside the call that waits on it (an agent's question to the owner): why it may not park now, or null. */
  holds?: (() => string | null) | undefined;
  /** What parks (model-link.ts). */
  link: { park(reason: string): unknown };
}

export class ParkTimer {
  readonly #o: ParkTimerOptions;
  /** What the call has in flight: each start and end of it counts as activity. */
  readonly inFlight = new InFlight(() => this.touch());
  #lastActivity = 0;
  #timer: NodeJS.Timeout | null = null;
  #afterMs = 0;

  constructor(options: ParkTimerOptions) {
    this.#o = options;
  }

  /** Something happened (speech sent, model audio, a turn ended): the quiet period starts again. */
  touch(): void {
    this.#lastActivity = this.#o.now();
  }

  /** Arm (a session is open). */
  start(): void {
    this.#afterMs = this.#o.afterMs();
    if (this.#afterMs <= 0) return this.stop();
    this.touch();
    this.#arm(this.#afterMs);
  }

  stop(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #arm(delayMs: number): void {
    this.stop();
    this.#timer = setTimeout(() => this.#check(), Math.max(1, delayMs));
    this.#timer.unref();
  }

  #check(): void {
    this.#timer = null;
    const quietFor = this.#o.now() - this.#lastActivity;
    if (quietFor < this.#afterMs) {
      this.#arm(this.#afterMs - quietFor);
      return;
    }
    const busy = this.inFlight.busy() ?? this.#o.holds?.() ?? null;
    if (busy) {
      // Re-checked a quiet period later: what is in flight ends with activity (a reply, a result).
      this.#arm(this.#afterMs);
      return;
    }
    void this.#o.link.park(`quiet for ${Math.round(quietFor / 1000)} s`);
  }
}

/** What keeps a call from parking: an utterance open, a tool call running, a text not yet handed over. */
export class InFlight {
  #tools = 0;
  #texts = 0;
  #inputOpen = false;
  readonly #onChange: () => void;

  /** `onChange`: something started or ended (counts as activity for the quiet period). */
  constructor(onChange: () => void) {
    this.#onChange = onChange;
  }

  /** A chunk of speech went to the model (per chunk: only stamps the time). */
  inputOpened(): void {
    this.#inputOpen = true;
    this.#onChange();
  }

  inputEnded(): void {
    this.#inputOpen = false;
    this.#onChange();
  }

  toolStarted(): void {
    this.#tools++;
    this.#onChange();
  }

  toolSettled(): void {
    this.#tools = Math.max(0, this.#tools - 1);
    this.#onChange();
  }

  /** Counts a text until its delivery settles (or `guardMs` passes: a provider that never settles). */
  text(delivery: TextDelivery = {}, guardMs: number): TextDelivery {
    this.#texts++;
    this.#onChange();
    let settled = false;
    const settle = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(guard);
      this.#texts = Math.max(0, this.#texts - 1);
      this.#onChange();
    };
    const guard = setTimeout(settle, guardMs);
    guard.unref();
    return {
      ...delivery,
      onSettled: (outcome) => {
        settle();
        delivery.onSettled?.(outcome);
      },
    };
  }

  reset(): void {
    this.#tools = 0;
    this.#texts = 0;
    this.#inputOpen = false;
  }

  busy(): string | null {
    if (this.#inputOpen) return 'someone is talking to the model';
    if (this.#tools > 0) return `${this.#tools} tool call(s) running`;
    if (this.#texts > 0) return `${this.#texts} text(s) waiting to be spoken`;
    return null;
  }
}
