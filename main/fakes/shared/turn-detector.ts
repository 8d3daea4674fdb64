// The end-of-turn detector of every model fake whose service detects turns itself (Gemini's
// automatic activity detection, OpenAI Realtime's server_vad and the semantic_vad stand-in, xAI's
// server_vad, GPT-Live's own window). Everything is counted in the samples the fake RECEIVED, never
// in wall time: a pause the client sends no audio for is no pause to the service, which has nothing
// to count, so a turn is never ended by a clock (issue #52 item 4). A loaded machine cannot change
// the outcome either: the test's audio alone decides.
//
// - Speech opens when a chunk is louder than `startRms` for `commitSamples` in a row (Gemini's
//   `prefixPaddingMs`: "the required duration of detected speech before start-of-speech is
//   committed", js-genai AutomaticActivityDetection; 0: the first loud chunk).
// - While open, a chunk louder than `continueRms` keeps it open (≤ startRms: a lower bar once
//   speaking, what an end-of-speech sensitivity stands for in the fakes).
// - The turn ends after `silenceSamples` of quiet following speech, or after `finalSilenceSamples`
//   when the caller has marked what was said so far as utterance-final (`finalCue`, the
//   semantic_vad stand-in: a sentence that ended is answered sooner than one left hanging).
// - With `frameSamples` the loudness is judged per frame of that many samples on the audio clock,
//   whatever the client's chunking (a service's detector runs on the stream, and reports where in
//   it speech stopped); without it each received chunk is judged whole.
// Per chunk: arithmetic only, no allocation (the fakes receive a chunk every 20-100 ms).
import { rms } from './pcm.ts';

export interface TurnWindow {
  /** RMS (sample units) above which a chunk is speech when none is open. */
  startRms: number;
  /** RMS above which a chunk keeps open speech going (defaults to startRms). */
  continueRms?: number;
  /** Loud samples in a row before speech is committed as started (0: the first loud chunk). */
  commitSamples?: number;
  /** Quiet samples after speech that end the turn. */
  silenceSamples: number;
  /** Quiet samples that end it when `finalCue` is set; absent: silenceSamples. */
  finalSilenceSamples?: number;
  /** Samples per analysis frame on the audio clock (0, the default: each received chunk is one frame). */
  frameSamples?: number;
}

export type TurnChange = 'started' | 'ended' | null;

export class TurnDetector {
  /** Speech is open (committed and not yet ended). */
  speaking = false;
  /** What was said so far ends an utterance (semantic stand-in); reset when a turn starts. */
  finalCue = false;
  #window: Required<TurnWindow>;
  /** Samples received in all (the session's audio clock). */
  #received = 0;
  #candidate = 0;
  #turnSamples = 0;
  #quietSamples = 0;
  #startedAt = 0;
  #endedAt = 0;
  /** The quiet counted when the last turn ended (the end may fall inside a chunk: its rest is not quiet counted). */
  #endQuiet = 0;
  /** The frame being filled (frameSamples > 0): its samples and their sum of squares. */
  #frameFill = 0;
  #frameSumSq = 0;
  /** A change was reported in this chunk: a start in its rest commits on the next chunk's loud frame. */
  #changed = false;

  constructor(window: TurnWindow) {
    this.#window = TurnDetector.#complete(window);
  }

  static #complete(window: TurnWindow): Required<TurnWindow> {
    return {
      continueRms: window.startRms,
      commitSamples: 0,
      finalSilenceSamples: window.silenceSamples,
      frameSamples: 0,
      ...window,
    };
  }

  /** New settings (a session.update); a turn in progress keeps going under them. */
  setWindow(window: TurnWindow): void {
    this.#window = TurnDetector.#complete(window);
  }

  get window(): Readonly<Required<TurnWindow>> {
    return this.#window;
  }

  /** Samples received since the socket opened: the service's audio clock. */
  get receivedSamples(): number {
    return this.#received;
  }

  /** Where (on the audio clock) the open or last turn's speech began. */
  get startedAt(): number {
    return this.#startedAt;
  }

  /** Where (on the audio clock) the last turn's speech stopped: the start of the quiet that ended it. */
  get endedAt(): number {
    return this.#endedAt;
  }

  /** Samples of the open or last turn, its trailing quiet included. */
  get turnSamples(): number {
    return this.#turnSamples;
  }

  /** Speech of the open or last turn without its trailing quiet. */
  get spokenSamples(): number {
    return this.#turnSamples - this.#quietSamples;
  }

  /** The quiet the open turn has had so far (0 while speech goes on). */
  get quietSamples(): number {
    return this.speaking ? this.#quietSamples : 0;
  }

  /** The trailing quiet the detector had counted when the last turn ended (its silence window when detected). */
  get endQuietSamples(): number {
    return this.#endQuiet;
  }

  /** Feeds one received chunk; reports a committed start or an end of turn (the first, when a chunk holds two). */
  feed(pcm: Int16Array): TurnChange {
    const frame = this.#window.frameSamples;
    this.#changed = false;
    if (frame <= 0) return this.#judge(pcm.length, rms(pcm));
    let change: TurnChange = null;
    for (let i = 0; i < pcm.length; i++) {
      const v = pcm[i]!;
      this.#frameSumSq += v * v;
      if (++this.#frameFill < frame) continue;
      const level = Math.sqrt(this.#frameSumSq / frame);
      this.#frameFill = 0;
      this.#frameSumSq = 0;
      const next = this.#judge(frame, level);
      if (next !== null && change === null) change = next;
      this.#changed = change !== null;
    }
    return change;
  }

  /** One frame (or chunk) of `samples` at loudness `level`. */
  #judge(samples: number, level: number): TurnChange {
    this.#received += samples;
    if (!this.speaking) return this.#maybeStart(samples, level);
    this.#turnSamples += samples;
    this.#quietSamples = level > this.#window.continueRms ? 0 : this.#quietSamples + samples;
    const needed = this.finalCue ? this.#window.finalSilenceSamples : this.#window.silenceSamples;
    if (this.#quietSamples < needed) return null;
    this.#close();
    return 'ended';
  }

  /** Ends the open turn now (the client flushed the stream, e.g. Gemini's audioStreamEnd); false when none was open. */
  end(): boolean {
    if (!this.speaking) return false;
    this.#close();
    return true;
  }

  #maybeStart(samples: number, level: number): TurnChange {
    if (level <= this.#window.startRms) {
      this.#candidate = 0;
      return null;
    }
    this.#candidate += samples;
    if (this.#candidate < Math.max(1, this.#window.commitSamples) || this.#changed) return null;
    this.speaking = true;
    this.finalCue = false;
    this.#turnSamples = this.#candidate;
    this.#startedAt = this.#received - this.#candidate;
    this.#candidate = 0;
    this.#quietSamples = 0;
    return 'started';
  }

  #close(): void {
    this.speaking = false;
    this.#endQuiet = this.#quietSamples;
    this.#endedAt = this.#startedAt + this.#turnSamples - this.#quietSamples;
  }
}

/** `ms` at `rate` Hz in samples. */
export function samplesOf(ms: number, rate: number): number {
  return Math.round((ms * rate) / 1000);
}
