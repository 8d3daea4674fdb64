// Local barge-in: tells, from one allowed speaker's 20 ms frame, whether they are talking over the
// bot, so the bridge stops playback itself (within the frame) instead of waiting for the service's
// signal (Gemini `interrupted`, Realtime `speech_started`, GPT-Live's model going quiet: 250 ms on
// GPT-Live alone, docs/architecture.md "Barge-in").
//
// Echo: Discord never sends the bot its own SSRC, but a speaker's open mic can carry the bot's voice
// back from their loudspeakers. The choice here is an energy comparison against the playback
// reference, not a correlation: our audio comes back through two Opus codecs, the listener's echo
// canceller and the room, so its waveform barely resembles what we sent, and a cross-correlation
// over a 1 s lag range costs ~5 M multiply-adds per frame. What does survive that path is energy,
// and energy per band: CELT codes each band's energy explicitly (its coarse 6 dB steps refined by
// fine bits: about 1-1.5 dB of error per codec), and a linear path (codec, room, echo canceller)
// scales what was in a band but puts nothing into a band where we played nothing.
// The echo line: our reply may come back as loud as 14 dB under what we played (loudspeakers at
// full volume next to a mic with no echo cancelling; a headset or Discord's echo cancellation gives
// 30-50 dB), and a frame counts as speech only 4 dB over that (two codecs' level error and a room's
// colouring; and the 3 dB by which a frame's last 10 ms can exceed that frame's mean, when its first
// half is silent), so 10 dB under the loudest frame we played within the echo tail (1 s: Discord's
// round trip, the listener's jitter buffer and the room), and above an absolute floor (-40 dBFS).
// (It was 20 dB of return loss plus 6 dB, 14 dB under: an echo at -14 dB sat on the line and cut
// replies.)
// Two tests on the frame's last 10 ms, either of which decides:
// - broadband: its level over the line drawn from the loudest played frame's level;
// - per band (echo-bands.ts, 11 bands from 100 Hz to 12 kHz): the energy in the bands where it is over the
//   line drawn from the loudest played energy in that band alone is itself over the floor. A voice
//   whose pitch and formants are not where the reply's are is told apart from the reply's echo on its
//   first frame, while the broadband test (a louder reply) waits for a later, louder frame of the
//   word's attack. The per-band test runs only when the broadband one says no (a frame over the line
//   costs one pass). Each played frame's bands are taken as it is played (one 256-point FFT for both
//   halves), so the decision costs one more FFT and never a backlog: analysed only when a band test
//   first needed them, the frames of the last second took 5-20 ms on a cold JIT, the whole target.
// A loudspeaker's harmonic distortion (20-30 dB under what it plays) does put energy where we played
// none; through a -14 dB echo path that is 34 dB or more under our level, under the floor unless we
// play louder than -6 dBFS RMS (the model's speech is about -20).
// What neither can tell apart: an echo louder than 10 dB under our own level, in any band. Such an
// echo is speech to the services' own voice detection as well (the voice gate forwards it), so the
// service would cut the reply on it anyway.
// The tests are on a frame's last 10 ms: a click (a few ms) inside a frame does not reach the
// line, and speech that begins in a frame is decided on that frame.
// Evidence per speaker, before both tests: a speaker whose stream carried nothing over the floor
// (-40 dBFS) for the whole echo tail after at least QUIET_PROOF_FRAMES of our reply (a Discord client
// in its default Voice Activity mode sends nothing until its detector hears a voice; one that sends
// all the time sent frames under the floor) has an echo path that keeps our reply, at that level,
// under the floor. While we play no more than 3 dB louder than that (one codec's level error and a
// louder syllable), their next frame over the floor is their own voice: it cuts the reply on the
// frame the speech starts, where the line drawn for the worst echo path waits for a louder frame of
// the word. A speaker on loudspeakers without echo cancelling has our reply in their stream from its
// start, never earns the evidence, and meets the two tests.
// Onsets: a speaker's first frame over the floor after at least ONSET_GAP_MS under it is 'onset' when
// the tests above cannot yet tell it from echo (a word's first frame is often 10-20 dB under its
// vowel, so under the echo line). The caller holds playback on it (call-audio.ts): the reply stops
// on the frame the speech starts and is cut when a later frame is speech, or plays on after a few
// frames. A speaker whose onset was not confirmed is taken for an echo path that carries our reply
// over the floor (suspectEcho()): their onsets hold nothing more in this call, so a loudspeaker
// user's echo costs one short gap, not one per phrase of every reply.
// Noise (judgeConfirmed, what the call uses; issue #52 item 5): a headset user's key click, cough or
// music is over the floor, so to the tests above it is speech. A frame they call speech cuts the
// reply only when it confirms: its energy is spread over the frame (not a click: isBurst, the voice
// gate's check), the speaker's frame before it was over the floor and no click either (sound held
// for two frames), and it is voiced (a pitch period repeats in it, Periodicity, and it does not die
// away within the frame as a key's ringing body does). A speech frame that
// does not confirm is an onset when it starts a sound (it holds the reply, as above), and nothing
// while that sound goes on unconfirmed. Its hold, released unconfirmed, says nothing of the echo
// path (the frame was over the echo line, or a click, which our reply never is): suspectEcho() then
// leaves the speaker's onsets standing. The price: a word heard by the tests on its first frame
// holds the reply on that frame (silent within the frame, as before) and cuts it on the next voiced
// one; a word whose first frames are unvoiced (a fricative) is cut at its vowel. Music is periodic
// and sustained: it still cuts (figures in docs/audio.md "Phantom turns").
import { Periodicity, isBurst } from '../audio/index.ts';
import { BAND_COUNT, BAND_WINDOW, BandAnalyzer } from './echo-bands.ts';

