// User speech that something has not heard yet, kept until the reason for keeping it ends. Every
// such buffer of the call is this one store; what differs is only the reason, a named policy:
//   - until judged: the wake-name gate holds an utterance while a screener decides whether it is
//     for the bot (bridge/wake-gate.ts); full, the utterance is refused (held too long);
//   - until a session is up: the call's model link holds what is said while no session is ready
//     (parked, waking, an outage: bridge/model-link.ts); the oldest gives way, a pause is cut at 1 s;
//   - until a socket is up: a Gemini session holds what is said while its socket reconnects
//     (model/gemini/audio-input.ts);
//   - until acknowledged: what went out on a Gemini socket and no resumption handle has confirmed
//     yet, tagged with its message numbers (model/unconsumed-tail.ts);
//   - until answered: what the service has not begun answering, sent again on the next socket and
//     kept until it is answered (model/session-core/unanswered-audio.ts).
// It keeps 16 kHz mono chunks (their boundaries too) and ends of speech, in order, in one ring of
// samples and one ring of entries. Both grow by doubling as the store first needs the room (a store
// that never holds anything costs nothing), the samples up to the policy's bound: most stores hold a
// second or two, and a session has three of 30 s (960 kB each, allocated in full at the first push
// until 2026-12-03; the day soak's RSS after every session's renewal, #55).
// Pushing copies in; a replay copies each chunk out into a reused buffer of its length (valid during
// the callback only): nothing is allocated per 20 ms chunk once warm. A chunk may wrap around the
// ring's end, so the whole capacity holds speech (no gaps).
import { isDigitalSilence } from './pcm.ts';

const RATE = 16_000;
/** An entry's length for an end of speech (a chunk's is its sample count). */
const END = -1;
const FIRST_ENTRIES = 64;
/** The samples' first allocation: 1 s (32 kB), doubled as needed up to the policy's bound. */
const FIRST_SAMPLES = RATE;
/** Chunks up to this long (300 ms) are replayed through a reused buffer; longer ones (rare) as a fresh copy. */
const MAX_REUSED_SAMPLES = 4800;
const MAX_REUSED_LENGTHS = 8;

export type UnheardReason =
  'until judged' | 'until a session is up' | 'until a socket is up' | 'until acknowledged' | 'until answered';

/** Why speech is kept, and so how: how much, what gives way, what a replay does with it. */
export interface UnheardPolicy {
  readonly reason: UnheardReason;
  /** The most kept, in ms of 16 kHz audio. */
  readonly maxMs: number;
  /** Full: the oldest gives way (counted, `evictedSamples`), or the new chunk is refused (`overflowed`). */
  readonly whenFull: 'evict oldest' | 'refuse';
  /** A replay releases what it sent (it was heard), or keeps it (heard only once it is answered). */
  readonly afterReplay: 'released' | 'kept';
  /** Digital silence kept in a row, at most, in samples (Infinity: every pause whole). */
  readonly maxPauseSamples: number;
}

/**
 * Digital silence a hold keeps in a row: 1 s. The pause after an utterance is paced silence up to
 * the silence cap (~5 s) when no service ends the turn, so held whole it was most of the hold: the
 * day soak lost the oldest words of its outage to it in the link's hold, and a session retrying for
 * ~30-50 s would lose them in its unanswered speech the same way (issue #55). A held utterance ends
 * with its explicit end; the pauses between its words stay. Only `untilAcknowledged` keeps every
 * pause: it replays exactly the messages the service did not consume.
 */
export const HELD_PAUSE_SAMPLES = 16_000;

function makePolicy(
  reason: UnheardReason,
  maxMs: number,
  whenFull: UnheardPolicy['whenFull'],
  afterReplay: UnheardPolicy['afterReplay'],
  maxPauseSamples = Infinity,
): UnheardPolicy {
  return Object.freeze({ reason, maxMs, whenFull, afterReplay, maxPauseSamples });
}

/** Held while a screener decides; full, it is refused: the held audio would no longer start at the utterance's start. */
export const untilJudged = (maxMs: number): UnheardPolicy => makePolicy('until judged', maxMs, 'refuse', 'released');
/** Held while the call has no session (parked, waking, down): the newest `maxMs` with their ends, pauses cut at 1 s. */
export const untilSessionUp = (maxMs: number): UnheardPolicy =>
  makePolicy('until a session is up', maxMs, 'evict oldest', 'released', HELD_PAUSE_SAMPLES);
