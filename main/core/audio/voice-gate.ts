// Decides what of the 16 kHz mono input stream is sent to the model: speech, not hours of silence
// (audio is billed by the second), without clipping a word. Energy gate on 10 ms analysis frames
// with an adaptive noise floor, hysteresis, >= 200 ms of pre-roll (the quiet start of a word that
// precedes the energy that opened the gate) and a hangover that carries natural pauses.
// Output is re-chunked to a fixed size; when the gate closes the last chunk is padded with silence
// and `onEnd` fires (the end of the user's turn for the model: audio/end-of-turn.ts).
//
// Who closes it (issue #52): after `hangoverMs` of quiet the gate asks `holdTurn()`. An utterance
// the service hears is the service's turn: the gate stays open and keeps handing on the pause as
// digital silence, in real time (the caller feeds time as pushSilence), so the service's own
// detector sees the pause as it happened, until the service ends the turn (`serviceEndedTurn()`)
// or `turnCapMs` of quiet have passed (nobody pays for a silent room). An utterance nobody
// downstream owns (withheld by the wake-name gate) closes at the hangover, as before.
//
// With a classifier (voice-classifier.ts, off unless given), an onset the energy rule would open on
// first waits, "pending", for the classifier to call it speech: the turn opens on that verdict, with
// the pre-roll and the pending audio, or never, when the sound falls quiet first (a keyboard burst,
// a cough, music: docs/audio.md "Phantom turns"). Nothing is lost while it waits; the turn's first
// chunk is only later by the verdict's delay.

import { isBurst } from './burst.ts';
import { DEFAULT_SPEECH_THRESHOLD, type VoiceActivityClassifier } from './voice-classifier.ts';
import {
  DEFAULT_HANGOVER_MS,
  DEFAULT_TURN_CAP_MS,
  type VoiceGateOptions,
  type VoiceGateStats,
} from './voice-gate-options.ts';

// The gate's contract lives beside it (voice-gate-options.ts); its importers keep importing it from here.
export {
  DEFAULT_HANGOVER_MS,
  DEFAULT_TURN_CAP_MS,
  type VoiceGateOptions,
  type VoiceGateStats,
} from './voice-gate-options.ts';

const RATE = 16_000;
const ANALYSIS_SAMPLES = 160; // 10 ms
const FULL_SCALE = 32768;
/**
 * While a turn is held through a pause, what is in the chunk goes out every PAUSE_PIECE samples
 * (20 ms) instead of when the chunk is full: the service's detector counts the pause as it happens,
 * so the bridge adds at most this to its silence window (issue #52's ≤ 40 ms), not a whole chunk.
 */
const PAUSE_PIECE = 320;
/** A block's minimum before it has seen a frame. */
const MIN_UNSET = 100;
/**
 * Classifier windows of the lead-up heard when an onset starts (context for its state). Measured on
 * the noise corpus with Silero (docs/audio.md "Phantom turns"): 1 window opened a synthetic voice
 * 950 ms late, 2 within 60 ms, with no phantom start either way; 4 let one through, 8 cost 15 % more windows.
 */
const PRIME_WINDOWS = 2;
/** Audio an onset may wait for its classifier's verdict and still be sent whole, beyond the pre-roll. */
const MAX_PENDING_MS = 1000;

/**
 * The service's end of a turn closes the gate only after this much quiet (20 frames, 200 ms: the
 * shortest patience). A real end comes after the service heard a pause; an end that arrives while
 * the speaker is talking or between two words (a late event about an earlier turn) must not cut
 * the utterance in progress: it waits for a pause this long, and a loud frame cancels it.
 */
const SERVICE_END_QUIET_FRAMES = 20;

