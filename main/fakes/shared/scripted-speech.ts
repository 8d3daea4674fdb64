// Scripted speech: how the demo's simulated people "say" sentences and how the fake models
// "transcribe" them back. A speaker registers each sentence with the script before saying it and
// gets a tone of that sentence's own frequency to send; a fake model given the script's
// `transcribe` finds those tones in the audio it received and writes down their sentences, in the
// order they began. So the transcript depends only on the audio that reached the fake, as a real
// service's does: a voice dropped before the model (muted, opted out) is never transcribed, and two
// people talking at once are both heard in the mix.
import { amplitudeAt } from './pcm.ts';

/**
 * Sentence frequencies: 300 Hz up in 90 Hz steps (far apart for a 320 ms Goertzel bin), under 4 kHz
 * (Gemini hears 16 kHz); 440 Hz, the fakes' reply tone (pcm.ts tone), is not on the grid.
 */
const FIRST_HZ = 300;
const STEP_HZ = 90;
const MAX_SENTENCES = 40;
/** A tone this strong (sample units) in a 320 ms block is heard: the utterance peaks at 9000, a mix halves it at most. */
const HEARD_AMPLITUDE = 1500;
const BLOCK_S = 0.32;
const SECONDS_PER_WORD = 0.36;

export class SpeechScript {
  readonly #sentenceAt = new Map<number, string>();
  readonly #hzOf = new Map<string, number>();
  #next = 0;