/** Held while a session's socket reconnects: sent, in order, on the next one, pauses cut at 1 s. */
export const untilSocketUp = (maxMs: number): UnheardPolicy =>
  makePolicy('until a socket is up', maxMs, 'evict oldest', 'released', HELD_PAUSE_SAMPLES);
/** Sent, kept until the service confirms it consumed it (entries tagged with their message numbers). */
export const untilAcknowledged = (maxMs: number): UnheardPolicy =>
  makePolicy('until acknowledged', maxMs, 'evict oldest', 'released');
/** Kept until the service begins answering it: a replay on a new socket keeps it (a second drop replays it again); pauses cut at 1 s. */
export const untilAnswered = (maxMs: number): UnheardPolicy =>
  makePolicy('until answered', maxMs, 'evict oldest', 'kept', HELD_PAUSE_SAMPLES);

/** A chunk replayed: valid during the call only. `seq` numbers the store's entries in order; `tag` is the caller's. */
export type UnheardSend = (pcm: Int16Array, seq: number, tag: number) => void;
/** An end of speech replayed. */
export type UnheardEnd = (seq: number, tag: number) => void;

/** The silence run after `pcm` under a pause cap, or null when `pcm` is silence past it (not kept). */
function pauseRun(pcm: Int16Array, run: number, max: number): number | null {
  if (max === Infinity || !isDigitalSilence(pcm)) return 0;
  return run >= max ? null : run + pcm.length;
}

export class UnheardSpeech {
  readonly policy: UnheardPolicy;
  /** The policy's bound, in samples; the ring (`#samples`) grows up to it. */
  readonly #capacity: number;
  #samples = new Int16Array(0);
  /** Where the oldest held sample is, and how many are held from there (wrapping). */
  #start = 0;
  #used = 0;
  /** Entries in a ring (a power of two): chunk lengths or END, and the caller's tags. */
  #lengths = new Int32Array(FIRST_ENTRIES);
  #tags = new Float64Array(FIRST_ENTRIES);
  #head = 0;
  #count = 0;
  #chunks = 0;
  /** The number of the oldest entry (entries are numbered in order; a prepend numbers below it). */
  #headSeq = 0;
  /** Digital silence kept in a row at the end (the policy's pause cap). */
  #pause = 0;
  #overflowed = false;
  #evictedSamples = 0;
  #refusedSamples = 0;
  #keptChunks = 0;
  readonly #out = new Map<number, Int16Array>();

  constructor(policy: UnheardPolicy) {
    this.policy = policy;
    this.#capacity = Math.max(1, Math.round((RATE * policy.maxMs) / 1000));
  }

  /** Nothing held (no chunk, no end of speech). */
  get isEmpty(): boolean {
    return this.#count === 0;
  }

  /** At least one chunk held. */
  get hasSpeech(): boolean {
    return this.#chunks > 0;
  }

  /** Entries held: chunks and ends of speech. */
  get size(): number {
    return this.#count;
  }

  /** Samples held. */
  get samples(): number {
    return this.#used;
  }

  /** The number the next entry pushed will have (what is held now is numbered below it). */
  get nextSeq(): number {
    return this.#headSeq + this.#count;
  }

  /** A push was refused for want of room (policy 'refuse'), since the last clear(). */
  get overflowed(): boolean {
    return this.#overflowed;
  }

  /** Samples that gave way to newer speech (policy 'evict oldest'), over the store's life. */
  get evictedSamples(): number {
    return this.#evictedSamples;
  }

  /** Samples refused for want of room (policy 'refuse'), over the store's life. */
  get refusedSamples(): number {
    return this.#refusedSamples;
  }

  /** Samples of room allocated so far (what the store costs: it grows as it first needs to, up to the bound). */
  get allocatedSamples(): number {
    return this.#samples.length;
  }

  /** Chunks kept, over the store's life (a figure: never decreases). */
  get keptChunks(): number {
    return this.#keptChunks;
  }