/**
 * Non-silent played frames remembered: 2.56 s at one per 20 ms, the 1 s echo tail and, before it,
 * the frames whose tail has passed (the per-speaker evidence).
 */
const PLAYED_FRAMES = 128;
/** Played frames whose whole echo tail passed in a speaker's quiet before it proves their echo path. */
const QUIET_PROOF_FRAMES = 10;
/** How much louder than the proven level we may play and still trust the proof (3 dB, as energy). */
const QUIET_PROOF_HEADROOM = 2;
const FULL_SCALE_SQ = 32768 * 32768;
/**
 * Under the floor this long before a frame over it makes that frame an onset: over two frame
 * periods, so one quiet frame inside a word or a packet late by a frame's jitter does not.
 */
const ONSET_GAP_MS = 50;
/**
 * The speaker's previous frame, over the floor and no click, confirms sound held for two frames if
 * no older than this: counted in frames, not time (a word's second packet late by any jitter, or a
 * loaded event loop, still confirms it on arrival), within the echo tail's second.
 */
const SUSTAIN_GAP_MS = 1000;
/** A frame with more than this share of its energy in one 2.5 ms block is a click (the voice gate's default). */
const MAX_BURST_SHARE = 0.5;
/** 2.5 ms at 48 kHz: the click test's block. */
const BURST_BLOCK_48K = 120;
/**
 * A confirming frame's self-correlation one pitch period later: coughs on the noise corpus peak at
 * 0.67, the vowels of its speech controls and of the pause corpus reach 0.8-1.0.
 */
const MIN_VOICING = 0.75;

/** A speaker frame while the bot talks: speech over it, an onset the tests cannot yet tell from echo, or neither. */
export type BargeInVerdict = 'speech' | 'onset' | 'none';

/** What one speaker's stream has shown (an object per speaker, written in place: no boxing per frame). */
interface SpeakerEcho {
  /** When their stream last carried sound over the floor where our echo may be (the evidence). */
  heardAt: number;
  /** When their stream last carried sound over the floor at all (onsets). */
  soundAt: number;
  /** An onset of theirs was not confirmed as speech: their echo path may carry our reply. */
  echoSuspect: boolean;
  /** Their last frame over the floor was no click, and when (judgeConfirmed; a frame under the floor ends it). */
  sustained: boolean;
  sustainedAt: number;
  /** When they last sent a speech frame that did not confirm (judgeConfirmed). */
  unconfirmedAt: number;
  /** Since their last echo-like onset, a frame of theirs was over the echo line or a click: a hold released now was noise, not echo. */
  noiseSinceOnset: boolean;
}

