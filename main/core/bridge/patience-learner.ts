// Adaptive patience per speaker (issue #52 item 3): how long the service may let a speaker's pause
// run before it takes the pause as the end of their turn, learnt from what the speaker does.
// - A cut-off: the speaker starts talking again within CUTOFF_WINDOW_MS of the first audio of a
//   reply to their turn, while it still plays. They were not done; their window goes one step up
//   PATIENCE_STEPS_MS. (Someone who let a short reply, "Okay.", play out and then went on was
//   answered, not cut off: that reply counts as a clean turn.)
// - A clean turn: a reply to their turn whose first CUTOFF_WINDOW_MS pass without them resuming.
//   After DRIFT_AFTER_CLEAN_TURNS clean turns in a row, the window goes one step back down, but only
//   when that step is still longer than every pause they made inside a turn meanwhile (plus
//   PAUSE_MARGIN_MS): a speaker who keeps pausing 1.2 s keeps a window over 1.2 s, one whose long
//   pauses stopped drifts back to the call's setting.
// The setting (or the call's own patience) is the floor: the learner only ever lengthens it. Pure
// logic on an injected clock; nothing runs per audio frame (it sees speech starts, speech ends and
// reply starts only), and judging a reply clean waits for the next event, so there are no timers.
import type { Clock } from '../contracts/clock.ts';
import { PATIENCE_STEPS_MS } from '../contracts/patience.ts';

/** A speaker who starts again this soon after a reply's first audio was cut off (the "~1 s"). */
export const CUTOFF_WINDOW_MS = 1000;
/** Clean turns in a row before a learnt window goes one step back down. */
export const DRIFT_AFTER_CLEAN_TURNS = 8;
/** A step down must stay this much longer than the longest pause the speaker made meanwhile. */
export const PAUSE_MARGIN_MS = 200;
/** Pauses longer than the longest step are not mid-sentence pauses a window could keep: not counted. */
const LONGEST_PAUSE_COUNTED_MS = PATIENCE_STEPS_MS.at(-1)!;

/** What is remembered of one speaker, across calls (the store: bridge/patience-store.ts). */
export interface SpeakerPatience {
  speakerId: string;
  /** Their display name when last heard (the room view shows people by name). */
  name: string | null;
  /** The learnt silence window in ms. */
  windowMs: number;
  cutoffs: number;
  /** Clean turns since the window last moved. */
  cleanTurns: number;
  /** The longest pause inside a turn since the window last moved (ms). */
  longestPauseMs: number;
  /** Epoch ms of the last change. */
  updatedAt: number;
}

/** Where learnt windows are kept (SQLite in the core; a Map in tests and benches). */
export interface PatienceMemory {
  get(speakerId: string): SpeakerPatience | undefined;
  put(record: SpeakerPatience): void;
  delete(speakerId: string): boolean;
  list(): SpeakerPatience[];
}

export class MapPatienceMemory implements PatienceMemory {
  readonly #map = new Map<string, SpeakerPatience>();
  get(speakerId: string): SpeakerPatience | undefined {
    const found = this.#map.get(speakerId);
    return found && { ...found };
  }
  put(record: SpeakerPatience): void {
    this.#map.set(record.speakerId, { ...record });
  }
  delete(speakerId: string): boolean {
    return this.#map.delete(speakerId);
  }
  list(): SpeakerPatience[] {
    return [...this.#map.values()].map((r) => ({ ...r }));
  }
}

export interface PatienceLearnerOptions {
  clock: Clock;
  /** The call's patience in ms (the setting, or the join request's): the floor of every window. */
  baseMs: () => number;
  memory: PatienceMemory;
  /** A speaker's display name, stored with their window (null: not known now; the stored one stays). */
  name?: (speakerId: string) => string | null;
  /** The effective window for who is talking changed (the model link's setPatience). */
  onChange?: (windowMs: number) => void;
}

interface Speaker {
  record: SpeakerPatience;
  /** When their last stretch of speech ended (NaN while talking or unknown). */
  lastEnd: number;
  /** Their last end came before the latest reply started: the next start is a new turn, not a pause. */
  answered: boolean;
}

interface PendingReply {
  at: number;
  speakers: Set<string>;
}

/** The step after `ms`, or `ms` itself at the top. */
function stepUp(ms: number): number {
  return PATIENCE_STEPS_MS.find((step) => step > ms) ?? ms;
}

/** The step before `ms`, or 0 below the bottom. */
function stepDown(ms: number): number {
  return PATIENCE_STEPS_MS.findLast((step) => step < ms) ?? 0;
}

export class PatienceLearner {
  readonly #o: PatienceLearnerOptions;
  readonly #speakers = new Map<string, Speaker>();
  /** Who has spoken since the latest reply started: the turn the next reply answers. */
  readonly #turn = new Set<string>();
  #pending: PendingReply | null = null;
  #effective: number | null = null;

  constructor(options: PatienceLearnerOptions) {
    this.#o = options;
  }

