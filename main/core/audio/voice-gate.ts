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

const RATE = 16_000;
const ANALYSIS_SAMPLES = 160; // 10 ms
const FULL_SCALE = 32768;
/** Quiet time after which the gate asks whether the turn is the service's (else it closes there). */
export const DEFAULT_HANGOVER_MS = 500;
/** Quiet time after which a turn the service has not ended is ended by the bridge (config TURN_SILENCE_CAP_MS). */
export const DEFAULT_TURN_CAP_MS = 3000;
/**
 * The service's end of a turn closes the gate only after this much quiet (20 frames, 200 ms: the
 * shortest patience). A real end comes after the service heard a pause; an end that arrives while
 * the speaker is talking or between two words (a late event about an earlier turn) must not cut
 * the utterance in progress: it waits for a pause this long, and a loud frame cancels it.
 */
const SERVICE_END_QUIET_FRAMES = 20;

export interface VoiceGateOptions {
  /**
   * Receives each fixed-size chunk of speech. The array is a reused buffer: use or copy it before
   * returning (the model socket serialises it to base64 synchronously, which is fine).
   */
  onChunk: (chunk16kMono: Int16Array) => void;
  /** The gate closed: the user stopped talking. */
  onEnd: () => void;
  /** The gate opened (speech started): the bridge's hook for local barge-in. */
  onOpen?: () => void;
  /** Chunk length sent to the model, 20-100 ms. Default 100 (the app's default, config INPUT_CHUNK_MS). */
  chunkMs?: number;
  /** Audio kept from before the frames that opened the gate, >= 200 ms. Default 300. */
  preRollMs?: number;
  /** Quiet time after which the gate closes unless `holdTurn()` says the service owns the turn. Default DEFAULT_HANGOVER_MS. */
  hangoverMs?: number;
  /** Asked at the hangover: true keeps the gate open (silence flows on) until the service ends the turn or the cap. Default: never held. */
  holdTurn?: () => boolean;
  /** Quiet time after which a held turn closes anyway. Default DEFAULT_TURN_CAP_MS; never below the hangover. */
  turnCapMs?: number;
  /** A frame never counts as speech below this RMS level. Default -50 dBFS. */
  minOpenDbfs?: number;
  /** Open when a frame is this far above the tracked noise floor. Default 12 dB. */
  openAboveNoiseDb?: number;
  /** Stay open while frames are within this much of the open threshold. Default 6 dB. */
  closeHysteresisDb?: number;
  /** Consecutive loud 10 ms frames needed to open (rejects clicks). Default 2. */
  openFrames?: number;
}

export interface VoiceGateStats {
  open: boolean;
  opens: number;
  sentMs: number;
  noiseFloorDbfs: number;
  lastLevelDbfs: number;
}

export class VoiceGate {
  readonly #onChunk: (chunk: Int16Array) => void;
  readonly #onEnd: () => void;
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

  readonly #frame = new Int16Array(ANALYSIS_SAMPLES);
  #frameFill = 0;
  /** Recent input (pre-roll plus the opening frames), circular. */
  readonly #ring: Int16Array;
  #ringWrite = 0;
  /** Samples in the ring that have not been sent (so a quick re-open never sends audio twice). */
  #ringUnsent = 0;
  readonly #chunk: Int16Array;
  #chunkFill = 0;

  #open = false;
  #loudRun = 0;
  #quietRun = 0;
  /**
   * [noise floor dBFS, last level dBFS] in a typed array rather than fields: fractional values
   * written to plain fields measured a boxed number per open/close cycle (allocations.test.ts).
   */
  readonly #levels = Float64Array.of(-70, -100);
  #opens = 0;
  #sentSamples = 0;

  constructor(options: VoiceGateOptions) {
    const chunkMs = options.chunkMs ?? 100;
    if (!(chunkMs >= 20 && chunkMs <= 100) || (chunkMs * RATE) % 1000 !== 0) throw new RangeError('chunkMs must be 20-100 (whole samples)');
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
    // Pre-roll measured from the first loud frame, so the ring also holds the opening frames.
    this.#ring = new Int16Array(Math.ceil((preRollMs * RATE) / 1000 / ANALYSIS_SAMPLES) * ANALYSIS_SAMPLES + this.#openFrames * ANALYSIS_SAMPLES);
  }

  get isOpen(): boolean {
    return this.#open;
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
   * receives the same chunks at the same times, with a fraction of the wake-ups.
   */
  silenceSamplesUntilOutput(): number {
    if (!this.#open) return Infinity;
    const pending = this.#frameFill; // emitted (and counted as quiet or not) when its frame completes
    const toChunk = this.#chunk.length - this.#chunkFill - pending;
    const toClose = (this.#closeAtFrames() - this.#quietRun) * ANALYSIS_SAMPLES - pending;
    return Math.max(1, Math.min(toChunk, toClose));
  }

  /** Close now if open (call end, e.g. leaving the channel); forgets the pre-roll. */
  flush(): void {
    if (this.#open) this.#close();
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
      return;
    }
    this.#remember(frame);
    // Noise floor: fast fall, slow rise (2 dB/s), only while closed, so speech never raises it.
    // Inline: passing a fractional level to a method V8 does not inline boxes it.
    const floor = this.#levels[0]!;
    const next = level < floor ? floor + (level - floor) * 0.5 : Math.min(level, floor + 0.02);
    this.#levels[0] = Math.min(-30, Math.max(-90, next));
    this.#loudRun = level >= openThreshold ? this.#loudRun + 1 : 0;
    if (this.#loudRun >= this.#openFrames) this.#openGate();
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
    this.#quietRun = 0;
    this.#held = false;
    this.#endPending = false;
    if (this.#chunkFill > 0) {
      this.#chunk.fill(0, this.#chunkFill);
      this.#sentSamples += this.#chunk.length - this.#chunkFill;
      this.#chunkFill = 0;
      this.#onChunk(this.#chunk);
    }
    this.#onEnd();
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