export class VoiceGate {
  readonly #onChunk: (chunk: Int16Array) => void;
  readonly #onEnd: (trailingQuietMs: number) => void;
  readonly #onOpen: (() => void) | undefined;
  readonly #hangoverFrames: number;
  #capFrames: number;
  readonly #holdTurn: () => boolean;
  /** The hangover passed and the turn was held: the gate closes at the cap or the service's end. */
  #held = false;
  /** The service ended the turn before SERVICE_END_QUIET_FRAMES of quiet: close when they have passed. */
  #endPending = false;
  readonly #minOpenDbfs: number;
  readonly #openAboveNoiseDb: number;
  readonly #closeHysteresisDb: number;
  readonly #openFrames: number;
  readonly #maxBurstShare: number;
  /** Frames per block of the open gate's running minimum (a third of stationaryAfterMs); 0: off. */
  readonly #stationaryBlock: number;
  readonly #closeOnStationary: boolean;
  #openRun = 0;
  #minBlock = 0;
  /** Mean square of the open gate's last 5 frames (ring). */
  readonly #recentEnergy = new Float64Array(5);
  #recentAt = 0;
  readonly #classifier: VoiceActivityClassifier | undefined;
  readonly #speechThreshold: number;
  /** The classifier's window being filled while an onset is pending (reused). */
  readonly #window: Int16Array;
  #windowFill = 0;
  /** An onset waits for the classifier's verdict. */
  #pending = false;
  #rejectedOnsets = 0;
  /** Bound once: the classifier's callback (no closure per window). */
  readonly #onVerdict = (speechProbability: number): void => {
    if (this.#pending && speechProbability >= this.#speechThreshold) this.#confirm();
  };

  readonly #frame = new Int16Array(ANALYSIS_SAMPLES);
  #frameFill = 0;
  /** Recent input (pre-roll plus the opening frames), circular. */
  readonly #ring: Int16Array;
  #ringWrite = 0;
  /** Samples in the ring that have not been sent (so a quick re-open never sends audio twice). */
  #ringUnsent = 0;
  /** The pre-roll and opening frames, samples: what an onset sends from before its verdict. */
  readonly #preRollSamples: number;
  readonly #chunk: Int16Array;
  #chunkFill = 0;
  /** Views of the chunk's first k analysis frames (index k), made once: a held pause's pieces. */
  readonly #chunkHeads: Int16Array[];

  #open = false;
  #loudRun = 0;
  #quietRun = 0;
  /**
   * [noise floor dBFS, last level dBFS, the open gate's quietest frame in this block, in the last
   * three blocks] in a typed array rather than fields: fractional values
   * written to plain fields measured a boxed number per open/close cycle (allocations.test.ts).
   */
  readonly #levels = Float64Array.of(-70, -100, MIN_UNSET, MIN_UNSET, MIN_UNSET, MIN_UNSET);
  #opens = 0;
  #sentSamples = 0;

