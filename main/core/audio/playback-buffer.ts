// The jitter buffer between the model's bursty 24 kHz replies and Discord's 20 ms pull clock: the
// playback stage (bridge/pipeline.ts). It stores the model's 24 kHz mono (half the memory of
// 48 kHz) and hands out 20 ms frames at that rate, 480 samples each, pulled on the encoder's clock
// through the upsample stage (playback-upsampler.ts), which says how each one plays
// (ReplyFrameShape): the fades are shaped on the filter's 48 kHz output there.
//
// Turns: audio written after endTurn()/startTurn() (or into an idle buffer) opens a new turn.
// interrupt() fades out within one frame, discards the turn's buffered audio and makes the turn
// sticky-silent: late audio of that turn is dropped until endTurn() (Gemini: `turnComplete`, which
// follows `interrupted`) or startTurn() (a provider that announces new responses) lifts it.
// hold() fades out the same way but keeps the turn: its audio waits, buffered, until release()
// (which fades it back in) or interrupt() (which drops it): a barge-in not yet confirmed.
import { FRAME_SAMPLES_48K } from '../ports.ts';

const IN_RATE = 24_000;
const IN_PER_MS = IN_RATE / 1000;
const IN_FRAME = FRAME_SAMPLES_48K / 2; // 480 samples = 20 ms at 24 kHz
const FRAME_MS = 20;

/**
 * How a 20 ms frame of the buffer plays (the upsample stage shapes it at 48 kHz):
 * - 'silence': nothing (the frame's samples are not written);
 * - 'speech': 480 samples of the reply (a short last one padded with zeros);
 * - 'fade-in': the same, rising from silence over fadeSamples (a held reply playing on);
 * - 'fade-out': its first fadeSamples are the stream's next ones, to fall to silence over them, and
 *   nothing after them; the filter starts again from silence after this frame (the barge-in fade).
 */
export type ReplyFrameShape = 'silence' | 'speech' | 'fade-in' | 'fade-out';

/** The buffer's side of the pull edge playback → upsample (pipeline.ts, `pull@24k`). */
export interface ReplyFrameSource {
  /** Fills `out` (480 samples, 20 ms at 24 kHz) with the next frame and says how it plays. */
  readFrame(out: Int16Array): ReplyFrameShape;
  /** Whole 20 ms frames buffered past the playing point (PlaybackSource.framesAhead). */
  framesAhead(): number;
  /** 24 kHz samples a fade spans (10 ms: 240). */
  readonly fadeSamples: number;
}

export type PlaybackTurnState = 'idle' | 'active' | 'ending' | 'interrupted';

export interface PlaybackBufferOptions {
  /** Ring size to start with; grows (doubling) as a long reply is buffered. Default 10 s. */
  initialCapacityMs?: number;
  /** Hard cap on buffered audio; more is dropped and counted. Default 120 s. */
  maxBufferedMs?: number;
  /** Upper bound of the adaptive start margin added after underruns. Default 100 ms. */
  maxMarginMs?: number;
  /** Barge-in fade length, 1-20 ms. Default 10 ms. */
  fadeMs?: number;
  /** Clean frames after which the margin shrinks by one frame again. Default 250 (5 s). */
  marginDecayFrames?: number;
}

export interface PlaybackStats {
  turnState: PlaybackTurnState;
  bufferedMs: number;
  /** Frames handed to the player (always one per clock tick). */
  framesRead: number;
  /** Of those, frames that carried model speech. */
  framesPlayed: number;
  /**
   * Gaps in the middle of a reply: the buffer ran dry while its turn was open and more audio of
   * the same turn came after. A turn that simply ends after its audio ran out is not one.
   */
  underruns: number;
  /** Current start margin on top of the first 20 ms frame. */
  marginMs: number;
  /** Speech of the current (or last) turn handed to the player, ms. */
  turnPlayedMs: number;
  turns: number;
  interrupts: number;
  /** Late audio of an interrupted turn that was dropped, ms. */
  droppedLateMs: number;
  /** Audio dropped because maxBufferedMs was exceeded, ms. */
  overflowDroppedMs: number;
}