  /** The window the service should use now: the longest of the current turn's speakers, at least the base. */
  effectiveMs(): number {
    let ms = this.#o.baseMs();
    for (const id of this.#turn) ms = Math.max(ms, this.windowOf(id));
    return ms;
  }

  /** A speaker's window now: their learnt one, or the base. */
  windowOf(speakerId: string): number {
    const learnt = this.#speaker(speakerId)?.record.windowMs ?? 0;
    return Math.max(this.#o.baseMs(), learnt);
  }

  /** `replyPlaying`: the reply's audio has not all been played yet (only then can a resumption cut it). */
  speechStarted(speakerId: string, replyPlaying = true): void {
    const now = this.#o.clock.now();
    this.#judgeExpired(now);
    const speaker = this.#speaker(speakerId, true)!;
    if (this.#pending?.speakers.has(speakerId)) {
      this.#pending.speakers.delete(speakerId);
      if (replyPlaying) this.#cutOff(speaker, now);
      else if (speaker.record.windowMs > this.#o.baseMs()) this.#clean(speaker, now);
    } else if (!speaker.answered && Number.isFinite(speaker.lastEnd)) {
      const pause = now - speaker.lastEnd;
      if (pause <= LONGEST_PAUSE_COUNTED_MS && pause > speaker.record.longestPauseMs) {
        speaker.record.longestPauseMs = pause;
        this.#save(speaker, now);
      }
    }
    speaker.lastEnd = Number.NaN;
    speaker.answered = false;
    this.#turn.add(speakerId);
    this.#publish();
  }

  /** `at`: when the speech really ended, where the receive path reports it late (defaults to now). */
  speechEnded(speakerId: string, at = this.#o.clock.now()): void {
    const speaker = this.#speaker(speakerId, true)!;
    speaker.lastEnd = at;
  }

  /** The first audio of a reply started playing: it answers the turn's speakers. */
  replyStarted(): void {
    const now = this.#o.clock.now();
    this.#judgeExpired(now);
    this.#judgeClean();
    if (this.#turn.size === 0) return;
    this.#pending = { at: now, speakers: new Set(this.#turn) };
    for (const id of this.#turn) {
      const speaker = this.#speakers.get(id);
      if (speaker) speaker.answered = true;
    }
    // The next turn is whoever speaks next; until then the window stays what it was.
    this.#turn.clear();
  }

  /** The call ended: a reply still in its cut-off window counts as clean. */
  callEnded(): void {
    this.#judgeClean();
    this.#turn.clear();
    this.#speakers.clear();
    this.#effective = null;
  }

  /** Forget what was learnt of `speakerId` (the page, the CLI); false when nothing was. */
  reset(speakerId: string): boolean {
    this.#speakers.delete(speakerId);
    this.#pending?.speakers.delete(speakerId);
    const removed = this.#o.memory.delete(speakerId);
    this.#publish();
    return removed;
  }

  /** Every remembered speaker, newest change first. */
  list(): SpeakerPatience[] {
    return this.#o.memory.list().sort((a, b) => b.updatedAt - a.updatedAt);
  }

  #speaker(speakerId: string, create = false): Speaker | undefined {
    let speaker = this.#speakers.get(speakerId);
    if (speaker || !create) return speaker ?? this.#stored(speakerId);
    const record = this.#o.memory.get(speakerId) ?? {
      speakerId,
      name: null,
      windowMs: 0,
      cutoffs: 0,
      cleanTurns: 0,
      longestPauseMs: 0,
      updatedAt: 0,
    };
    speaker = { record, lastEnd: Number.NaN, answered: true };
    this.#speakers.set(speakerId, speaker);
    return speaker;
  }

  /** A speaker not heard in this call yet, read from memory (not kept: nothing changes it). */
  #stored(speakerId: string): Speaker | undefined {
    const record = this.#o.memory.get(speakerId);
    return record && { record, lastEnd: Number.NaN, answered: true };
  }

  #cutOff(speaker: Speaker, now: number): void {
    const record = speaker.record;
    record.windowMs = stepUp(Math.max(this.#o.baseMs(), record.windowMs));
    record.cutoffs += 1;
    record.cleanTurns = 0;
    record.longestPauseMs = 0;
    this.#save(speaker, now);
  }

  /** The pending reply's window has passed: whoever did not resume ended their turn cleanly. */
  #judgeExpired(now: number): void {
    if (this.#pending && now - this.#pending.at > CUTOFF_WINDOW_MS) this.#judgeClean();
  }

  #judgeClean(): void {
    const pending = this.#pending;
    this.#pending = null;
    if (!pending) return;
    const now = this.#o.clock.now();
    for (const id of pending.speakers) {
      const speaker = this.#speaker(id, true)!;
      if (speaker.record.windowMs <= this.#o.baseMs()) continue; // nothing learnt to drift back from
      this.#clean(speaker, now);
    }
  }

  #clean(speaker: Speaker, now: number): void {
    const record = speaker.record;
    record.cleanTurns += 1;
    if (record.cleanTurns >= DRIFT_AFTER_CLEAN_TURNS) {
      const lower = stepDown(record.windowMs);
      if (lower > record.longestPauseMs + PAUSE_MARGIN_MS) record.windowMs = lower <= this.#o.baseMs() ? 0 : lower;
      // Judged on the next N turns afresh either way: the speaker's rhythm may have changed.
      record.cleanTurns = 0;
      record.longestPauseMs = 0;
    }
    this.#save(speaker, now);
  }

  #save(speaker: Speaker, now: number): void {
    const record = speaker.record;
    record.updatedAt = now;
    record.name = this.#o.name?.(record.speakerId) ?? record.name;
    if (record.windowMs === 0 && record.cutoffs === 0) return;
    this.#o.memory.put(record);
  }

  #publish(): void {
    const ms = this.effectiveMs();
    if (ms === this.#effective) return;
    this.#effective = ms;
    this.#o.onChange?.(ms);
  }
}
