// Watches the live call's usage (what the provider reported), prices it, and keeps today's total
// against the optional daily cap: past the warning threshold it warns once (a note, which the
// dashboard shows, /health `usage.today.state`, and one sentence spoken in the call); at the cap it
// says so (a note and a spoken sentence) and parks the model: the call stays in Discord, nothing
// wakes the model until the day changes, and new joins are refused (429 `daily_cap_reached`).
//
// Runs only during a call (a 1 s timer between the bridge's `connecting` and its end); nothing runs
// between calls. Today's figures live in the database's usage ledger (ledger-store.ts: each call's
// estimate by call id, written when it changes), so a restart neither forgets today's spending nor
// counts a call twice. At the call's end its figures are written to the call's notes.
import type { Logger } from 'pino';
import type { LiveProviderName, SidecarEvent, UsageReport } from '../api-types.ts';
import type { EventHub } from '../event-hub.ts';
import { isProviderName, providerOf } from '../providers/index.ts';
import type { LiveModelUsage } from '../ports.ts';
import type { Ledger, UsageLedger } from './ledger-store.ts';
import { costText, estimateCost, PRICES_AS_OF, type PriceTable } from './pricing.ts';
import { emptyTokenUsage, totalTokens, INPUT_MODALITIES, OUTPUT_MODALITIES, type TokenUsage } from './tokens.ts';

export const DEFAULT_CAP_WARN_PERCENT = 80;

export interface UsageMonitorOptions {
  hub: EventHub;
  /** The provider carrying the call and what it reported (the selector's `choice`). */
  current: () => { provider: LiveProviderName; usage?: LiveModelUsage } | null;
  callId: () => string | undefined;
  /** The call's model-connected seconds (parked time excluded) and seconds of speech sent to the model. */
  callTime?: () => { connectedSeconds: number; speechSeconds: number } | null;
  prices: PriceTable;
  /** USD per local day; undefined: no cap. */
  dailyCapUsd?: number;
  /** Warn at this percentage of the cap. Default 80. */
  warnPercent?: number;
  ledger: UsageLedger;
  notes: { append(note: { kind: 'note'; text: string; callId?: string }): unknown };
  /** Speak one sentence in the live call (the warning). */
  say: (text: string) => void;
  /** Close the model connection while the call stays (bridge/model-link.ts), after the sentence was spoken. */
  parkCall: (reason: string) => Promise<unknown>;
  /** How long to let the cap sentence be spoken before parking (default 8000 ms). */
  capParkDelayMs?: number;
  logger: Logger;
  /** Epoch ms. */
  now?: () => number;
  tickMs?: number;
}