  /** Copies `pcm` in, after what is held. False: not kept (silence past the pause cap, or full under 'refuse'). */
  push(pcm: Int16Array, tag = 0): boolean {
    const run = pauseRun(pcm, this.#pause, this.policy.maxPauseSamples);
    if (run === null) return false;
    this.#pause = run;
    if (pcm.length === 0) return true;
    const capacity = this.#capacity;
    let from = 0;
    if (this.#used + pcm.length > capacity) {
      if (this.policy.whenFull === 'refuse') {
        this.#overflowed = true;
        this.#refusedSamples += pcm.length;
        return false;
      }
      // A chunk longer than the whole store keeps its newest part.
      if (pcm.length > capacity) from = pcm.length - capacity;
      this.#evictedSamples += from;
      while (this.#used + pcm.length - from > capacity) this.#evictOldest();
    }
    const n = pcm.length - from;
    const samples = this.#room(this.#used + n);
    const at = (this.#start + this.#used) % samples.length;
    if (from === 0 && at + n <= samples.length) samples.set(pcm, at);
    else this.#copyIn(pcm, from, at);
    this.#used += n;
    this.#append(n, tag);
    this.#chunks++;
    this.#keptChunks++;
    return true;
  }

  /** The user stopped talking. Kept after held speech only (never first, never twice in a row); true when kept. */
  end(tag = 0): boolean {
    this.#pause = 0;
    if (this.#count === 0 || this.#lengths[this.#slot(this.#count - 1)] === END) return false;
    this.#append(END, tag);
    return true;
  }

  /**
   * What is held, in order, to `send` and `end`: all of it, or up to the first end of speech with
   * more speech after it ('an utterance': the rest stays, in order). Released as it goes or kept, as
   * the policy says; a kept replay must not push into this store from its callbacks. Returns the
   * samples sent.
   */
  replay(send: UnheardSend, end?: UnheardEnd, upTo: 'all' | 'an utterance' = 'all'): number {
    const one = upTo === 'an utterance';
    return this.policy.afterReplay === 'kept' ? this.#walk(send, end, one) : this.#release(send, end, one);
  }

  /** Forgets the oldest entries while their tag is at most `tag` (what the service confirmed: not counted as evicted). */
  releaseThrough(tag: number): void {
    while (this.#count > 0 && this.#tags[this.#head]! <= tag) this.#popHead();
  }

  /**
   * Puts `items` (chunks; null for an end of speech) ahead of everything held, in their order and
   * under the policy's pause cap: speech a session handed back, older than what is held. What does
   * not fit gives way, oldest first (counted), whatever the policy's `whenFull`.
   */
  prepend(items: readonly (Int16Array | null)[]): void {
    const kept = this.#pauseCut(items);
    const capacity = this.#capacity;
    let evicting = false;
    for (let i = kept.length - 1; i >= 0; i--) {
      const pcm = kept[i] ?? null;
      if (pcm === null) {
        if (!evicting && (this.#count === 0 || this.#lengths[this.#head] !== END)) this.#unshift(END);
      } else if (evicting || this.#used + pcm.length > capacity) {
        evicting = true;
        this.#evictedSamples += pcm.length;
      } else if (pcm.length > 0) {
        const ring = this.#room(this.#used + pcm.length).length;
        this.#start = (this.#start - pcm.length + ring) % ring;
        this.#copyIn(pcm, 0, this.#start);
        this.#used += pcm.length;
        this.#unshift(pcm.length);
        this.#chunks++;
        this.#keptChunks++;
      }
    }
    // An end first (its speech gave way) closes an utterance with nothing left of it.
    if (this.#count > 0 && this.#lengths[this.#head] === END) this.#popHead();
  }

  /** Forgets everything held (the figures stay). */
  clear(): void {
    this.#headSeq += this.#count;
    this.#head = 0;
    this.#count = 0;
    this.#chunks = 0;
    this.#start = 0;
    this.#used = 0;
    this.#pause = 0;
    this.#overflowed = false;
  }

  /**
   * The ring, with room for `needed` samples (at most the policy's bound): grown by doubling when
   * short, what is held copied to its start. Once warm it is the same ring every push.
   */
  #room(needed: number): Int16Array {
    const old = this.#samples;
    if (needed <= old.length) return old;
    const ring = new Int16Array(Math.min(this.#capacity, Math.max(needed, 2 * old.length, FIRST_SAMPLES)));
    for (let i = 0, r = this.#start; i < this.#used; i++) {
      ring[i] = old[r]!;
      if (++r === old.length) r = 0;
    }
    this.#samples = ring;
    this.#start = 0;
    return ring;
  }

  #slot(index: number): number {
    return (this.#head + index) & (this.#lengths.length - 1);
  }

  #release(send: UnheardSend, end: UnheardEnd | undefined, one: boolean): number {
    let sent = 0;
    while (this.#count > 0) {
      const seq = this.#headSeq;
      const tag = this.#tags[this.#head]!;
      const length = this.#lengths[this.#head]!;
      // Copied out before the entry is released: the callbacks may push into this store again.
      const pcm = length === END ? null : this.#copyOut(this.#start, length);
      this.#popHead();
      if (pcm === null) {
        end?.(seq, tag);
        if (one && this.#chunks > 0) break;
      } else {
        sent += length;
        send(pcm, seq, tag);
      }
    }
    if (this.#count === 0) this.#pause = 0;
    return sent;
  }

  #walk(send: UnheardSend, end: UnheardEnd | undefined, one: boolean): number {
    let sent = 0;
    let offset = this.#start;
    let chunks = 0;
    for (let i = 0; i < this.#count; i++) {
      const slot = this.#slot(i);
      const length = this.#lengths[slot]!;
      if (length === END) {
        end?.(this.#headSeq + i, this.#tags[slot]!);
        if (one && chunks < this.#chunks) break;
        continue;
      }
      send(this.#copyOut(offset, length), this.#headSeq + i, this.#tags[slot]!);
      offset = (offset + length) % this.#samples.length;
      sent += length;
      chunks++;
    }
    return sent;
  }

  /** The oldest entry gives way (counted); an end right after it closes an utterance with nothing left of it. */
  #evictOldest(): void {
    const length = this.#popHead();
    if (length > 0) this.#evictedSamples += length;
    if (length > 0 && this.#count > 0 && this.#lengths[this.#head] === END) this.#popHead();
  }

  /** Removes the oldest entry; returns its length (END for an end of speech). */
  #popHead(): number {
    const length = this.#lengths[this.#head]!;
    if (length !== END) {
      this.#start = (this.#start + length) % this.#samples.length;
      this.#used -= length;
      this.#chunks--;
    }
    this.#head = this.#slot(1);
    this.#count--;
    this.#headSeq++;
    if (this.#count === 0) this.#start = 0;
    return length;
  }

  #append(length: number, tag: number): void {
    if (this.#count === this.#lengths.length) this.#grow();
    const slot = this.#slot(this.#count);
    this.#lengths[slot] = length;
    this.#tags[slot] = tag;
    this.#count++;
  }

  #unshift(length: number): void {
    if (this.#count === this.#lengths.length) this.#grow();
    this.#head = this.#slot(this.#lengths.length - 1);
    this.#lengths[this.#head] = length;
    this.#tags[this.#head] = 0;
    this.#count++;
    this.#headSeq--;
  }

  #grow(): void {
    const lengths = new Int32Array(this.#lengths.length * 2);
    const tags = new Float64Array(lengths.length);
    for (let i = 0; i < this.#count; i++) {
      lengths[i] = this.#lengths[this.#slot(i)]!;
      tags[i] = this.#tags[this.#slot(i)]!;
    }
    this.#lengths = lengths;
    this.#tags = tags;
    this.#head = 0;
  }

  /** Copies `pcm` from `from` into the ring at `at`, wrapping (plain loops: a subarray() would allocate a view). */
  #copyIn(pcm: Int16Array, from: number, at: number): void {
    const samples = this.#samples;
    const n = pcm.length - from;
    const first = Math.min(n, samples.length - at);
    for (let i = 0; i < first; i++) samples[at + i] = pcm[from + i]!;
    for (let i = first; i < n; i++) samples[i - first] = pcm[from + i]!;
  }

  /** `length` samples of the ring from `offset` (wrapping), in the reused buffer of that length. */
  #copyOut(offset: number, length: number): Int16Array {
    let out = this.#out.get(length);
    if (out === undefined) {
      out = new Int16Array(length);
      if (length <= MAX_REUSED_SAMPLES && this.#out.size < MAX_REUSED_LENGTHS) this.#out.set(length, out);
    }
    const samples = this.#samples;
    const first = Math.min(length, samples.length - offset);
    for (let i = 0; i < first; i++) out[i] = samples[offset + i]!;
    for (let i = first; i < length; i++) out[i] = samples[i - first]!;
    return out;
  }

  /** `items` under the pause cap, in order (a prepend is rare: a new list is fine). */
  #pauseCut(items: readonly (Int16Array | null)[]): readonly (Int16Array | null)[] {
    const max = this.policy.maxPauseSamples;
    if (max === Infinity) return items;
    const kept: (Int16Array | null)[] = [];
    let run = 0;
    for (const pcm of items) {
      const next = pcm === null ? 0 : pauseRun(pcm, run, max);
      if (next === null) continue;
      run = next;
      kept.push(pcm);
    }
    return kept;
  }
}