  constructor(options: VoiceGateOptions) {
    const chunkMs = options.chunkMs ?? 100;
    if (!(chunkMs >= 20 && chunkMs <= 100) || (chunkMs * RATE) % 1000 !== 0)
      throw new RangeError('chunkMs must be 20-100 (whole samples)');
    const preRollMs = options.preRollMs ?? 300;
    if (!(preRollMs >= 200 && preRollMs <= 2000)) throw new RangeError('preRollMs must be 200-2000');
    this.#onChunk = options.onChunk;
    this.#onEnd = options.onEnd;
    this.#onOpen = options.onOpen;
    this.#hangoverFrames = Math.max(1, Math.round((options.hangoverMs ?? DEFAULT_HANGOVER_MS) / 10));
    this.#capFrames = this.#hangoverFrames;
    this.setTurnCap(options.turnCapMs ?? DEFAULT_TURN_CAP_MS);
    this.#holdTurn = options.holdTurn ?? (() => false);
    this.#minOpenDbfs = options.minOpenDbfs ?? -50;
    this.#openAboveNoiseDb = options.openAboveNoiseDb ?? 12;
    this.#closeHysteresisDb = options.closeHysteresisDb ?? 6;
    this.#openFrames = Math.max(1, Math.floor(options.openFrames ?? 2));
    this.#chunk = new Int16Array((chunkMs * RATE) / 1000);
    this.#chunkHeads = Array.from({ length: this.#chunk.length / ANALYSIS_SAMPLES + 1 }, (_, k) =>
      this.#chunk.subarray(0, k * ANALYSIS_SAMPLES),
    );
    this.#maxBurstShare = options.maxBurstShare ?? 0.5;
    this.#stationaryBlock = Math.round((options.stationaryAfterMs ?? 1500) / 30);
    this.#closeOnStationary = options.closeOnStationary ?? false;
    this.#classifier = options.classifier;
    this.#speechThreshold = options.speechThreshold ?? DEFAULT_SPEECH_THRESHOLD;
    this.#window = new Int16Array(this.#classifier?.windowSamples ?? 0);
    // Pre-roll measured from the first loud frame, so the ring also holds the opening frames (and,
    // with a classifier, the audio heard while the onset waits for its verdict).
    const frames = (ms: number) => Math.ceil((ms * RATE) / 1000 / ANALYSIS_SAMPLES) * ANALYSIS_SAMPLES;
    this.#preRollSamples = frames(preRollMs) + this.#openFrames * ANALYSIS_SAMPLES;
    this.#ring = new Int16Array(this.#preRollSamples + (this.#classifier ? frames(MAX_PENDING_MS) : 0));
  }

  get isOpen(): boolean {
    return this.#open;
  }

  /** An onset waits for the classifier's verdict (nothing has been sent for it yet). */
  get isPending(): boolean {
    return this.#pending;
  }

  /** The quiet after which a held turn closes (ms, at least the hangover); applies from the next frame. */
  setTurnCap(ms: number): void {
    this.#capFrames = Math.max(this.#hangoverFrames, Math.round(ms / 10));
  }

  /**
   * The service ended the user's turn (its detector decided, or it began answering): close now if
   * the speaker has been quiet for SERVICE_END_QUIET_FRAMES, else once they have (a loud frame
   * first cancels it: the speaker goes on, and the service takes that as a turn of its own).
   */
  serviceEndedTurn(): void {
    if (!this.#open) return;
    if (this.#quietRun >= SERVICE_END_QUIET_FRAMES) this.#close();
    else this.#endPending = true;
  }

  /** Feed 16 kHz mono s16 (any length). Chunks and the end event are delivered synchronously. */
  push(pcm16kMono: Int16Array): void {
    // Element loops rather than set(subarray()): a subarray is a new object on every call.
    const frame = this.#frame;
    for (let i = 0; i < pcm16kMono.length; i++) {
      frame[this.#frameFill++] = pcm16kMono[i]!;
      if (this.#frameFill === ANALYSIS_SAMPLES) {
        this.#frameFill = 0;
        this.#analyse();
      }
    }
  }

  /** Time passes with no input (no speaker sent a packet this tick): feed that much digital silence. */
  pushSilence(samples: number): void {
    const frame = this.#frame;
    for (let left = Math.floor(samples); left > 0; left--) {
      frame[this.#frameFill++] = 0;
      if (this.#frameFill === ANALYSIS_SAMPLES) {
        this.#frameFill = 0;
        this.#analyse();
      }
    }
  }

  /**
   * Samples of digital silence after which the gate next does something the model would see (a
   * chunk completes, or the gate closes), if nothing but silence follows; Infinity while closed.
   * A pause's silence is filled in at those moments rather than every 20 ms (CallAudio): the model
   * receives the same chunks at the same times, with a fraction of the wake-ups. While an onset is
   * pending: the silence after which it is dropped (Discord sends nothing after a cough, and an onset
   * left pending would splice the cough onto the next speech's pre-roll).
   */
  silenceSamplesUntilOutput(): number {
    if (this.#pending) return Math.max(1, (this.#hangoverFrames - this.#quietRun) * ANALYSIS_SAMPLES - this.#frameFill);
    if (!this.#open) return Infinity;
    const pending = this.#frameFill; // emitted (and counted as quiet or not) when its frame completes
    const toChunk =
      (this.#held
        ? Math.min(this.#chunk.length, this.#chunkFill - (this.#chunkFill % PAUSE_PIECE) + PAUSE_PIECE)
        : this.#chunk.length) -
      this.#chunkFill -
      pending;
    const toClose = (this.#closeAtFrames() - this.#quietRun) * ANALYSIS_SAMPLES - pending;
    return Math.max(1, Math.min(toChunk, toClose));
  }

  /** Close now if open (call end, e.g. leaving the channel); forgets the pre-roll. */
  flush(): void {
    if (this.#open) this.#close();
    if (this.#pending) this.#dropPendingOnset();
    this.#frameFill = 0;
    this.#ringUnsent = 0;
    this.#loudRun = 0;
  }

  stats(): VoiceGateStats {
    return {
      open: this.#open,
      opens: this.#opens,
      sentMs: (this.#sentSamples * 1000) / RATE,
      noiseFloorDbfs: this.#levels[0]!,
      lastLevelDbfs: this.#levels[1]!,
      rejectedOnsets: this.#rejectedOnsets,
    };
  }

  #analyse(): void {
    const frame = this.#frame;
    // Inline, and dividing by frame.length rather than the module constant: both variants measured
    // allocating (a boxed number per frame) in allocations.test.ts; this one does not.
    let sumSq = 0;
    for (let i = 0; i < frame.length; i++) sumSq += frame[i]! * frame[i]!;
    const rms = Math.sqrt(sumSq / frame.length);
    const level = rms === 0 ? -100 : Math.max(-100, 20 * Math.log10(rms / FULL_SCALE));
    this.#levels[1] = level;
    // Pending (a classifier runs all the while), or open when asked: is the sound stationary?
    if (this.#stationaryBlock > 0 && ((this.#open && this.#closeOnStationary) || this.#pending)) {
      // The level over the last 50 ms: a fan's 10 ms frames dip at random, speech's pauses last.
      const energy = this.#recentEnergy;
      energy[this.#recentAt] = sumSq / frame.length;
      this.#recentAt = (this.#recentAt + 1) % energy.length;
      let recent = 0;
      for (let i = 0; i < energy.length; i++) recent += energy[i]!;
      const recentDb = recent === 0 ? -100 : 10 * Math.log10(recent / energy.length / (FULL_SCALE * FULL_SCALE));
      if (recentDb < this.#levels[2]!) this.#levels[2] = recentDb;
      this.#trackStationary();
    }
    // After the stationary check: the floor may have just risen.
    const openThreshold = Math.max(this.#minOpenDbfs, this.#levels[0]! + this.#openAboveNoiseDb);
    if (this.#open) {
      this.#emit(frame, 0, ANALYSIS_SAMPLES);
      if (level >= openThreshold - this.#closeHysteresisDb) {
        this.#quietRun = 0;
        this.#held = false;
        this.#endPending = false;
      } else this.#quietRun++;
      if (this.#quietRun === this.#hangoverFrames && !this.#held) this.#held = this.#holdTurn();
      if (this.#quietRun >= this.#closeAtFrames()) this.#close();
      else if (this.#held && this.#chunkFill >= PAUSE_PIECE && this.#chunkFill % ANALYSIS_SAMPLES === 0)
        this.#sendPiece();
      return;
    }
    this.#remember(frame);
    // Noise floor: fast fall, slow rise (2 dB/s), only while closed and no onset is pending, so
    // speech never raises it (and a stationary sound's floor is not pulled back down by its dips).
    // Inline: passing a fractional level to a method V8 does not inline boxes it.
    if (!this.#pending) {
      const floor = this.#levels[0]!;
      const next = level < floor ? floor + (level - floor) * 0.5 : Math.min(level, floor + 0.02);
      this.#levels[0] = Math.min(-30, Math.max(-90, next));
    }
    this.#loudRun = level >= openThreshold ? this.#loudRun + 1 : 0;
    if (this.#pending) this.#pendingFrame(frame, level >= openThreshold - this.#closeHysteresisDb);
    else if (this.#loudRun >= this.#openFrames && !this.#burstLike()) {
      if (this.#classifier) this.#startPending();
      else this.#openGate();
    }
  }

  /**
   * The open (or pending) gate's running minimum of its 50 ms level over three blocks (stationaryAfterMs): when
   * even the quietest 50 ms stayed over the close threshold, the sound is stationary and becomes the noise floor.
   * The block's minimum is kept in #levels[2] by the caller (a fractional argument would be boxed).
   */
  #trackStationary(): void {
    const levels = this.#levels;
    if (++this.#openRun % this.#stationaryBlock !== 0) return;
    levels[3 + this.#minBlock] = levels[2]!;
    levels[2] = MIN_UNSET;
    this.#minBlock = (this.#minBlock + 1) % 3;
    if (this.#openRun < 3 * this.#stationaryBlock) return;
    const quietest = Math.min(levels[3]!, levels[4]!, levels[5]!);
    if (quietest >= Math.max(this.#minOpenDbfs, levels[0]! + this.#openAboveNoiseDb) - this.#closeHysteresisDb)
      levels[0] = Math.min(-30, quietest);
  }

  #resetStationary(): void {
    this.#openRun = 0;
    this.#minBlock = 0;
    this.#levels.fill(MIN_UNSET, 2);
    this.#recentEnergy.fill(FULL_SCALE * FULL_SCALE); // loud until real frames replace it: never a false minimum
  }

  /** Whether the opening frames (the last openFrames in the ring) are a click. */
  #burstLike(): boolean {
    if (this.#maxBurstShare >= 1) return false;
    const span = this.#openFrames * ANALYSIS_SAMPLES;
    return isBurst(this.#ring, this.#ringWrite - span + this.#ring.length, span, this.#maxBurstShare);
  }

  /** An onset: ask the classifier about the audio that led to it (the last window's worth in the ring). */
  #startPending(): void {
    const classifier = this.#classifier!;
    this.#pending = true;
    this.#quietRun = 0;
    this.#resetStationary();
    // The ring is longer than the pre-roll (it also keeps the pending audio): send no more from before.
    this.#ringUnsent = Math.min(this.#ringUnsent, this.#preRollSamples);
    classifier.reset();
    // The classifier hears the lead-up too (its state needs context): up to PRIME_WINDOWS windows of
    // the pre-roll, ending with the opening frames; a verdict on any of them may open.
    const ring = this.#ring;
    const window = this.#window;
    const primes = Math.max(1, Math.min(PRIME_WINDOWS, Math.floor(this.#preRollSamples / window.length)));
    for (let w = primes; w >= 1 && this.#pending; w--) {
      const start = this.#ringWrite - w * window.length + ring.length;
      for (let i = 0; i < window.length; i++) window[i] = ring[(start + i) % ring.length]!;
      classifier.classify(window, this.#onVerdict);
    }
    this.#windowFill = 0;
  }

  /** A frame heard while the onset waits: on to the classifier; the onset is dropped once quiet for the hangover. */
  #pendingFrame(frame: Int16Array, loud: boolean): void {
    const window = this.#window;
    for (let i = 0; i < frame.length && this.#pending; i++) {
      window[this.#windowFill++] = frame[i]!;
      if (this.#windowFill === window.length) {
        this.#windowFill = 0;
        this.#classifier!.classify(window, this.#onVerdict); // may confirm at once (then the gate is open)
      }
    }
    if (!this.#pending) return;
    this.#quietRun = loud ? 0 : this.#quietRun + 1;
    if (this.#quietRun >= this.#hangoverFrames) {
      this.#rejectedOnsets++;
      this.#dropPendingOnset();
    }
  }

  #confirm(): void {
    this.#pending = false;
    this.#openGate();
  }

  #dropPendingOnset(): void {
    this.#pending = false;
    this.#quietRun = 0;
    this.#loudRun = 0;
    this.#classifier!.reset();
  }

  /** Quiet frames after which the open gate closes: the service's pending end, the cap of a held turn, or the hangover. */
  #closeAtFrames(): number {
    if (this.#endPending) return SERVICE_END_QUIET_FRAMES;
    return this.#held ? this.#capFrames : this.#hangoverFrames;
  }

  #remember(frame: Int16Array): void {
    const ring = this.#ring;
    ring.set(frame, this.#ringWrite); // ring length is a multiple of the frame size
    this.#ringWrite = (this.#ringWrite + ANALYSIS_SAMPLES) % ring.length;
    this.#ringUnsent = Math.min(ring.length, this.#ringUnsent + ANALYSIS_SAMPLES);
  }

  #openGate(): void {
    this.#open = true;
    this.#opens++;
    this.#resetStationary();
    this.#quietRun = 0;
    this.#loudRun = 0;
    this.#onOpen?.();
    const ring = this.#ring;
    const start = (this.#ringWrite - this.#ringUnsent + ring.length) % ring.length;
    const firstPart = Math.min(this.#ringUnsent, ring.length - start);
    this.#emit(ring, start, firstPart);
    this.#emit(ring, 0, this.#ringUnsent - firstPart);
    this.#ringUnsent = 0;
  }

  #close(): void {
    this.#open = false;
    const trailingQuietMs = this.#quietRun * 10;
    this.#quietRun = 0;
    this.#held = false;
    this.#endPending = false;
    if (this.#chunkFill > 0) {
      this.#chunk.fill(0, this.#chunkFill);
      this.#sentSamples += this.#chunk.length - this.#chunkFill;
      this.#chunkFill = 0;
      this.#onChunk(this.#chunk);
    }
    this.#onEnd(trailingQuietMs);
  }

  /** A held pause's piece: what the chunk holds goes out now (a view made once), and the chunk starts again. */
  #sendPiece(): void {
    const head = this.#chunkHeads[this.#chunkFill / ANALYSIS_SAMPLES]!;
    this.#chunkFill = 0;
    this.#onChunk(head);
  }

  #emit(src: Int16Array, start: number, count: number): void {
    const chunk = this.#chunk;
    this.#sentSamples += count;
    for (let i = start, end = start + count; i < end; i++) {
      chunk[this.#chunkFill++] = src[i]!;
      if (this.#chunkFill === chunk.length) {
        this.#chunkFill = 0;
        this.#onChunk(chunk);
      }
    }
  }
}
