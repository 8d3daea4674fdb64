// A call's turn settings (issue #52): the patience the service's detector is given and the silence
// cap after which the bridge ends a turn the service has not ended. Taken from the settings at each
// call's start (or the call's own options), handed to every session the call opens, and changed
// mid-call through setPatience (the session sends it where its service takes it).
import { turnCapFor } from '../audio/end-of-turn.ts';
import { DEFAULT_PATIENCE, type Patience } from '../contracts/patience.ts';
import type { LiveModelSession } from '../ports.ts';

export interface CallTurnSettings {
  patience: Patience;
  /** Quiet ms after which a turn the service has not ended is ended by the bridge. */
  turnSilenceCapMs: number;
}

/** What a call may set for itself (POST /join); absent fields come from the settings. */
export type CallTurnOptions = Partial<CallTurnSettings>;

export const DEFAULT_TURN_SILENCE_CAP_MS = 3000;

export class CallTurn {
  /** The settings, read at each call's start (absent: the defaults). */
  readonly #settings: (() => Partial<CallTurnSettings>) | undefined;
  /** The voice gate, which applies the cap (ms). */
  readonly #gate: { setTurnCap(ms: number): void };
  #patience: Patience = DEFAULT_PATIENCE;
  #capMs = DEFAULT_TURN_SILENCE_CAP_MS;

  constructor(settings: (() => Partial<CallTurnSettings>) | undefined, gate: { setTurnCap(ms: number): void }) {
    this.#settings = settings;
    this.#gate = gate;
  }

  get patience(): Patience {
    return this.#patience;
  }

  /** A call starts: its own options over the settings. */
  begin(options: CallTurnOptions = {}): void {
    const defaults = this.#settings?.() ?? {};
    this.#patience = options.patience ?? defaults.patience ?? DEFAULT_PATIENCE;
    this.#capMs = options.turnSilenceCapMs ?? defaults.turnSilenceCapMs ?? DEFAULT_TURN_SILENCE_CAP_MS;
    this.#gate.setTurnCap(turnCapFor(this.#capMs, this.#patience));
  }

  /** A new patience mid-call: the session in use takes it (where its service can), and every later one. */
  set(patience: Patience, session: LiveModelSession | null): void {
    this.#patience = patience;
    this.#gate.setTurnCap(turnCapFor(this.#capMs, patience));
    session?.setPatience(patience);
  }
}
