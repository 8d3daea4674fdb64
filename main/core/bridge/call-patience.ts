// The call's patience (issue #52): the setting, or the join request's own for one call; the learner
// that lengthens it per speaker after cut-offs (patience-learner.ts), remembered across calls; and
// the call it is applied to (Bridge.setPatience; each provider maps it, model/). Built
// once per core (the page and the CLI read and reset it with no call, or no voice platform).
import type { PatienceView, SpeakerPatienceView } from '../api-types.ts';
import { systemClock, type Clock } from '../contracts/clock.ts';
import { patienceSilenceMs, type Patience } from '../contracts/patience.ts';
import { PatienceLearner, type PatienceMemory, type SpeakerPatience } from './patience-learner.ts';
import { END_REPORTED_LATE_MS } from './room.ts';

/** Where the call's patience is applied: the call (Bridge.setPatience: this session and the next, call-turn.ts). */
export interface PatienceTarget {
  setPatience(patience: Patience): void;
}

export interface CallPatienceOptions {
  memory: PatienceMemory;
  /** The saved setting, read at each call and whenever the window is worked out. */
  setting: () => Patience;
  clock?: Clock;
}

export interface CallPatienceBinding {
  /** The live call, or null between calls. */
  target: () => PatienceTarget | null;
  /** A speaker's display name now. */
  name: (speakerId: string) => string;
}

export class CallPatience {
  readonly #o: CallPatienceOptions;
  readonly learner: PatienceLearner;
  #call: Patience | null = null;
  #binding: CallPatienceBinding | null = null;
  /** What the call was last given (its own patience at its start). */
  #applied: Patience | null = null;

  constructor(options: CallPatienceOptions) {
    this.#o = options;
    this.learner = new PatienceLearner({
      clock: options.clock ?? systemClock,
      baseMs: () => patienceSilenceMs(this.base()),
      memory: options.memory,
      // A name Discord has not given (the id itself) never replaces one stored earlier.
      name: (id) => {
        const name = this.#binding?.name(id);
        return name && name !== id ? name : null;
      },
      onChange: () => this.#apply(),
    });
  }

  /** The bridge: its session and its names. */
  bind(binding: CallPatienceBinding): void {
    this.#binding = binding;
  }

  /** The call's own patience, else the setting. */
  base(): Patience {
    return this.#call ?? this.#o.setting();
  }

  /**
   * A call starts with its patience (the join request's, else the setting). Returns what its first
   * session should open with: the longest learnt window of the voices it may hear (`speakers`), else
   * that patience. A service that takes patience only at setup (Gemini) then has the owner's learnt
   * one from the first turn, not from the next socket.
   */
  beginCall(patience: Patience, speakers: readonly string[] = []): Patience {
    this.#call = patience;
    const baseMs = patienceSilenceMs(patience);
    const longest = Math.max(baseMs, ...speakers.map((id) => this.learner.windowOf(id)));
    this.#applied = longest > baseMs ? longest : patience;
    return this.#applied;
  }

  speechStarted(speakerId: string, replyPlaying = true): void {
    this.learner.speechStarted(speakerId, replyPlaying);
  }

  /** The receive path reports an end late (room.ts): the pause began that much earlier. */
  speechEnded(speakerId: string): void {
    this.learner.speechEnded(speakerId, (this.#o.clock ?? systemClock).now() - END_REPORTED_LATE_MS);
  }

  replyStarted(): void {
    this.learner.replyStarted();
  }

  endCall(): void {
    this.learner.callEnded();
    this.#call = null;
    this.#applied = null;
  }

  /** What the service should get now: the call's patience as given, or a speaker's longer window in ms. */
  current(): Patience {
    const base = this.base();
    const ms = this.learner.effectiveMs();
    return ms > patienceSilenceMs(base) ? ms : base;
  }

  #apply(): void {
    const target = this.#binding?.target();
    if (!target) return;
    const wanted = this.current();
    if (wanted === (this.#applied ?? this.base())) return;
    target.setPatience(wanted);
    this.#applied = wanted;
  }

  /** Forget a speaker's learnt window; null when nothing was remembered of them. */
  reset(speakerId: string): SpeakerPatienceView | null {
    const record = this.#o.memory.get(speakerId);
    if (!record) return null;
    this.learner.reset(speakerId);
    return this.#speakerView({ ...record, windowMs: 0, cutoffs: 0 });
  }

  /** A person of the room: their window now. */
  speaker(speakerId: string, name: string): SpeakerPatienceView {
    const record = this.#o.memory.get(speakerId);
    return this.#speakerView(
      record
        ? { ...record, name }
        : { speakerId, name, windowMs: 0, cutoffs: 0, cleanTurns: 0, longestPauseMs: 0, updatedAt: 0 },
    );
  }

  view(): PatienceView {
    const base = this.base();
    return {
      setting: this.#o.setting(),
      call: this.#call,
      base_ms: patienceSilenceMs(base),
      current_ms: this.learner.effectiveMs(),
      speakers: this.learner.list().map((r) => this.#speakerView(r)),
    };
  }

  #speakerView(record: SpeakerPatience): SpeakerPatienceView {
    const baseMs = patienceSilenceMs(this.base());
    return {
      speaker_id: record.speakerId,
      name: record.name ?? this.#binding?.name(record.speakerId) ?? record.speakerId,
      window_ms: Math.max(baseMs, record.windowMs),
      learnt: record.windowMs > baseMs,
      cutoffs: record.cutoffs,
      updated_at: record.updatedAt ? record.updatedAt / 1000 : null,
    };
  }
}