export class PlaybackBuffer implements ReplyFrameSource {
  readonly fadeSamples: number;
  readonly #maxSamples: number;
  readonly #maxMarginSamples: number;
  readonly #marginDecayFrames: number;

  #ring: Int16Array;
  #read = 0;
  #fill = 0;
  #turn: PlaybackTurnState = 'idle';
  #playing = false;
  #marginSamples = 0;
  #cleanFrames = 0;
  /** Samples of an ended turn still queued ahead of the current turn's audio. */
  #previousTurnTail = 0;
  #turnPlayed = 0;

  /** The fade's samples, taken from the stream when it was asked for (the ring is dropped then). */
  readonly #fade: Int16Array;
  #fadePending = false;
  /** Held (hold()): silence goes out, the turn's audio waits in the ring. */
  #held = false;
  /** The first frame after release() starts with a fade-in (the filter restarts from silence). */
  #fadeInPending = false;

  #framesRead = 0;
  #framesPlayed = 0;
  #underruns = 0;
  /**
   * The open turn's audio ran out while it played. Only more audio of the same turn makes that an
   * underrun: a provider that ends turns on a quiet gap (GPT-Live: 700 ms without audio) leaves
   * every reply's end open for a while, and counting those would grow the start margin, and so
   * the next reply's latency, after every reply.
   */
  #ranDry = false;
  #turns = 0;
  #interrupts = 0;
  #droppedLate = 0;
  #overflowDropped = 0;

  constructor(options: PlaybackBufferOptions = {}) {
    const fadeMs = options.fadeMs ?? 10;
    if (!(fadeMs >= 1 && fadeMs <= FRAME_MS)) throw new RangeError('fadeMs must be 1-20');
    this.fadeSamples = Math.round(fadeMs * 24);
    this.#fade = new Int16Array(this.fadeSamples);
    this.#maxSamples = Math.round((options.maxBufferedMs ?? 120_000) * IN_PER_MS);
    this.#maxMarginSamples = Math.round((options.maxMarginMs ?? 100) * IN_PER_MS);
    this.#marginDecayFrames = Math.max(1, Math.floor(options.marginDecayFrames ?? 250));
    this.#ring = new Int16Array(
      Math.min(this.#maxSamples, Math.round((options.initialCapacityMs ?? 10_000) * IN_PER_MS)),
    );
  }

  get turnState(): PlaybackTurnState {
    return this.#turn;
  }

