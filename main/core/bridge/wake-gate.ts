// The wake-name gate: between the voice gate's speech chunks and the live model. While it is on,
// an utterance reaches the model only if it starts with a wake name, or if it starts within the
// follow-up window after the bot spoke. Deciding "starts with a wake name" needs the words before
// the model hears them, and nothing here recognises speech locally, so each utterance is held back
// (the unheard-speech store under its 'until judged' policy: audio/unheard-speech.ts) while its first
// words go to a transcription-only screening stream (SpeechScreener: OpenAI's Realtime transcription session). On the
// screener's text:
//   - starts with a wake name → the held audio (the voice gate's pre-roll included) is flushed to
//     the model, and the rest of the utterance passes through as it comes;
//   - otherwise (or no text in time, or held too long) → dropped: the model never receives it, and
//     the notes say an utterance was not for the bot.
// Without a screening stream (no OpenAI key, the stream still connecting or failed) the gate stays
// closed, never open: only the follow-up window after the bot spoke passes, and the room view says
// "closed: …". A live model's own transcription cannot stand in: with automatic activity detection
// it answers every utterance it hears (docs/architecture.md, "Several people in one call").
// The gate is on when wake names are set and either auto mode is off (always on) or two or more
// humans are in the call (auto). It re-evaluates when people join or leave and at each utterance,
// and opens the screening stream only while it is on (the stream costs per second of audio).
import type { Logger } from 'pino';
import type { WakeView } from '../api-types.ts';
import { UnheardSpeech, untilJudged } from '../audio/index.ts';
import type { ScreeningStream, SpeechScreener } from '../ports.ts';
import { Outlet, stageOf, type SpeechSink, type Stage } from './pipeline.ts';
import { parseWakeNames, startsWithWakeName } from './wake-names.ts';

const RATE = 16_000;
/** The screener hears this much of an utterance's start (a name is said first), then is asked. */
const HEAD_MS = 1500;
/** How long the screener may take to answer after it was asked. */
const VERDICT_TIMEOUT_MS = 3000;
/** The most audio held while waiting (head + verdict time, with margin); beyond it the utterance is dropped. */
const HOLD_MS = 6000;

export interface WakeSettings {
  /** Wake names as configured ("Gemini", "assistant"); none = the gate is never on. */
  names: readonly string[];
  /** On only while two or more humans are in the call (true), or always when names are set (false). */
  auto: boolean;
  /** After the bot spoke, utterances starting within this window pass without screening. */
  followUpMs: number;
}

export interface WakeGateOptions {
  settings: WakeSettings;
  /** Null when no screener can be built (no OpenAI key): the gate then stays closed and says so. */
  screener: SpeechScreener | null;
  humansInCall: () => number;
  now: () => number;
  logger: Logger;
}

/** Who hears the gate's verdicts (speaker-notes.ts), connected once (connectVerdicts). */
export interface WakeVerdicts {
  /** An utterance passed screening: called before its held audio is flushed (name who speaks). */
  accepted(startedAt: number): void;
  /** An utterance was kept from the model; `startedAt` on the `now` clock. */
  notForBot(startedAt: number, why: string): void;
}

/** The room view's wake state where there is no call machinery (no voice platform configured). */
export function wakeViewOff(reason: string): WakeView {
  return {
    on: false,
    reason,
    names: [],
    follow_up_ms: 0,
    screening: 'off',
    screened: 0,
    accepted: 0,
    dropped: 0,
    followUps: 0,
  };
}

type UtteranceState = 'idle' | 'pass' | 'screening' | 'drop';

