// Mute and push-to-talk in the call panel: a mute toggle, a push-to-talk switch and a hold-to-talk
// button (pointer or Space/Enter held down), with the state in words in a live region. What is shown
// is what the core confirmed (POST answers and `talk` events), never the click alone.
import type { TalkState } from '../main/core/api-types.ts';
import { api, friendlyMessage } from './api.ts';
import type { CallView } from './call-view-state.ts';
import { byId } from './dom.ts';

export class TalkControls {
  readonly #mute = byId<HTMLButtonElement>('mute-button');
  readonly #ptt = byId<HTMLInputElement>('ptt-mode');
  readonly #hold = byId<HTMLButtonElement>('hold-button');
  readonly #live = byId('talk-state');
  #state: TalkState | null = null;
  /** What the panel's one derivation (call-view-state.ts) allows; null until it ran. */
  #view: CallView | null = null;
  /** The hold this page asked for (so a release is sent only for our own hold). */
  #holding = false;
  readonly #onError: (message: string) => void;
  readonly #onChange: () => void;

  constructor(onError: (message: string) => void, onChange: () => void) {
    this.#onError = onError;
    this.#onChange = onChange;
    this.#mute.addEventListener('click', () => this.toggleMute());
    this.#ptt.addEventListener('change', () => void this.#send(() => api.ptt({ enabled: this.#ptt.checked })));
    const press = () => this.#press(true);
    const release = () => this.#press(false);
    this.#hold.addEventListener('pointerdown', (event) => {
      this.#hold.setPointerCapture?.(event.pointerId);
      press();
    });
    for (const type of ['pointerup', 'pointercancel', 'lostpointercapture', 'blur'] as const)
      this.#hold.addEventListener(type, release);
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

  /** The confirmed mute / push-to-talk state (null until the core said). */
  get state(): TalkState | null {
    return this.#state;
  }

  /** The panel's derived view: which controls act, and the line that says why the others wait. */
  setView(view: CallView): void {
    this.#view = view;
    if (!view.hold.enabled && this.#holding) this.#press(false);
    this.#render();
  }

  /** Toggle mute (the page's `M` key), when the view allows it. */
  toggleMute(): void {
    if (this.#view?.mute.enabled) void this.#send(() => api.mute(!(this.#state?.muted ?? false)));
  }

  /** A new confirmed state; the owner re-derives the view (the badge and the line follow mute too). */
  apply(state: TalkState | undefined): void {
    if (!state) return;
    this.#state = state;
    this.#onChange();
  }

  #press(held: boolean): void {
    if (held === this.#holding) return;
    if (held && !this.#view?.hold.enabled) return;
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
    const view = this.#view;
    this.#mute.disabled = !view?.mute.enabled;
    this.#ptt.disabled = !view?.ptt.enabled;
    this.#mute.setAttribute('aria-pressed', String(state?.muted ?? false));
    this.#mute.querySelector('.label')!.textContent = state?.muted ? 'Unmute' : 'Mute';
    this.#mute.classList.toggle('danger', state?.muted ?? false);
    this.#ptt.checked = state?.ptt.enabled ?? false;
    this.#hold.disabled = !view?.hold.enabled;
    this.#hold.setAttribute('aria-pressed', String(state?.ptt.held ?? false));
    this.#live.dataset.talk = !state
      ? 'unknown'
      : state.muted
        ? 'muted'
        : view?.phase !== 'in-call'
          ? 'no-call'
          : state.to_model
            ? 'open'
            : 'closed';
    const text = view?.talkLine ?? '';
    if (this.#live.textContent !== text) this.#live.textContent = text;
  }
}
