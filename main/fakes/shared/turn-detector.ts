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

  constructor(window: TurnWindow) {
    this.#window = TurnDetector.#complete(window);
  }

  static #complete(window: TurnWindow): Required<TurnWindow> {
    return { continueRms: window.startRms, commitSamples: 0, finalSilenceSamples: window.silenceSamples, ...window };
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

  /** Feeds one received chunk; reports a committed start or an end of turn. */
  feed(pcm: Int16Array): TurnChange {
    const level = rms(pcm);
    this.#received += pcm.length;
    if (!this.speaking) return this.#maybeStart(pcm.length, level);
    this.#turnSamples += pcm.length;
    this.#quietSamples = level > this.#window.continueRms ? 0 : this.#quietSamples + pcm.length;
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
    if (this.#candidate < Math.max(1, this.#window.commitSamples)) return null;
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
    this.#endedAt = this.#startedAt + this.#turnSamples - this.#quietSamples;
  }
}

/** `ms` at `rate` Hz in samples. */
export function samplesOf(ms: number, rate: number): number {
  return Math.round((ms * rate) / 1000);
}