export class WakeGate {
  readonly #o: WakeGateOptions;
  readonly #names: string[][];
  readonly #hold = new UnheardSpeech(untilJudged(HOLD_MS));
  #on = false;
  #reason = 'no wake names set';
  #stream: ScreeningStream | null = null;
  #opening: Promise<void> | null = null;
  #screenerProblem: string | null = null;
  #active = false;
  #state: UtteranceState = 'idle';
  #startedAt = 0;
  #headSamples = 0;
  #asked = false;
  #inputEnded = false;
  #utterance = 0;
  #lastBotSpeech = Number.NEGATIVE_INFINITY;
  readonly stats = { screened: 0, accepted: 0, dropped: 0, followUps: 0 };
  #verdicts: WakeVerdicts | null = null;
  /** Speech for the model (a reused buffer: used synchronously), and the end of each utterance it heard. */
  readonly #out = new Outlet<SpeechSink>('wake');
  readonly #forward = (chunk: Int16Array): void => this.#out.next.push(chunk);
  /** The pipeline's wake stage: the voice gate's chunks in, the model's out (pipeline.ts). */
  readonly stage: Stage<SpeechSink, SpeechSink> = stageOf(
    'wake',
    { stage: 'wake', caps: 'speech@16k', push: (chunk) => this.speech(chunk), end: () => this.end() },
    this.#out,
  );

  constructor(options: WakeGateOptions) {
    this.#o = options;
    this.#names = parseWakeNames(options.settings.names);
  }

