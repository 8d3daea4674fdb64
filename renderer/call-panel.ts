// Call panel: state, connections, who is speaking, join/leave, a box to type to the model, level
// meters (the latency plot lives in its own panel). It shows only a state it has confirmed: until the
// first /health answer it says "loading", when /events drops it says "disconnected", signed out it
// says so, and in all three every action is disabled.
import type {
  BridgeState,
  BridgeStateEvent,
  HealthReport,
  LatencySummary,
  LevelReading,
  TalkState,
} from '../main/core/api-types.ts';
import { api, friendlyMessage } from './api.ts';
import { deriveCallView, type CallView } from './call-view-state.ts';
import { byId, setBusy, status } from './dom.ts';
import { describeDave, latencyPoint, levelPercent, missingConfiguration, type PageLink } from './format.ts';
import { LatencyPlot } from './latency-plot.ts';
import { formatMoment } from './moment-format.ts';
import {
  ACTIVITY_WORDS,
  INITIAL_ACTIVITY,
  nextActivity,
  settle,
  THINKING_MS,
  type ActivityTracker,
} from './model-activity.ts';
import { TalkControls } from './talk-controls.ts';
import { sayOutcomeLine } from './say-outcome.ts';

const IN_CALL: ReadonlySet<BridgeState> = new Set(['connecting', 'connected', 'reconnecting', 'parked']);

const LINK_DETAIL: Record<Exclude<PageLink, 'live'>, string> = {
  loading: 'Asking the bridge for the call’s state…',
  disconnected: 'Lost contact with Live Voice Bridge: the call’s state is unknown. Retrying…',
  'signed-out': 'This page is not signed in, so it cannot show or control the call.',
};

