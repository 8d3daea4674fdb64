// Mute and push-to-talk: whether the users' voices may reach the model right now. One small state
// holder for the whole process (not per call): muting before a call joins it muted, and every
// shell (tray, global keys, dashboard, CLI) sets the same state through the sidecar.
//   muted                       → nothing reaches the model
//   push-to-talk on, key up     → nothing reaches the model
//   push-to-talk on, key held   → the voices reach it (unless muted)
import type { TalkState } from '../api-types.ts';

export interface TalkControlOptions {
  /** Push-to-talk mode at start-up (DISCORD_VOICE_LIVE_PTT_MODE). */
  pttMode: boolean;
  /** Called once per real change (not for a repeat of the current value), with the new state. */
  onChange: (state: TalkState) => void;
}

/** True when the users' audio may go to the model in this state. */
export function audioReachesModel(muted: boolean, pttEnabled: boolean, pttHeld: boolean): boolean {
  return !muted && (!pttEnabled || pttHeld);
}

export class TalkControl {
  #muted = false;
  #pttEnabled: boolean;
  #pttHeld = false;
  readonly #onChange: (state: TalkState) => void;

  constructor(options: TalkControlOptions) {
    this.#pttEnabled = options.pttMode;
    this.#onChange = options.onChange;
  }

  /** Whether the users' audio reaches the model now. */
  get open(): boolean {
    return audioReachesModel(this.#muted, this.#pttEnabled, this.#pttHeld);
  }

  state(): TalkState {
    return { muted: this.#muted, ptt: { enabled: this.#pttEnabled, held: this.#pttHeld }, to_model: this.open };
  }

  setMuted(muted: boolean): TalkState {
    return this.#update(() => (this.#muted = muted), this.#muted !== muted);
  }

  /** Switching push-to-talk off or on forgets a hold (a key held across the switch starts released). */
  setPttEnabled(enabled: boolean): TalkState {
    return this.#update(() => {
      this.#pttEnabled = enabled;
      this.#pttHeld = false;
    }, this.#pttEnabled !== enabled);
  }

  setPttHeld(held: boolean): TalkState {
    return this.#update(() => (this.#pttHeld = held), this.#pttHeld !== held);
  }

  #update(apply: () => void, changes: boolean): TalkState {
    if (!changes) return this.state();
    apply();
    const state = this.state();
    this.#onChange(state);
    return state;
  }
}