export interface BargeInOptions {
  /** How far under our own level an echo of it may come back, at most, dB. Default 14. */
  echoReturnLossDb?: number;
  /** How far over that echo a frame must be to count as speech, dB. Default 4. */
  marginDb?: number;
  /** A frame quieter than this (RMS dBFS) is never speech. Default -40. */
  minSpeechDbfs?: number;
  /** How long after we played a frame its echo may still arrive, ms. Default 1000. */
  echoTailMs?: number;
}

/** Mean square of `values` (s16) over [from, to), as a fraction of full scale squared. */
function meanSquare(values: Int16Array, from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i++) {
    const v = values[i]!;
    sum += v * v;
  }
  return to > from ? sum / ((to - from) * FULL_SCALE_SQ) : 0;
}

/**
 * 24 kHz of `count` output samples from 48 kHz `pcm48k` at sample `from`, into `out` at `at`: each
 * output the mean of two samples (a two-tap low-pass: -3 dB at 12 kHz).
 */
function decimate24k(pcm48k: Int16Array, from: number, count: number, out: Int16Array, at: number): void {
  for (let i = 0, j = from; i < count; i++, j += 2) out[at + i] = (pcm48k[j]! + pcm48k[j + 1]!) >> 1;
}

export class BargeInDetector {
  readonly #echoFactor: number;
  readonly #floor: number;
  readonly #tailMs: number;
  readonly #bands = new BandAnalyzer();
  /** When each non-silent frame was played and its mean square (ring, reused). */
  readonly #playedAt = new Float64Array(PLAYED_FRAMES);
  readonly #playedLevel = new Float64Array(PLAYED_FRAMES);
  /** Each played frame's band energies: the louder of its two 10 ms windows, band by band (ring, reused). */
  readonly #playedBands = new Float64Array(PLAYED_FRAMES * BAND_COUNT);
  /** Scratch: a frame at 24 kHz, a played frame's second window, the speaker's bands, the echo line per band. */
  readonly #mono = new Int16Array(2 * BAND_WINDOW);
  readonly #halfBands = new Float64Array(BAND_COUNT);
  readonly #speakerBands = new Float64Array(BAND_COUNT);
  readonly #bandLine = new Float64Array(BAND_COUNT);
  readonly #speakers = new Map<string, SpeakerEcho>();
  readonly #periodicity = new Periodicity();
  #next = 0;

  constructor(options: BargeInOptions = {}) {
    this.#echoFactor = 10 ** (((options.marginDb ?? 4) - (options.echoReturnLossDb ?? 14)) / 10);
    this.#floor = 10 ** ((options.minSpeechDbfs ?? -40) / 10);
    this.#tailMs = options.echoTailMs ?? 1000;
  }

  /** A frame handed to the player (48 kHz mono); returns whether it carries any sound. */
  notePlayed(frame: Int16Array, now: number): boolean {
    const level = meanSquare(frame, 0, frame.length);
    if (level === 0) return false;
    const slot = this.#next;
    this.#playedAt[slot] = now;
    this.#playedLevel[slot] = level;
    this.#analyzePlayed(frame, slot);
    this.#next = (slot + 1) % PLAYED_FRAMES;
    return true;
  }