export class CallPanel {
  readonly #badge = byId('call-state');
  readonly #detail = byId('call-detail');
  readonly #join = byId<HTMLButtonElement>('join-button');
  readonly #leave = byId<HTMLButtonElement>('leave-button');
  readonly #status = byId('call-status');
  readonly #meterIn = byId('meter-in');
  readonly #meterOut = byId('meter-out');
  readonly #speaking = byId('speaking');
  readonly #sayText = byId<HTMLInputElement>('say-text');
  readonly #saySubmit = byId<HTMLButtonElement>('say-submit');
  readonly #plot = new LatencyPlot(
    byId('latency-plot') as unknown as SVGSVGElement,
    byId('latency-empty'),
    byId('latency-y'),
    byId('latency-x'),
  );
  #state: BridgeState = 'idle';
  #since = 0;
  #reason: string | undefined;
  #link: PageLink = 'loading';
  /** What a call still needs when the bridge is not configured (null when it is). */
  #missing: string | null = null;
  #ownerId: string | undefined;
  /** Connections from the last /health, shown only while the page is live. */
  #facts = { discord: '—', dave: '—', model: '—' };
  /** Mute / push-to-talk (the state is kept across calls: muting before joining joins muted). */
  readonly #talk = new TalkControls(
    (message) => status(this.#status, message, 'error'),
    () => this.#render(),
  );
  readonly #stopTalking = byId<HTMLButtonElement>('stop-talking');
  readonly #activityEl = byId('model-activity');
  #activity: ActivityTracker = INITIAL_ACTIVITY;
  #activityTimer: ReturnType<typeof setTimeout> | undefined;
  #view: CallView | null = null;
  /** Told each derived view: the header pill and the screenshot panel follow the call. */
  readonly #onView: (view: CallView) => void;

  constructor(onView: (view: CallView) => void = () => {}) {
    this.#onView = onView;
    this.#stopTalking.addEventListener('click', () => void this.#interrupt());
    // Page keys: M mutes / unmutes, Esc stops the model talking (not while typing in a field).
    document.addEventListener('keydown', (event) => {
      if (event.ctrlKey || event.metaKey || event.altKey || event.repeat || isTyping(event.target)) return;
      if (event.key === 'm' || event.key === 'M') {
        event.preventDefault();
        this.#talk.toggleMute();
      } else if (event.key === 'Escape' && this.#view?.stopTalking) void this.#interrupt();
    });
    this.#join.addEventListener('click', () => void this.#act(this.#join, 'Joining…', () => api.join()));
    this.#leave.addEventListener('click', () => void this.#act(this.#leave, 'Leaving…', () => api.leave()));
    byId<HTMLFormElement>('say-form').addEventListener('submit', (event) => {
      event.preventDefault();
      void this.#say();
    });
  }

  /** How this page stands with the core; anything but `live` hides the last state and disables actions. */
  setLink(link: PageLink): void {
    this.#link = link;
    this.#render();
  }

  /** Speakers are reported by Discord id; the owner's is shown as a word. */
  setOwnerId(id: string | undefined): void {
    this.#ownerId = id;
  }

  /** Display names by Discord id, from GET /room (asked again when someone unknown speaks). */
  readonly #names = new Map<string, string>();
  /** Ids already asked about (each at most once, so an unnamed speaker does not cause a request per level event). */
  readonly #askedIds = new Set<string>();

  async #learnNames(ids: readonly string[]): Promise<void> {
    const unknown = ids.filter((id) => !this.#names.has(id) && !this.#askedIds.has(id));
    if (!unknown.length) return;
    for (const id of unknown) this.#askedIds.add(id);
    try {
      for (const person of (await api.room()).people) this.#names.set(person.id, person.name);
    } catch {
      // Names are a nicety; ids (and "owner") stay shown.
    }
  }

  #who(id: string): string {
    const name = this.#names.get(id);
    if (id === this.#ownerId) return name ? `${name} (owner)` : `owner (${id})`;
    return name ?? id;
  }

  get state(): BridgeState {
    return this.#state;
  }

  applyHealth(health: HealthReport): void {
    this.#talk.apply(health.talk);
    this.#missing = missingConfiguration(health);
    this.#facts = {
      discord: health.connections.discord,
      dave: describeDave(health.dave),
      model: health.live_model
        ? `${health.connections.model} · ${health.live_model.provider} ${health.live_model.model}`
        : health.connections.model,
    };
    this.#setState(health.bridge.state, health.bridge.since, health.bridge.reason);
    if (health.audio.input_level && health.audio.output_level)
      this.onLevels({ input: health.audio.input_level, output: health.audio.output_level, speaking: [] });
  }

  /** A `talk` event: mute / push-to-talk changed (from here, the tray, a key or the CLI). */
  onTalk(state: TalkState): void {
    this.#talk.apply(state);
  }

  onState(event: BridgeStateEvent): void {
    this.#setState(event.state, event.ts, event.reason);
  }

  onLevels(levels: { input: LevelReading; output: LevelReading; speaking: string[] }): void {
    if (this.#link !== 'live') return;
    if (this.#state === 'connected') this.#showActivity(nextActivity(this.#activity, levels, Date.now()));
    setMeter(this.#meterIn, levelPercent(levels.input.rms));
    setMeter(this.#meterOut, levelPercent(levels.output.rms));
    void this.#learnNames(levels.speaking);
    this.#speaking.textContent = levels.speaking.length
      ? levels.speaking.map((id) => this.#who(id)).join(', ')
      : 'nobody';
    this.#speaking.title = this.#speaking.textContent;
  }

  onMetrics(metrics: Record<string, number | LatencySummary>): void {
    this.#plot.add(latencyPoint(metrics));
  }

  #setState(state: BridgeState, since: number, reason?: string): void {
    this.#state = state;
    this.#since = since;
    this.#reason = reason;
    this.#render();
  }

  #render(): void {
    const state = this.#state;
    const live = this.#link === 'live';
    const view = deriveCallView({ link: this.#link, state, missing: this.#missing, talk: this.#talk.state });
    this.#view = view;
    this.#badge.textContent = view.badgeText;
    this.#badge.dataset.state = view.badgeState;
    byId('muted-mark').hidden = !view.muted;
    const when = `since ${formatMoment(this.#since)}`;
    const reason = this.#reason;
    this.#detail.textContent = !live
      ? LINK_DETAIL[this.#link as Exclude<PageLink, 'live'>]
      : view.phase === 'unconfigured'
        ? `Not set up yet: voice calls need ${this.#missing}. Open Set up to enter and test them.`
        : state === 'connected'
          ? `In a call ${when}.`
          : state === 'error'
            ? `Error ${when}${reason ? `: ${reason}` : '.'}`
            : IN_CALL.has(state)
              ? `${state[0]!.toUpperCase()}${state.slice(1)} ${when}${reason && state !== 'connecting' ? `: ${reason}` : '…'}`
              : `Not in a call${reason ? ` (${plainReason(reason)})` : ''}.`;
    // One filled button, the likely next step: Set up until configured, Join between calls, Leave in one.
    this.#join.classList.toggle('primary', view.primary === 'join');
    this.#leave.classList.toggle('primary', view.primary === 'leave');
    byId('setup-link').hidden = this.#missing === null;
    this.#join.disabled = !view.join;
    this.#leave.disabled = !view.leave;
    this.#stopTalking.disabled = !view.stopTalking;
    this.#talk.setView(view);
    byId('conn-discord').textContent = live ? this.#facts.discord : '—';
    byId('conn-dave').textContent = live ? this.#facts.dave : '—';
    byId('conn-model').textContent = live ? this.#facts.model : '—';
    this.#sayText.disabled = !view.say;
    this.#saySubmit.disabled = !view.say;
    if (view.phase !== 'in-call') this.#showActivity(INITIAL_ACTIVITY, false);
    else if (this.#activityEl.textContent === '—') this.#showActivity(this.#activity);
    if (!live || !IN_CALL.has(state)) {
      setMeter(this.#meterIn, 0);
      setMeter(this.#meterOut, 0);
      this.#speaking.textContent = live ? 'nobody' : '—';
    }
    this.#onView(view);
  }

  /** The model's state at a glance; "thinking" runs out by itself when no answer comes. */
  #showActivity(next: ActivityTracker, inCall = true): void {
    this.#activity = next;
    clearTimeout(this.#activityTimer);
    this.#activityEl.textContent = inCall ? ACTIVITY_WORDS[next.activity] : '—';
    this.#activityEl.dataset.activity = inCall ? next.activity : 'none';
    if (inCall && next.activity !== 'listening')
      this.#activityTimer = setTimeout(
        () => this.#showActivity(settle(this.#activity, Date.now())),
        next.activity === 'thinking' ? THINKING_MS : 1000,
      );
  }

  async #interrupt(): Promise<void> {
    try {
      await api.interrupt();
      this.#showActivity(INITIAL_ACTIVITY);
      status(this.#status, 'Stopped: the model stopped talking.', 'ok');
    } catch (err) {
      status(this.#status, friendlyMessage(err), 'error');
    }
  }

  async #say(): Promise<void> {
    const text = this.#sayText.value.trim();
    if (!text) return status(this.#status, 'Type what the model should say first.', 'error');
    setBusy(this.#saySubmit, true, 'Sending…');
    try {
      const answer = await api.say(text);
      sayOutcomeLine.track(answer.id);
      this.#sayText.value = '';
      // /say answers `queued`: the text goes to the model at the next pause in the conversation.
      status(this.#status, 'Queued: the model says it, word for word, at the next pause.', 'ok');
    } catch (err) {
      status(this.#status, friendlyMessage(err), 'error');
    } finally {
      setBusy(this.#saySubmit, false);
      this.#render();
    }
  }

  async #act(button: HTMLButtonElement, busyLabel: string, action: () => Promise<unknown>): Promise<void> {
    setBusy(button, true, busyLabel);
    status(this.#status, '');
    try {
      await action();
    } catch (err) {
      status(this.#status, friendlyMessage(err), 'error');
    } finally {
      setBusy(button, false);
      // The state events decide what is enabled; re-apply after the busy flag cleared.
      this.#render();
    }
  }
}

/** Keys typed into a field are text, not page shortcuts. */
function isTyping(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || target.matches('input:not([type="checkbox"]):not([type="radio"]), textarea, select'))
  );
}

/** The core's reasons in words a user would use. */
function plainReason(reason: string): string {
  return reason === 'requested by sidecar' ? 'left on request' : reason;
}

function setMeter(meter: HTMLElement, percent: number): void {
  (meter.firstElementChild as HTMLElement).style.width = `${percent}%`;
  meter.setAttribute('aria-valuenow', String(percent));
}
