// Call panel: state, connections, who is speaking, join/leave, level meters and the latency plot.
import type { BridgeState, BridgeStateEvent, HealthReport, LatencySummary, LevelReading } from '../main/core/api-types.ts';
import { api, friendlyMessage } from './api.ts';
import { byId, setBusy, status } from './dom.ts';
import { describeDave, formatClock, latencyPoint, levelPercent } from './format.ts';
import { LatencyPlot } from './latency-plot.ts';

const IN_CALL: ReadonlySet<BridgeState> = new Set(['connecting', 'connected', 'reconnecting']);

export class CallPanel {
  readonly #badge = byId('call-state');
  readonly #detail = byId('call-detail');
  readonly #join = byId<HTMLButtonElement>('join-button');
  readonly #leave = byId<HTMLButtonElement>('leave-button');
  readonly #status = byId('call-status');
  readonly #meterIn = byId('meter-in');
  readonly #meterOut = byId('meter-out');
  readonly #speaking = byId('speaking');
  readonly #plot = new LatencyPlot(byId('latency-plot') as unknown as SVGSVGElement, byId('latency-empty'));
  #state: BridgeState = 'idle';
  #ownerId: string | undefined;

  constructor() {
    this.#join.addEventListener('click', () => void this.#act(this.#join, 'Joining…', () => api.join()));
    this.#leave.addEventListener('click', () => void this.#act(this.#leave, 'Leaving…', () => api.leave()));
  }

  /** Speakers are reported by Discord id; the owner's is shown as a word. */
  setOwnerId(id: string | undefined): void {
    this.#ownerId = id;
  }

  get state(): BridgeState {
    return this.#state;
  }

  applyHealth(health: HealthReport): void {
    this.#setState(health.bridge.state, health.bridge.since, health.bridge.reason);
    byId('conn-discord').textContent = health.connections.discord;
    byId('conn-dave').textContent = describeDave(health.dave);
    byId('conn-model').textContent = health.live_model ? `${health.connections.model} · ${health.live_model.provider} ${health.live_model.model}` : health.connections.model;
    if (health.audio.input_level && health.audio.output_level) this.onLevels({ input: health.audio.input_level, output: health.audio.output_level, speaking: [] });
  }

  onState(event: BridgeStateEvent): void {
    this.#setState(event.state, event.ts, event.reason);
  }

  onLevels(levels: { input: LevelReading; output: LevelReading; speaking: string[] }): void {
    setMeter(this.#meterIn, levelPercent(levels.input.rms));
    setMeter(this.#meterOut, levelPercent(levels.output.rms));
    this.#speaking.textContent = levels.speaking.length ? levels.speaking.map((id) => (id === this.#ownerId ? `owner (${id})` : id)).join(', ') : 'nobody';
    this.#speaking.title = this.#speaking.textContent;
  }

  onMetrics(metrics: Record<string, number | LatencySummary>): void {
    this.#plot.add(latencyPoint(metrics));
  }

  #setState(state: BridgeState, since: number, reason?: string): void {
    this.#state = state;
    this.#badge.textContent = state;
    this.#badge.dataset.state = state;
    const when = `since ${formatClock(since)}`;
    this.#detail.textContent = state === 'connected' ? `In a call ${when}.` : state === 'error' ? `Error ${when}${reason ? `: ${reason}` : '.'}` : IN_CALL.has(state) ? `${state[0]!.toUpperCase()}${state.slice(1)} ${when}…` : `Not in a call${reason ? ` (${reason})` : ''}.`;
    this.#join.disabled = IN_CALL.has(state) || state === 'stopping';
    this.#leave.disabled = !IN_CALL.has(state);
    if (!IN_CALL.has(state)) {
      setMeter(this.#meterIn, 0);
      setMeter(this.#meterOut, 0);
      this.#speaking.textContent = 'nobody';
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
      this.#join.disabled = IN_CALL.has(this.#state) || this.#state === 'stopping';
      this.#leave.disabled = !IN_CALL.has(this.#state);
    }
  }
}

function setMeter(meter: HTMLElement, percent: number): void {
  (meter.firstElementChild as HTMLElement).style.width = `${percent}%`;
  meter.setAttribute('aria-valuenow', String(percent));
}