  /** The frequency that stands for `sentence`, registering it on first use. */
  hzOf(sentence: string): number {
    const known = this.#hzOf.get(sentence);
    if (known !== undefined) return known;
    if (this.#next >= MAX_SENTENCES) throw new Error(`a speech script holds at most ${MAX_SENTENCES} sentences`);
    const hz = FIRST_HZ + STEP_HZ * this.#next++;
    this.#hzOf.set(sentence, hz);
    this.#sentenceAt.set(hz, sentence);
    return hz;
  }

  /** How long saying `sentence` takes: about 2.8 words a second, at least 1.2 s. */
  static secondsFor(sentence: string): number {
    return Math.max(1.2, sentence.split(/\s+/).filter(Boolean).length * SECONDS_PER_WORD);
  }

  /**
   * `sentence` as the fake Discord client sends it: 48 kHz stereo, its tone under a 4 Hz
   * "syllable" envelope (never below 70 %, so every block holds it), 20 ms fades, peak -11 dBFS.
   */
  utterance(sentence: string): Int16Array {
    const hz = this.hzOf(sentence);
    const seconds = SpeechScript.secondsFor(sentence);
    const frames = Math.round(48_000 * seconds);
    const pcm = new Int16Array(frames * 2);
    for (let i = 0; i < frames; i++) {
      const t = i / 48_000;
      const envelope = (0.85 + 0.15 * Math.sin(2 * Math.PI * 4 * t)) * Math.min(1, t / 0.02, (seconds - t) / 0.02);
      pcm[2 * i] = pcm[2 * i + 1] = Math.round(9000 * envelope * Math.sin(2 * Math.PI * hz * t));
    }
    return pcm;
  }

  /** A transcriber of audio at `rate` Hz that writes as it hears (one per connection). */
  streaming(rate: number): StreamingTranscriber {
    return new ScriptStream(this, rate);
  }

  /** The sentences whose tones are in one block of audio (mono at `rate` Hz). */
  heardIn(block: Int16Array, rate: number): string[] {
    const heard: string[] = [];
    for (const [hz, sentence] of this.#sentenceAt)
      if (amplitudeAt(block, hz, rate) > HEARD_AMPLITUDE) heard.push(sentence);
    return heard;
  }

  /** The sentences whose tones are in `pcm` (mono at `rate` Hz), in the order they began; '' when none. */
  transcribe(pcm: Int16Array, rate: number): string {
    const block = Math.round(BLOCK_S * rate);
    const firstHeard = new Map<number, number>();
    for (let at = 0; at < pcm.length; at += block) {
      const part = pcm.subarray(at, Math.min(pcm.length, at + block));
      if (part.length < block / 2) break;
      for (const hz of this.#sentenceAt.keys())
        if (!firstHeard.has(hz) && amplitudeAt(part, hz, rate) > HEARD_AMPLITUDE) firstHeard.set(hz, at);
    }
    return [...firstHeard.entries()]
      .sort((a, b) => a[1] - b[1])
      .map(([hz]) => this.#sentenceAt.get(hz)!)
      .join(' ');
  }
}

/**
 * A transcriber that writes as it hears, as Gemini's input transcription does: each 320 ms block of
 * a sentence's tone brings that sentence's next words (in proportion to how much of it was heard),
 * so a fragment holds the words of the people heard in it. The turn's end brings the rest.
 */
export interface StreamingTranscriber {
  /** Words newly heard in this audio (mono, at the rate it was made for), each with its trailing space; '' for none. */
  hear(pcm: Int16Array): string;
  /** The turn ended: the words not sent yet (`rest`) and the turn's whole transcript (`turn`); starts a new turn. */
  endTurn(): { rest: string; turn: string };
}

class ScriptStream implements StreamingTranscriber {
  readonly #script: SpeechScript;
  readonly #rate: number;
  readonly #block: number;
  #pending = new Int16Array(0);
  /** Sentences begun in this turn, in order: blocks heard and words sent. */
  #turn = new Map<string, { blocks: number; sent: number; words: string[] }>();

  constructor(script: SpeechScript, rate: number) {
    this.#script = script;
    this.#rate = rate;
    this.#block = Math.round(BLOCK_S * rate);
  }

  hear(pcm: Int16Array): string {
    const joined = new Int16Array(this.#pending.length + pcm.length);
    joined.set(this.#pending);
    joined.set(pcm, this.#pending.length);
    let at = 0;
    const out: string[] = [];
    for (; at + this.#block <= joined.length; at += this.#block)
      out.push(this.#heardBlock(joined.subarray(at, at + this.#block)));
    this.#pending = joined.slice(at);
    return out.join('');
  }

  #heardBlock(block: Int16Array): string {
    const said: string[] = [];
    for (const sentence of this.#script.heardIn(block, this.#rate)) {
      const state = this.#turn.get(sentence) ?? { blocks: 0, sent: 0, words: sentence.split(/\s+/).filter(Boolean) };
      this.#turn.set(sentence, state);
      state.blocks++;
      const due = Math.min(
        state.words.length,
        Math.floor(((state.blocks * BLOCK_S) / SpeechScript.secondsFor(sentence)) * state.words.length),
      );
      if (due > state.sent) said.push(state.words.slice(state.sent, due).join(' ') + ' ');
      state.sent = Math.max(state.sent, due);
    }
    // Each word keeps its trailing space, as the service's fragments carry their own spacing.
    return said.join('');
  }

  endTurn(): { rest: string; turn: string } {
    const last = this.#pending.length >= this.#block / 2 ? this.#heardBlock(this.#pending) : '';
    this.#pending = new Int16Array(0);
    const rest = [...this.#turn.values()]
      .filter((s) => s.sent < s.words.length)
      .map((s) => s.words.slice(s.sent).join(' ') + ' ');
    const turn = [...this.#turn.keys()].join(' ');
    this.#turn = new Map();
    return { rest: last + rest.join(''), turn };
  }
}

/** What a fake model given a script hears and how it answers (each model fake's autoReply takes these). */
export interface ScriptedListening {
  /** The input transcription of a user turn's audio (mono at `rate` Hz); '' when nothing was understood. */
  transcribe?: (pcm: Int16Array, rate: number) => string;
  /** A transcriber per connection that writes as it hears (Gemini streams input transcription); wins over `transcribe`. */
  stream?: (rate: number) => StreamingTranscriber;
  /** The model's answer to what it heard or was asked (a user turn's transcription, an `ask` message). */
  answer?: (heard: string) => string;
}