  /** Queue model speech (24 kHz mono s16, any length; copied). Dropped while the turn is interrupted. */
  write(pcm24kMono: Int16Array): void {
    const n = pcm24kMono.length;
    if (n === 0) return;
    if (this.#turn === 'interrupted') {
      this.#droppedLate += n;
      return;
    }
    if (this.#turn !== 'active') {
      // A fade-in owed to a held turn whose audio ran out is not the new reply's.
      if (this.#fill === 0) this.#fadeInPending = false;
      this.#previousTurnTail = this.#turn === 'ending' ? this.#fill : 0;
      this.#turn = 'active';
      this.#turnPlayed = 0;
      this.#turns++;
      this.#ranDry = false;
    } else if (this.#ranDry) {
      this.#ranDry = false;
      this.#noteUnderrun();
    }
    const accepted = this.#makeRoom(n);
    if (accepted < n) this.#overflowDropped += n - accepted;
    const ring = this.#ring;
    let w = (this.#read + this.#fill) % ring.length;
    for (let i = 0; i < accepted; i++) {
      ring[w] = pcm24kMono[i]!;
      if (++w === ring.length) w = 0;
    }
    this.#fill += accepted;
  }

  /** The model finished its turn: play what is buffered to the end; the next write starts a new turn. */
  endTurn(): void {
    this.#ranDry = false;
    if (this.#turn === 'interrupted') this.#turn = 'idle';
    else if (this.#turn === 'active') this.#turn = this.#fill > 0 ? 'ending' : 'idle';
  }

  /** A new turn begins: lifts the barge-in silence; audio still queued from an active turn plays out first. */
  startTurn(): void {
    this.endTurn();
  }

  /**
   * Barge-in: fade out within the next frame, discard the turn's buffered audio and drop any more of
   * it until endTurn()/startTurn(). Returns how much of the turn was handed to the player.
   */
  interrupt(): { playedMs: number } {
    if (this.#turn === 'idle' && this.#fill === 0) return { playedMs: 0 };
    this.#interrupts++;
    this.#ranDry = false;
    // Held: the fade has gone out already; what waits is dropped.
    if (!this.#fadePending && !this.#held) this.#prepareFade();
    this.#held = false;
    this.#fadeInPending = false;
    this.#fill = 0;
    this.#read = 0;
    this.#playing = false;
    this.#previousTurnTail = 0;
    // An ended turn has no more audio coming; only an active one needs the sticky silence.
    this.#turn = this.#turn === 'ending' ? 'idle' : 'interrupted';
    return { playedMs: this.#turnPlayed / IN_PER_MS };
  }

  /**
   * Stop playing within the next frame (the same fade as interrupt()) but keep the turn: its audio
   * waits, and more is buffered, until release() or interrupt(). A no-op with nothing playing.
   */
  hold(): void {
    if (this.#held || !this.#playing) return;
    this.#held = true;
    // The fade takes the filter's state with it; the audio resumes from silence (release()).
    if (!this.#fadePending) this.#prepareFade();
  }

  /** Play the held turn on from where hold() faded it, fading back in. */
  release(): void {
    if (!this.#held) return;
    this.#held = false;
    this.#fadeInPending = true;
  }

  get held(): boolean {
    return this.#held;
  }

  /** The next 20 ms (480 samples at 24 kHz) into `out`, and how it plays: one frame per clock tick, silence when there is nothing to play. */
  readFrame(out: Int16Array): ReplyFrameShape {
    if (out.length !== IN_FRAME) throw new RangeError(`readFrame needs ${IN_FRAME} samples, got ${out.length}`);
    this.#framesRead++;
    if (this.#fadePending) {
      this.#fadePending = false;
      out.set(this.#fade);
      return 'fade-out';
    }
    if (this.#held || !this.#shouldPlay()) return 'silence';
    this.#playSpeech(out);
    if (!this.#fadeInPending) return 'speech';
    this.#fadeInPending = false;
    return 'fade-in';
  }

  /** Whole frames of speech buffered past the playing point (0 until playback has started). */
  framesAhead(): number {
    return this.#playing && !this.#fadePending && !this.#held ? Math.floor(this.#fill / IN_FRAME) : 0;
  }

  /**
   * Nothing left to play: no model speech queued, no fade. A turn may still be open (a provider
   * that ends turns on a quiet gap, GPT-Live, keeps it open for that gap after its audio).
   */
  get drained(): boolean {
    return this.#fill === 0 && !this.#fadePending;
  }

  /** Forget everything (leaving the call): buffered audio, turn state. Counters are kept. */
  reset(): void {
    this.#fill = 0;
    this.#read = 0;
    this.#playing = false;
    this.#turn = 'idle';
    this.#previousTurnTail = 0;
    this.#ranDry = false;
    this.#fadePending = false;
    this.#held = false;
    this.#fadeInPending = false;
  }

  stats(): PlaybackStats {
    return {
      turnState: this.#turn,
      bufferedMs: this.#fill / IN_PER_MS,
      framesRead: this.#framesRead,
      framesPlayed: this.#framesPlayed,
      underruns: this.#underruns,
      marginMs: this.#marginSamples / IN_PER_MS,
      turnPlayedMs: this.#turnPlayed / IN_PER_MS,
      turns: this.#turns,
      interrupts: this.#interrupts,
      droppedLateMs: this.#droppedLate / IN_PER_MS,
      overflowDroppedMs: this.#overflowDropped / IN_PER_MS,
    };
  }

  /** Start on the first whole frame (plus the adaptive margin); an ending turn plays out whatever is left. */
  #shouldPlay(): boolean {
    if (this.#fill === 0) {
      if (this.#playing && this.#turn === 'active') this.#ranDry = true;
      if (this.#turn === 'ending') this.#turn = 'idle';
      this.#playing = false;
      return false;
    }
    if (!this.#playing) {
      const ready =
        this.#fill >= IN_FRAME + this.#marginSamples || this.#turn === 'ending' || this.#previousTurnTail > 0;
      if (!ready) return false;
      this.#playing = true;
    }
    return true;
  }

  #playSpeech(out: Int16Array): void {
    const take = Math.min(IN_FRAME, this.#fill);
    if (take < IN_FRAME && this.#turn === 'active') {
      // Ran dry with the turn open: play what there is (the filter runs on into the zeros after it), then wait
      // for more (an underrun if it comes, the reply's end if the turn ends instead).
      this.#ranDry = true;
      this.#playing = false;
    } else if (++this.#cleanFrames >= this.#marginDecayFrames && this.#marginSamples > 0) {
      this.#cleanFrames = 0;
      this.#marginSamples = Math.max(0, this.#marginSamples - IN_FRAME);
    }
    this.#consume(take, out, 0);
    if (take < IN_FRAME) out.fill(0, take);
    this.#framesPlayed++;
    if (this.#fill === 0 && this.#turn === 'ending') {
      this.#turn = 'idle';
      this.#playing = false;
    }
  }

  /** Each underrun adds one frame of start margin (up to the cap); clean playback removes it again. */
  #noteUnderrun(): void {
    this.#underruns++;
    this.#cleanFrames = 0;
    this.#marginSamples = Math.min(this.#maxMarginSamples, this.#marginSamples + IN_FRAME);
  }

  /** Copy `count` buffered samples into `dest` and account them to the right turn. */
  #consume(count: number, dest: Int16Array, destOffset: number): void {
    const ring = this.#ring;
    const first = Math.min(count, ring.length - this.#read);
    // A loop, not set(subarray()): a view per frame would be an allocation per frame.
    for (let i = 0, r = this.#read; i < first; i++) dest[destOffset + i] = ring[r + i]!;
    for (let i = first; i < count; i++) dest[destOffset + i] = ring[i - first]!;
    this.#read = (this.#read + count) % ring.length;
    this.#fill -= count;
    const fromPrevious = Math.min(count, this.#previousTurnTail);
    this.#previousTurnTail -= fromPrevious;
    this.#turnPlayed += count - fromPrevious;
  }

  /** The stream's next fadeSamples, to fade out over (zeros where there is no more of it). */
  #prepareFade(): void {
    const fade = this.#fade;
    const fromRing = this.#playing ? Math.min(fade.length, this.#fill) : 0;
    if (fromRing > 0) this.#consume(fromRing, fade, 0);
    fade.fill(0, fromRing);
    this.#fadePending = true;
  }

  /** Make room for `n` more samples (growing the ring, warm-up only); returns how many fit. */
  #makeRoom(n: number): number {
    const needed = this.#fill + n;
    if (needed <= this.#ring.length) return n;
    const capacity = Math.min(this.#maxSamples, Math.max(needed, this.#ring.length * 2));
    if (capacity > this.#ring.length) {
      const next = new Int16Array(capacity);
      for (let i = 0, r = this.#read; i < this.#fill; i++) {
        next[i] = this.#ring[r]!;
        if (++r === this.#ring.length) r = 0;
      }
      this.#ring = next;
      this.#read = 0;
    }
    return Math.min(n, this.#ring.length - this.#fill);
  }
}