  /** The level under which a speaker frame may be our own echo (mean square, fraction of full scale). */
  echoThreshold(now: number): number {
    let loudest = 0;
    for (let i = 0; i < PLAYED_FRAMES; i++) {
      if (this.#inTail(i, now) && this.#playedLevel[i]! > loudest) loudest = this.#playedLevel[i]!;
    }
    return Math.max(this.#floor, loudest * this.#echoFactor);
  }

  /**
   * Whether one speaker's 20 ms frame (48 kHz mono) is speech over the bot rather than its echo:
   * its last 10 ms are over the echo line, broadband or in the bands where it is (the frame that
   * starts speech often starts quiet: a word's attack, and the Opus decoder's 6.5 ms delay).
   */
  isSpeech(frame: Int16Array, now: number, speakerId?: string): boolean {
    return this.judge(frame, now, speakerId) === 'speech';
  }

  /** isSpeech, and whether a frame that is not (yet) speech is a speaker's onset (see above). */
  judge(frame: Int16Array, now: number, speakerId?: string): BargeInVerdict {
    const level = meanSquare(frame, frame.length >> 1, frame.length);
    if (level <= this.#floor) return 'none';
    const speaker = speakerId === undefined ? undefined : this.#speaker(speakerId);
    const provenQuiet = speaker !== undefined && this.#echoProvenQuiet(speaker, now);
    const onset = speaker !== undefined && now - speaker.soundAt >= ONSET_GAP_MS && !speaker.echoSuspect;
    if (speaker) speaker.heardAt = speaker.soundAt = now;
    if (provenQuiet || level > this.echoThreshold(now) || this.#overEchoInBands(frame, now)) return 'speech';
    return onset ? 'onset' : 'none';
  }

  /**
   * judge, for the call: a 'speech' frame cuts only once confirmed (a sustained, voiced frame after a
   * sustained one); one that is not confirmed is an onset when it starts a sound, so it holds the
   * reply, and 'none' while that sound goes on (see "Noise" above).
   */
  judgeConfirmed(frame: Int16Array, now: number, speakerId: string): BargeInVerdict {
    const speaker = this.#speaker(speakerId);
    const heardBefore = speaker.heardAt;
    const sustainedBefore = speaker.sustained && now - speaker.sustainedAt <= SUSTAIN_GAP_MS;
    const pendingBefore = now - speaker.unconfirmedAt < ONSET_GAP_MS;
    const verdict = this.judge(frame, now, speakerId);
    if (speaker.soundAt !== now) {
      speaker.sustained = false; // under the floor
      return verdict;
    }
    const click = isBurst(frame, 0, frame.length, MAX_BURST_SHARE, BURST_BLOCK_48K);
    if (!click) {
      speaker.sustained = true;
      speaker.sustainedAt = now;
    }
    // A click is none of our echo: the quiet evidence stands (the next word is judged on it).
    if (click) speaker.heardAt = heardBefore;
    if (verdict === 'onset') speaker.noiseSinceOnset = click;
    if (verdict !== 'speech') return verdict;
    speaker.noiseSinceOnset = true;
    if (!click && sustainedBefore && this.#voiced(frame)) {
      speaker.unconfirmedAt = Number.NEGATIVE_INFINITY;
      return 'speech';
    }
    // Not speech yet: the evidence stands until it is (it was not our echo: see "Noise" above).
    speaker.heardAt = heardBefore;
    speaker.unconfirmedAt = now;
    return pendingBefore ? 'none' : 'onset';
  }

  /**
   * A voice in the frame: a pitch period repeats (Periodicity), and its second half has not fallen
   * 6 dB under its first (a key's ringing body repeats too, but dies within a few ms).
   */
  #voiced(frame: Int16Array): boolean {
    const half = frame.length >> 1;
    return (
      4 * meanSquare(frame, half, frame.length) >= meanSquare(frame, 0, half) &&
      this.#periodicity.isVoiced(frame, MIN_VOICING)
    );
  }

  /**
   * A speaker's frame while the bot is silent: whether it carried sound, and where our echo may
   * still be (the evidence above). Sound with nothing played within the echo tail is their own
   * voice alone and says nothing of their echo path.
   */
  heard(speakerId: string, frame: Int16Array, now: number): void {
    if (meanSquare(frame, frame.length >> 1, frame.length) <= this.#floor) return;
    const speaker = this.#speaker(speakerId);
    speaker.soundAt = now;
    if (this.#playedWithinTail(now)) speaker.heardAt = now;
  }

  /**
   * `speakerId`'s onset was not confirmed as speech: take their onsets for our echo from now on,
   * unless what held was noise (over the echo line, or a click: judgeConfirmed), which is no echo.
   */
  suspectEcho(speakerId: string): void {
    const speaker = this.#speaker(speakerId);
    if (!speaker.noiseSinceOnset) speaker.echoSuspect = true;
  }

  #speaker(speakerId: string): SpeakerEcho {
    let speaker = this.#speakers.get(speakerId);
    if (!speaker) {
      const never = Number.NEGATIVE_INFINITY;
      speaker = {
        heardAt: never,
        soundAt: never,
        echoSuspect: false,
        sustained: false,
        sustainedAt: never,
        unconfirmedAt: never,
        noiseSinceOnset: false,
      };
      this.#speakers.set(speakerId, speaker);
    }
    return speaker;
  }

  reset(): void {
    this.#playedAt.fill(0);
    this.#playedLevel.fill(0);
    this.#playedBands.fill(0);
    this.#speakers.clear();
    this.#next = 0;
  }

  /**
   * Whether the speaker stayed under the floor through the echo tail of at least QUIET_PROOF_FRAMES
   * played frames, and nothing played within the tail is more than 3 dB louder than the loudest of them.
   */
  #echoProvenQuiet(speaker: SpeakerEcho, now: number): boolean {
    const quietSince = speaker.heardAt;
    let proven = 0;
    let provenLevel = 0;
    let loudestInTail = 0;
    for (let slot = 0; slot < PLAYED_FRAMES; slot++) {
      const level = this.#playedLevel[slot]!;
      if (level === 0) continue;
      const at = this.#playedAt[slot]!;
      if (now - at <= this.#tailMs) {
        if (level > loudestInTail) loudestInTail = level;
      } else if (at >= quietSince) {
        proven += 1;
        if (level > provenLevel) provenLevel = level;
      }
    }
    return proven >= QUIET_PROOF_FRAMES && loudestInTail <= provenLevel * QUIET_PROOF_HEADROOM;
  }

  #playedWithinTail(now: number): boolean {
    for (let slot = 0; slot < PLAYED_FRAMES; slot++) if (this.#inTail(slot, now)) return true;
    return false;
  }

  #inTail(slot: number, now: number): boolean {
    return this.#playedLevel[slot]! > 0 && now - this.#playedAt[slot]! <= this.#tailMs;
  }

  /** The energy of the frame's last 10 ms in the bands where it is over that band's echo line is over the floor. */
  #overEchoInBands(frame: Int16Array, now: number): boolean {
    const line = this.#bandLine;
    line.fill(0);
    for (let slot = 0; slot < PLAYED_FRAMES; slot++) {
      if (!this.#inTail(slot, now)) continue;
      const at = slot * BAND_COUNT;
      for (let b = 0; b < BAND_COUNT; b++)
        if (this.#playedBands[at + b]! > line[b]!) line[b] = this.#playedBands[at + b]!;
    }
    decimate24k(frame, 2 * BAND_WINDOW, BAND_WINDOW, this.#mono, 0);
    this.#bands.analyze(this.#mono, 0, this.#speakerBands, 0);
    let notEcho = 0;
    for (let b = 0; b < BAND_COUNT; b++) {
      const energy = this.#speakerBands[b]!;
      if (energy > line[b]! * this.#echoFactor) notEcho += energy;
    }
    return notEcho > this.#floor;
  }

  /** A played frame's band energies: the louder of its two 10 ms windows, band by band (one FFT for both). */
  #analyzePlayed(frame: Int16Array, slot: number): void {
    const at = slot * BAND_COUNT;
    const bands = this.#playedBands;
    const half = this.#halfBands;
    decimate24k(frame, 0, 2 * BAND_WINDOW, this.#mono, 0);
    this.#bands.analyze(this.#mono, 0, bands, at, BAND_WINDOW, half, 0);
    for (let b = 0; b < BAND_COUNT; b++) if (half[b]! > bands[at + b]!) bands[at + b] = half[b]!;
  }
}