/** Local calendar day of `ms`, YYYY-MM-DD. */
export function localDay(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

const LIVE_STATES = new Set(['connecting', 'connected', 'reconnecting', 'parked']);
const ENDED_STATES = new Set(['stopped', 'error', 'idle']);

/** "12,345 tokens (in: audio 10,000, text 300; out: audio 2,000, text 45) · est. $0.0123". */
export function describeCallUsage(call: NonNullable<UsageReport['call']>): string {
  const part = (label: string, counts: Record<string, number>, keys: readonly string[]): string | null => {
    const items = keys.filter((k) => counts[k]! > 0).map((k) => `${k} ${counts[k]!.toLocaleString('en-US')}`);
    return items.length ? `${label}: ${items.join(', ')}` : null;
  };
  const detail = [part('in', call.tokens.input, INPUT_MODALITIES), part('out', call.tokens.output, OUTPUT_MODALITIES)]
    .filter(Boolean)
    .join('; ');
  const minutes = call.billed_minutes !== undefined ? ` · ${call.billed_minutes} billed min` : '';
  const time =
    call.connected_seconds !== undefined
      ? ` · model connected ${Math.round(call.connected_seconds)} s for ${Math.round(call.speech_seconds ?? 0)} s of speech`
      : '';
  const cost =
    call.cost_usd === 0 && call.unpriced.length
      ? 'no price set'
      : `est. $${call.cost_usd.toFixed(4)}${call.unpriced.length ? ` (no price for ${call.unpriced.join(', ')})` : ''}`;
  return `${call.total_tokens.toLocaleString('en-US')} tokens${detail ? ` (${detail})` : ''}${minutes}${time} · ${cost}`;
}

interface CallState {
  id?: string;
  live: boolean;
  /** Its usage note was written (at its end). */
  noted: boolean;
  /** The cap already ended it (ending is asked once). */
  capEnded: boolean;
}

export class UsageMonitor {
  readonly #o: UsageMonitorOptions;
  readonly #now: () => number;
  readonly #warnFraction: number;
  #ledger: Ledger;
  #timer: NodeJS.Timeout | null = null;
  #unsubscribe: (() => void) | null = null;
  #call: CallState | null = null;
  #last: UsageReport['call'] = null;

  constructor(options: UsageMonitorOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#warnFraction = (options.warnPercent ?? DEFAULT_CAP_WARN_PERCENT) / 100;
    this.#ledger = this.#load();
  }

  start(): void {
    this.#unsubscribe ??= this.#o.hub.subscribe((event) => this.#onEvent(event));
  }

  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    this.#stopTimer();
  }

  /** Why a new call is refused now (today's estimate is at the cap), or null. */
  joinRefusal(): string | null {
    const cap = this.#o.dailyCapUsd;
    if (cap === undefined) return null;
    this.#rollDay();
    const spent = this.#todayUsd();
    return spent >= cap
      ? `today's estimated model cost ($${spent.toFixed(2)}) reached the daily cap ($${cap.toFixed(2)}); calls are refused until tomorrow (DISCORD_VOICE_LIVE_DAILY_CAP_USD)`
      : null;
  }

  report(): UsageReport {
    if (this.#call?.live) this.tick();
    this.#rollDay();
    const cap = this.#o.dailyCapUsd ?? null;
    const spent = this.#todayUsd();
    const state =
      cap !== null && spent >= cap
        ? 'reached'
        : cap !== null && (this.#ledger.warned || spent >= cap * this.#warnFraction)
          ? 'warned'
          : 'ok';
    let connected = 0;
    let speech = 0;
    for (const t of Object.values(this.#ledger.time)) {
      connected += t.connected;
      speech += t.speech;
    }
    const time = { connected_seconds: round1(connected), speech_seconds: round1(speech) };
    return {
      call: this.#last,
      today: { day: this.#ledger.day, cost_usd: round(spent), cap_usd: cap, state, ...time },
      prices_as_of: PRICES_AS_OF,
    };
  }

  /** Read the call's usage, price it, record it and apply the cap. Public for tests (the timer calls it). */
  tick(): void {
    const call = this.#call;
    if (!call) return;
    const current = this.#o.current();
    if (!current) return;
    const usage = current.usage ?? {};
    const tokens: TokenUsage = usage.tokens ?? emptyTokenUsage();
    const time = this.#o.callTime?.() ?? null;
    // A provider billed by the time a session is open (its declaration says so) is priced by it; token-billed ones ignore it.
    const provider = isProviderName(current.provider) ? providerOf(current.provider) : null;
    const byTime = provider?.capabilities.billing === 'active-time';
    const activeSeconds = byTime ? time?.connectedSeconds : undefined;
    // Tokens such a provider may report are not what it bills: pricing them would only add "no price set".
    const estimate = estimateCost(provider ? this.#o.prices[provider.name] : {}, {
      tokens: byTime ? undefined : tokens,
      billedMinutes: usage.billedMinutes,
      activeSeconds,
    });
    this.#last = {
      ...(call.id ? { call_id: call.id } : {}),
      provider: current.provider,
      live: call.live,
      tokens,
      total_tokens: totalTokens(tokens),
      ...(usage.billedMinutes !== undefined ? { billed_minutes: usage.billedMinutes } : {}),
      cost_usd: estimate.usd,
      unpriced: estimate.unpriced,
      cost_text: costText(estimate),
      ...(time ? { connected_seconds: round1(time.connectedSeconds), speech_seconds: round1(time.speechSeconds) } : {}),
    };
    this.#rollDay();
    if (call.id && time)
      this.#ledger.time[call.id] = { connected: round1(time.connectedSeconds), speech: round1(time.speechSeconds) };
    if (call.id && this.#ledger.calls[call.id] !== estimate.usd) {
      this.#ledger.calls[call.id] = estimate.usd;
      this.#save();
    }
    this.#applyCap(call);
  }

  #applyCap(call: CallState): void {
    const cap = this.#o.dailyCapUsd;
    if (cap === undefined || !call.live) return;
    const spent = this.#todayUsd();
    if (spent >= cap) {
      if (call.capEnded) return;
      call.capEnded = true;
      const text = `daily cost cap reached: today's estimate $${spent.toFixed(2)} ≥ cap $${cap.toFixed(2)}; the model is parked until tomorrow (the call stays; new calls are refused)`;
      this.#o.logger.warn({ spentUsd: round(spent), capUsd: cap }, 'daily cost cap reached: parking the model');
      this.#o.notes.append({ kind: 'note', text, ...(call.id ? { callId: call.id } : {}) });
      try {
        this.#o.say(
          "Today's model cost has reached your daily cap, so I am going quiet until tomorrow. The call stays open.",
        );
      } catch (err) {
        this.#o.logger.warn({ err }, 'could not speak the cap sentence');
      }
      const park = setTimeout(() => {
        void this.#o
          .parkCall('daily cost cap reached')
          .catch((err: unknown) => this.#o.logger.error({ err }, 'parking the call at the cap failed'));
      }, this.#o.capParkDelayMs ?? 8000);
      park.unref();
    } else if (spent >= cap * this.#warnFraction && !this.#ledger.warned) {
      this.#ledger.warned = true; // once per day, across calls and restarts
      this.#save();
      const percent = Math.round((spent / cap) * 100);
      this.#o.logger.warn({ spentUsd: round(spent), capUsd: cap }, 'daily cost cap warning');
      this.#o.notes.append({
        kind: 'note',
        text: `cost warning: today's estimate $${spent.toFixed(2)} is ${percent}% of the $${cap.toFixed(2)} daily cap; the call ends at the cap`,
        ...(call.id ? { callId: call.id } : {}),
      });
      try {
        this.#o.say(
          `Heads-up: today's model cost is at ${percent} percent of your daily cap. I will go quiet when it is reached.`,
        );
      } catch (err) {
        this.#o.logger.warn({ err }, 'could not speak the cost warning');
      }
    }
  }

  #onEvent(event: SidecarEvent): void {
    if (event.type !== 'state') return;
    const { state } = event.data;
    if (LIVE_STATES.has(state)) {
      const id = this.#o.callId();
      if (!this.#call || this.#call.id !== id) this.#call = { id, live: true, noted: false, capEnded: false };
      this.#call.live = true;
      this.#startTimer();
    } else if (state === 'stopping' || ENDED_STATES.has(state)) {
      const call = this.#call;
      if (!call || call.noted) return;
      // `stopping` comes before the notes of the call are closed: the figures go into its file.
      this.tick();
      call.live = false;
      call.noted = true;
      this.#stopTimer();
      if (this.#last) {
        this.#last = { ...this.#last, live: false };
        if (this.#last.total_tokens > 0 || this.#last.billed_minutes)
          this.#o.notes.append({
            kind: 'note',
            text: `usage: ${describeCallUsage(this.#last)}`,
            ...(call.id ? { callId: call.id } : {}),
          });
      }
    }
  }

  #startTimer(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.tick(), this.#o.tickMs ?? 1000);
    this.#timer.unref();
  }

  #stopTimer(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  #todayUsd(): number {
    let sum = 0;
    for (const usd of Object.values(this.#ledger.calls)) sum += usd;
    return sum;
  }

  #rollDay(): void {
    const day = localDay(this.#now());
    if (this.#ledger.day !== day) this.#ledger = { day, calls: {}, time: {}, warned: false };
  }

  #load(): Ledger {
    const day = localDay(this.#now());
    try {
      return this.#o.ledger.load(day);
    } catch (err) {
      this.#o.logger.warn({ err }, 'usage ledger unreadable; starting today from zero');
      return { day, calls: {}, time: {}, warned: false };
    }
  }

  #save(): void {
    try {
      this.#o.ledger.save(this.#ledger);
    } catch (err) {
      this.#o.logger.warn({ err }, 'could not write the usage ledger');
    }
  }
}

function round1(seconds: number): number {
  return Math.round(seconds * 10) / 10;
}

function round(usd: number): number {
  return Math.round(usd * 1e4) / 1e4;
}
