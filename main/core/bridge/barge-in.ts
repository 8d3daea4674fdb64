// Local barge-in: tells, from one allowed speaker's 20 ms frame, whether they are talking over the
// bot, so the bridge stops playback itself (within the frame) instead of waiting for the service's
// signal (Gemini `interrupted`, Realtime `speech_started`, GPT-Live's model going quiet: 250 ms on
// GPT-Live alone, docs/architecture.md "Barge-in").
//
// Echo: Discord never sends the bot its own SSRC, but a speaker's open mic can carry the bot's voice
// back from their loudspeakers. The choice here is an energy comparison against the playback
// reference, not a correlation: a speaker frame counts as speech only when its last 10 ms are
// louder than the loudest frame we played within the echo tail (1 s: Discord's round trip,
// the listener's jitter buffer and the room) minus the assumed echo return loss (20 dB) plus a
// margin (6 dB), and above an absolute floor (-40 dBFS). Why energy: our audio comes back through two
// Opus codecs, the listener's echo canceller and the room, so its waveform barely resembles what we
// sent and a cross-correlation over a 1 s lag range costs ~5 M multiply-adds per frame, while the
// energy test costs one pass over the frame and decides on the first frame. What it cannot tell
// apart: an echo louder than 14 dB under our own level (loudspeakers at full volume next to a mic
// with no echo cancelling). Such an echo is speech to the services' own voice detection as well
// (the voice gate forwards it), so the service would cut the reply on it anyway.
// The test is on a frame's last 10 ms: a click (a few ms) inside a frame does not reach the
// threshold, and speech that begins in a frame is decided on that frame.

/** Non-silent played frames remembered (more than the echo tail holds at one frame per 20 ms). */
const PLAYED_FRAMES = 64;
const FULL_SCALE_SQ = 32768 * 32768;

export interface BargeInOptions {
  /** How far under our own level an echo of it is assumed to come back, at most, dB. Default 20. */
  echoReturnLossDb?: number;
  /** How far over that echo estimate a frame must be to count as speech, dB. Default 6. */
  marginDb?: number;
  /** A frame quieter than this (RMS dBFS) is never speech. Default -40. */
  minSpeechDbfs?: number;
  /** How long after we played a frame its echo may still arrive, ms. Default 1000. */
  echoTailMs?: number;
}

/** Mean square of `values` (interleaved s16) over [from, to), as a fraction of full scale squared. */
function meanSquare(values: Int16Array, from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i++) {
    const v = values[i]!;
    sum += v * v;
  }
  return to > from ? sum / ((to - from) * FULL_SCALE_SQ) : 0;
}

export class BargeInDetector {
  readonly #echoFactor: number;
  readonly #floor: number;
  readonly #tailMs: number;
  /** When each non-silent frame was played and its mean square (ring, reused). */
  readonly #playedAt = new Float64Array(PLAYED_FRAMES);
  readonly #playedLevel = new Float64Array(PLAYED_FRAMES);
  #next = 0;

  constructor(options: BargeInOptions = {}) {
    this.#echoFactor = 10 ** (((options.marginDb ?? 6) - (options.echoReturnLossDb ?? 20)) / 10);
    this.#floor = 10 ** ((options.minSpeechDbfs ?? -40) / 10);
    this.#tailMs = options.echoTailMs ?? 1000;
  }

  /** A frame handed to the player (48 kHz stereo); returns whether it carries any sound. */
  notePlayed(frame: Int16Array, now: number): boolean {
    const level = meanSquare(frame, 0, frame.length);
    if (level === 0) return false;
    this.#playedAt[this.#next] = now;
    this.#playedLevel[this.#next] = level;
    this.#next = (this.#next + 1) % PLAYED_FRAMES;
    return true;
  }

  /** The level under which a speaker frame may be our own echo (mean square, fraction of full scale). */
  echoThreshold(now: number): number {
    let loudest = 0;
    for (let i = 0; i < PLAYED_FRAMES; i++) {
      if (now - this.#playedAt[i]! <= this.#tailMs && this.#playedLevel[i]! > loudest) loudest = this.#playedLevel[i]!;
    }
    return Math.max(this.#floor, loudest * this.#echoFactor);
  }

  /**
   * Whether one speaker's 20 ms frame (48 kHz stereo) is speech over the bot rather than its echo:
   * its last 10 ms are over the threshold (the frame that starts speech often starts quiet: a
   * word's attack, and the Opus decoder's 6.5 ms delay on a stream's first frame).
   */
  isSpeech(frame: Int16Array, now: number): boolean {
    return meanSquare(frame, frame.length >> 1, frame.length) > this.echoThreshold(now);
  }

  reset(): void {
    this.#playedAt.fill(0);
    this.#playedLevel.fill(0);
    this.#next = 0;
  }
}
