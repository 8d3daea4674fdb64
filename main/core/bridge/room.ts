// Who is talking, and when: per-speaker voice activity from the receive path (speaking start/end
// as @discordjs/voice reports them per user), kept as time intervals on the bridge's monotonic
// clock. The model hears one mixed stream and its transcription carries no speaker, so these
// intervals are what attributes a turn (tool authority) and a transcript segment (notes) to people.
import type { HeardSpeakers } from '../tools/registry.ts';

export interface RoomPeople {
  ownerId?: string;
  /** Allowed speakers (the owner is always one). */
  allowedSpeakers?: readonly string[];
  /** Display name of a user, when Discord told us one (member nick, then global name). */
  displayName?: (userId: string) => string | undefined;
}

interface Interval {
  id: string;
  start: number;
  /** Null while the speaker is still talking. */
  end: number | null;
}

/** Intervals older than this are forgotten: no turn or utterance looks back further. */
const KEEP_MS = 120_000;
/**
 * How late the receive path reports the end of speech: clients send 100 ms of Opus silence frames
 * before pausing, and @discordjs/voice emits `end` 100 ms (SpeakingMap.DELAY) after the last packet.
 */
const END_REPORTED_LATE_MS = 200;
/** A pause shorter than this (after the end correction) joins two bursts of one speaker. */
const REJOIN_GAP_MS = 150;
/** A transcription fragment covers the audio since the previous one, but never more than this. */
const MAX_FRAGMENT_SPAN_MS = 1000;
/** A speaker counts for a fragment when active for at least this share of its span. */
const MIN_COVERAGE = 0.2;

export class SpeakerActivity {
  readonly #people: RoomPeople;
  readonly #now: () => number;
  #intervals: Interval[] = [];
  #turnStart = Number.NEGATIVE_INFINITY;
  #lastFragmentAt = Number.NEGATIVE_INFINITY;

  constructor(people: RoomPeople, now: () => number) {
    this.#people = people;
    this.#now = now;
  }

  start(id: string): void {
    if (this.#intervals.some((i) => i.id === id && i.end === null)) return;
    const now = this.#now();
    // A packet late by more than the library's 100 ms ends and restarts a burst: one stretch of speech.
    const last = this.#intervals.findLast((i) => i.id === id);
    if (last?.end != null && now - last.end <= END_REPORTED_LATE_MS + REJOIN_GAP_MS) {
      last.end = null;
      return;
    }
    this.#intervals = this.#intervals.filter((i) => i.end === null || now - i.end < KEEP_MS);
    this.#intervals.push({ id, start: now, end: null });
  }

  end(id: string): void {
    const open = this.#intervals.find((i) => i.id === id && i.end === null);
    if (open) open.end = Math.max(open.start, this.#now() - END_REPORTED_LATE_MS);
  }

  /**
   * Who said the transcription fragment arriving now: the speakers active for a fair share of the
   * time since the previous fragment (the audio it transcribes), else the one active longest.
   */
  speakersOfFragment(): string[] {
    const now = this.#now();
    const from = Math.max(this.#lastFragmentAt, now - MAX_FRAGMENT_SPAN_MS);
    this.#lastFragmentAt = now;
    const span = Math.max(1, now - from);
    const coverage = new Map<string, number>();
    for (const i of this.#intervals) {
      const overlap = Math.min(i.end ?? now, now) - Math.max(i.start, from);
      if (overlap > 0) coverage.set(i.id, (coverage.get(i.id) ?? 0) + overlap);
    }
    const ranked = [...coverage].sort((a, b) => b[1] - a[1]);
    const fair = ranked.filter(([, ms]) => ms / span >= MIN_COVERAGE).map(([id]) => id);
    if (fair.length > 0) return fair;
    // Speech that already ended (the transcript lags it): whoever was heard last in the turn.
    return ranked.length > 0 ? [ranked[0]![0]] : this.#lastActive(from - MAX_FRAGMENT_SPAN_MS);
  }

  #lastActive(since: number): string[] {
    let best: Interval | undefined;
    for (const i of this.#intervals) if ((i.end ?? Infinity) >= since && (!best || (i.end ?? Infinity) >= (best.end ?? Infinity))) best = i;
    return best ? [best.id] : [];
  }

  /** The model finished or was cut off: what is said from now on is the next turn. */
  turnBoundary(): void {
    this.#turnStart = this.#now();
  }

  clear(): void {
    this.#intervals = [];
    this.#turnStart = Number.NEGATIVE_INFINITY;
    this.#lastFragmentAt = Number.NEGATIVE_INFINITY;
  }

  /** Speakers whose voice overlapped [from, to], in order of first activity. */
  activeDuring(from: number, to: number): string[] {
    const ids: string[] = [];
    for (const i of this.#intervals) {
      if (i.start <= to && (i.end === null || i.end >= from) && !ids.includes(i.id)) ids.push(i.id);
    }
    return ids;
  }

  /** Who was heard since the model's last turn ended (the turn a tool call answers). */
  heardThisTurn(): HeardSpeakers {
    return this.describe(this.activeDuring(this.#turnStart, this.#now()));
  }

  describe(ids: readonly string[]): HeardSpeakers {
    const { ownerId, allowedSpeakers = [] } = this.#people;
    return {
      ids,
      names: ids.map((id) => this.name(id)),
      owner: ownerId !== undefined && ids.includes(ownerId),
      allowed: ids.some((id) => id === ownerId || allowedSpeakers.includes(id)),
    };
  }

  name(id: string): string {
    return this.#people.displayName?.(id) ?? (id === this.#people.ownerId ? 'the owner' : `user ${id}`);
  }
}
