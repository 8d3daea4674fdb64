// Live transcription arrives as word fragments. Notes are written per utterance instead: the user's
// words when the model starts answering, the model's words when its turn completes or is cut off.
import type { NoteKind } from '../api-types.ts';

export type TranscriptSink = (kind: NoteKind, text: string, speaker?: string) => void;

export class TranscriptAggregator {
  readonly #sink: TranscriptSink;
  #input = '';
  #inputSpeaker: string | undefined;
  #output = '';

  constructor(sink: TranscriptSink) {
    this.#sink = sink;
  }

  input(fragment: string, speaker?: string): void {
    this.#input += fragment;
    this.#inputSpeaker ??= speaker;
  }

  output(fragment: string): void {
    this.#flushInput();
    this.#output += fragment;
  }

  /** The model started speaking: the user's utterance is over. */
  modelSpeaking(): void {
    this.#flushInput();
  }

  flush(outputSuffix?: string): void {
    this.#flushInput();
    const text = joinFragments(this.#output);
    if (text) this.#sink('output_transcript', outputSuffix ? `${text} ${outputSuffix}` : text, 'model');
    this.#output = '';
  }

  #flushInput(): void {
    const text = joinFragments(this.#input);
    if (text) this.#sink('input_transcript', text, this.#inputSpeaker);
    this.#input = '';
    this.#inputSpeaker = undefined;
  }
}

function joinFragments(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
