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
  /** Opted out of being heard (room/consent.ts): their audio never reaches the model. */
  optedOut?: (userId: string) => boolean;
}

/**
 * The room as the call reads it: read through, not copied (allowed speakers saved in Settings apply
 * mid-call), with the voice port's display names where the people give none.
 */
export function readThroughRoom(
  people: RoomPeople,
  voice: { displayName?: (id: string) => string | undefined },
): RoomPeople {
  return {
    ownerId: people.ownerId,
    get allowedSpeakers() {
      return people.allowedSpeakers;
    },
    displayName: people.displayName ?? (voice.displayName ? (id) => voice.displayName?.(id) : undefined),
  };
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
export const END_REPORTED_LATE_MS = 200;
/** A pause shorter than this (after the end correction) joins two bursts of one speaker. */
const REJOIN_GAP_MS = 150;
/** A transcription fragment covers the audio since the previous one, but never more than this. */
const MAX_FRAGMENT_SPAN_MS = 1000;
/** A speaker counts for a fragment when active for at least this share of its span. */
const MIN_COVERAGE = 0.2;
/**
 * How late an input transcription fragment may arrive after its words were said. The service's
 * transcription runs apart from the model's turn (protocols.md §1.5): its last words can come after
 * the model's first reply audio, by which time someone else may be talking. A fragment is one
 * person's alone (an approval answer, a request) only when nobody else spoke within this window.
 */
export const LATE_TRANSCRIPT_MS = 3000;

export class SpeakerActivity {
  readonly #people: RoomPeople;
  readonly #now: () => number;
  #intervals: Interval[] = [];
  #turnStart = Number.NEGATIVE_INFINITY;
  #lastFragmentAt = Number.NEGATIVE_INFINITY;
  #lastFragmentSpeakers: string[] = [];
  /** When the latest chunk of input audio went to the model (audioSent). */
  #audioSentAt = Number.NEGATIVE_INFINITY;
  #cutOff = false;

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
   * A chunk of input audio went to the model now. It holds what the receive path reported up to now
   * (the voice gate sends a chunk as its last frame arrives), so the latest chunk's time is where the
   * audio a fragment can transcribe ends: measured at each chunk, under any load and chunk size,
   * instead of a fixed pipeline delay.
   */
  audioSent(): void {
    this.#audioSentAt = this.#now();
  }

  /**
   * Who said the transcription fragment arriving now: the speakers active for a fair share of the
   * time since the previous fragment (the audio it transcribes), else the one active longest.
   */
  speakersOfFragment(): string[] {
    // The fragment transcribes audio the model has: up to the latest chunk sent (none sent: now).
    const now = this.#now();
    const to = this.#audioSentAt === Number.NEGATIVE_INFINITY ? now : Math.min(now, this.#audioSentAt);
    // A second fragment of audio already attributed (no chunk sent since): the same voices.
    if (to <= this.#lastFragmentAt && this.#lastFragmentSpeakers.length > 0) return this.#lastFragmentSpeakers;
    this.#lastFragmentSpeakers = this.#attribute(to);
    return this.#lastFragmentSpeakers;
  }

  /** The voices of the audio from the previous fragment's end to `to`. */
  #attribute(to: number): string[] {
    const from = Math.max(this.#lastFragmentAt, to - MAX_FRAGMENT_SPAN_MS);
    this.#lastFragmentAt = Math.max(this.#lastFragmentAt, to);
    const span = Math.max(1, to - from);
    const coverage = new Map<string, number>();
    for (const i of this.#intervals) {
      const overlap = Math.min(i.end ?? to, to) - Math.max(i.start, from);
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
    for (const i of this.#intervals)
      if ((i.end ?? Infinity) >= since && (!best || (i.end ?? Infinity) >= (best.end ?? Infinity))) best = i;
    return best ? [best.id] : [];
  }

  /**
   * The one person a fragment can be trusted to come from, or undefined: `speakers` (its timing
   * attribution) is a single voice AND no other voice was heard within the late-transcript window,
   * so a fragment arriving late, while someone else talks, is never taken as theirs (approvals).
   */
  soleSpeaker(speakers: readonly string[]): string | undefined {
    if (speakers.length !== 1) return undefined;
    const now = this.#now();
    const others = this.activeDuring(now - LATE_TRANSCRIPT_MS, now).filter((id) => id !== speakers[0]);
    return others.length === 0 ? speakers[0] : undefined;
  }

  /**
   * The model was cut off (barge-in). Every provider follows with a turnComplete, which then is no
   * boundary: the cut-off request is still unanswered and a tool call the model makes next may
   * answer it, so its voices keep counting for authority alongside the interrupter's.
   */
  cutOff(): void {
    this.#cutOff = true;
  }

  /** The model finished its turn: what is said from now on is the next request. */
  turnBoundary(): void {
    if (this.#cutOff) {
      this.#cutOff = false;
      return;
    }
    this.#turnStart = this.#now();
  }

  clear(): void {
    this.#intervals = [];
    this.#turnStart = Number.NEGATIVE_INFINITY;
    this.#lastFragmentAt = Number.NEGATIVE_INFINITY;
    this.#lastFragmentSpeakers = [];
    this.#audioSentAt = Number.NEGATIVE_INFINITY;
    this.#cutOff = false;
  }

  /** Speakers whose voice overlapped [from, to], in order of first activity. */
  activeDuring(from: number, to: number): string[] {
    const ids: string[] = [];
    for (const i of this.#intervals) {
      if (i.start <= to && (i.end === null || i.end >= from) && !ids.includes(i.id)) ids.push(i.id);
    }
    return ids;
  }

  /**
   * Who was heard since the model's last completed turn (the request a tool call answers). The
   * transcription names nobody, so which of them asked cannot be known: the call runs with the
   * rights of the least privileged of them (describe()).
   */
  heardThisTurn(): HeardSpeakers {
    return this.describe(this.activeDuring(this.#turnStart, this.#now()));
  }

  /**
   * Rights of a set of voices: the owner's only when every voice is the owner's, an allowed
   * speaker's only when every voice is allowed. A guest speaking in the owner's turn (before,
   * after or over them) therefore never borrows the owner's rights.
   */
  describe(ids: readonly string[]): HeardSpeakers {
    const { ownerId, allowedSpeakers = [] } = this.#people;
    const lacking = (ok: (id: string) => boolean) => ids.filter((id) => !ok(id)).map((id) => this.name(id));
    const notOwner = lacking((id) => id === ownerId);
    const notAllowed = lacking((id) => id === ownerId || allowedSpeakers.includes(id));
    return {
      ids,
      names: ids.map((id) => this.name(id)),
      owner: ids.length > 0 && notOwner.length === 0,
      allowed: ids.length > 0 && notAllowed.length === 0,
      ...(notOwner.length > 0 && notOwner.length < ids.length ? { notOwner } : {}),
    };
  }

  name(id: string): string {
    return this.#people.displayName?.(id) ?? (id === this.#people.ownerId ? 'the owner' : `user ${id}`);
  }
}
