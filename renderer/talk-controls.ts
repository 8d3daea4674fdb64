// Mute and push-to-talk in the call panel: a mute toggle, a push-to-talk switch and a hold-to-talk
// button (pointer or Space/Enter held down), with the state in words in a live region. What is shown
// is what the core confirmed (POST answers and `talk` events), never the click alone.
import type { TalkState } from '../main/core/api-types.ts';
import { api, friendlyMessage } from './api.ts';
import { byId } from './dom.ts';

/** The state in words (also the live region's text). */
export function describeTalk(state: TalkState): string {
  if (state.muted) return 'Muted: the model hears nobody.';
  if (state.ptt.enabled) return state.ptt.held ? 'Talking: the model hears you while you hold.' : 'Push-to-talk: hold “Hold to talk” (or your talk key) to be heard.';
  return 'Live: the model hears the call.';
}

export class TalkControls {
  readonly #mute = byId<HTMLButtonElement>('mute-button');
  readonly #ptt = byId<HTMLInputElement>('ptt-mode');
  readonly #hold = byId<HTMLButtonElement>('hold-button');
  readonly #live = byId('talk-state');
  #state: TalkState | null = null;
  #usable = false;
  /** The hold this page asked for (so a release is sent only for our own hold). */
  #holding = false;
  readonly #onError: (message: string) => void;

  constructor(onError: (message: string) => void) {
    this.#onError = onError;
    this.#mute.addEventListener('click', () => void this.#send(() => api.mute(!(this.#state?.muted ?? false))));
    this.#ptt.addEventListener('change', () => void this.#send(() => api.ptt({ enabled: this.#ptt.checked })));
    const press = () => this.#press(true);
    const release = () => this.#press(false);
    this.#hold.addEventListener('pointerdown', (event) => {
      this.#hold.setPointerCapture?.(event.pointerId);
      press();
    });
    for (const type of ['pointerup', 'pointercancel', 'lostpointercapture', 'blur'] as const) this.#hold.addEventListener(type, release);
    this.#hold.addEventListener('keydown', (event) => {
      if ((event.key === ' ' || event.key === 'Enter') && !event.repeat) {
        event.preventDefault();
        press();
      }
    });
    this.#hold.addEventListener('keyup', (event) => {
      if (event.key === ' ' || event.key === 'Enter') {
        event.preventDefault();
        release();
      }
    });
    // A click (keyboard or pointer) must not toggle anything: holding is the action.
    this.#hold.addEventListener('click', (event) => event.preventDefault());
  }

  /** Live and signed in: the controls act; otherwise they are held and say nothing they have not confirmed. */
  setUsable(usable: boolean): void {
    this.#usable = usable;
    if (!usable && this.#holding) this.#press(false);
    this.#render();
  }

  apply(state: TalkState | undefined): void {
    if (!state) return;
    this.#state = state;
    this.#render();
  }

  #press(held: boolean): void {
    if (held === this.#holding) return;
    if (held && (!this.#usable || !this.#state?.ptt.enabled)) return;
    this.#holding = held;
    this.#hold.setAttribute('aria-pressed', String(held));
    void this.#send(() => api.ptt({ held }));
  }

  async #send(action: () => Promise<TalkState>): Promise<void> {
    try {
      this.apply(await action());
    } catch (err) {
      this.#onError(friendlyMessage(err));
      this.#render();
    }
  }

  #render(): void {
    const state = this.#state;
    const usable = this.#usable && state !== null;
    this.#mute.disabled = !usable;
    this.#ptt.disabled = !usable;
    this.#mute.setAttribute('aria-pressed', String(state?.muted ?? false));
    this.#mute.textContent = state?.muted ? 'Unmute' : 'Mute';
    this.#mute.classList.toggle('danger', state?.muted ?? false);
    this.#ptt.checked = state?.ptt.enabled ?? false;
    this.#hold.disabled = !usable || !state.ptt.enabled;
    this.#hold.setAttribute('aria-pressed', String(state?.ptt.held ?? false));
    this.#live.dataset.talk = !state ? 'unknown' : state.to_model ? 'open' : 'closed';
    const text = !usable ? '' : describeTalk(state);
    if (this.#live.textContent !== text) this.#live.textContent = text;
  }
}