  /** The gate's verdicts go to `verdicts` from now on (once: a second listener is a wiring mistake). */
  connectVerdicts(verdicts: WakeVerdicts): void {
    if (this.#verdicts !== null) throw new Error('the wake verdicts are already connected');
    this.#verdicts = verdicts;
  }

  /** A call started: gating may apply from now on. */
  start(): void {
    this.#active = true;
    Object.assign(this.stats, { screened: 0, accepted: 0, dropped: 0, followUps: 0 });
    this.refresh();
  }

  /** The call ended: forget the utterance in progress and close the screening stream. */
  stop(): void {
    this.#active = false;
    this.#resetUtterance();
    this.#lastBotSpeech = Number.NEGATIVE_INFINITY;
    this.#setOn(false, this.#names.length === 0 ? 'no wake names set' : 'not in a call');
  }

  /** Re-evaluate on/off (people joined or left, or an utterance starts). */
  refresh(): void {
    if (this.#names.length === 0) return this.#setOn(false, 'no wake names set');
    if (!this.#o.settings.auto) return this.#setOn(true, 'wake names always on (auto off)');
    const humans = this.#o.humansInCall();
    this.#setOn(humans >= 2, `auto: ${humans} ${humans === 1 ? 'person' : 'people'} in the call`);
  }

  /**
   * What is said now may never reach the model: an utterance is held or being dropped, or one
   * starting now would be screened. (Who speaks is then told to the model only once it is let through.)
   */
  /**
   * The voice gate's `holdTurn` (voice-gate.ts): an utterance the model hears is the service's turn
   * to end; one these names withhold ends at the gate's hangover.
   */
  readonly serviceHearsSpeech = (): boolean => !this.withholding;

  get withholding(): boolean {
    if (this.#state !== 'idle') return this.#state !== 'pass';
    return this.#on && this.#o.now() - this.#lastBotSpeech > this.#o.settings.followUpMs;
  }

  /** The bot's speech reached playback (the follow-up window runs from its last word). */
  botSpoke(): void {
    this.#lastBotSpeech = this.#o.now();
  }

  view(): WakeView {
    const names = this.#names.map((n) => n.join(' '));
    const screening = !this.#on ? 'off' : this.#stream?.isOpen ? 'ready' : this.#opening ? 'connecting' : 'unavailable';
    const closed = `closed: ${this.#screenerProblem ?? 'no screener'}, so only the follow-up window after the bot spoke reaches the model`;
    const reason = this.#on && screening === 'unavailable' ? `${this.#reason}; ${closed}` : this.#reason;
    return { on: this.#on, reason, names, follow_up_ms: this.#o.settings.followUpMs, screening, ...this.stats };
  }

  /** One chunk of speech from the voice gate. */
  speech(chunk: Int16Array): void {
    if (this.#state === 'idle') this.#begin();
    if (this.#state === 'pass') return this.#forward(chunk);
    if (this.#state === 'drop') return;
    // Screening: more speech after the end of input continues the same utterance ("Gemini … what time is it").
    this.#inputEnded = false;
    if (!this.#hold.push(chunk)) return this.#drop('held too long waiting for the screener');
    if (this.#asked) return;
    this.#stream?.sendAudio(chunk);
    this.#headSamples += chunk.length;
    if (this.#headSamples >= (RATE * HEAD_MS) / 1000) this.#ask();
  }

  /** The voice gate closed. */
  end(): void {
    if (this.#state === 'pass') {
      this.#out.next.end();
      this.#state = 'idle';
    } else if (this.#state === 'drop') {
      this.#state = 'idle';
    } else if (this.#state === 'screening') {
      this.#inputEnded = true;
      if (!this.#asked) this.#ask();
    }
  }

  #begin(): void {
    this.#startedAt = this.#o.now();
    this.refresh();
    if (!this.#on) {
      this.#state = 'pass';
    } else if (this.#startedAt - this.#lastBotSpeech <= this.#o.settings.followUpMs) {
      this.stats.followUps++;
      this.#state = 'pass';
    } else if (!this.#stream?.isOpen) {
      // No screener: closed, never open (the room view says why); the notes say it was kept back.
      this.#inputEnded = false;
      this.#drop(
        this.#screenerProblem
          ? `the wake-name gate is closed (${this.#screenerProblem})`
          : 'the wake-name gate is closed (the screener is connecting)',
      );
    } else {
      this.stats.screened++;
      this.#state = 'screening';
      this.#utterance++;
      this.#headSamples = 0;
      this.#asked = false;
      this.#inputEnded = false;
      this.#hold.clear();
    }
  }

  #ask(): void {
    this.#asked = true;
    const utterance = this.#utterance;
    const stream = this.#stream;
    if (!stream) return this.#drop('no screener');
    void stream.transcribe(VERDICT_TIMEOUT_MS).then((text) => this.#verdict(utterance, text));
  }

  #verdict(utterance: number, text: string | null): void {
    if (utterance !== this.#utterance || this.#state !== 'screening') return;
    const name = text === null ? null : startsWithWakeName(text, this.#names);
    if (!name)
      return this.#drop(text === null ? 'it could not be screened in time' : 'it did not start with a wake name');
    this.stats.accepted++;
    this.#state = 'pass';
    this.#verdicts?.accepted(this.#startedAt);
    this.#hold.replay(this.#forward);
    if (this.#inputEnded) this.end();
  }

  #drop(why: string): void {
    this.stats.dropped++;
    this.#hold.clear();
    this.#state = this.#inputEnded ? 'idle' : 'drop';
    this.#verdicts?.notForBot(this.#startedAt, why);
  }

  #resetUtterance(): void {
    this.#state = 'idle';
    this.#utterance++;
    this.#hold.clear();
  }

  #setOn(on: boolean, reason: string): void {
    const next = on && this.#active;
    const changed = next !== this.#on;
    this.#on = next;
    this.#reason = reason;
    if (changed) this.#o.logger.info({ on: this.#on, reason }, 'wake-name gate');
    if (this.#on) this.#openStream();
    else this.#closeStream();
  }

  #openStream(): void {
    if (this.#stream?.isOpen || this.#opening) return;
    // A stream the service closed (Realtime sessions end after 60 minutes) is replaced.
    this.#stream = null;
    const screener = this.#o.screener;
    if (!screener) {
      this.#screenerProblem = 'no screener (set OPENAI_API_KEY for the transcription session)';
      return;
    }
    this.#opening = screener.open().then(
      (stream) => {
        this.#opening = null;
        this.#screenerProblem = null;
        if (this.#on) this.#stream = stream;
        else stream.close();
      },
      (err: unknown) => {
        this.#opening = null;
        this.#screenerProblem = `the screener did not connect (${err instanceof Error ? err.message : String(err)})`;
        this.#o.logger.warn({ err }, 'wake screener failed to open');
      },
    );
  }

  #closeStream(): void {
    this.#stream?.close();
    this.#stream = null;
    if (this.#state === 'screening') this.#resetUtterance();
  }
}
