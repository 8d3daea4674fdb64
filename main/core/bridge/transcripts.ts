// Live transcription arrives as word fragments. Notes are written per utterance instead, both when
// the model's turn completes or is cut off (barge-in, or the socket carrying it ended): the user's
// words first, then the model's. Not earlier: input transcription is independent of the model's
// output order, so the last words of an utterance may arrive after the model started speaking
// (protocols.md §1.5) and would otherwise make a second note.
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
    this.#output += fragment;
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
