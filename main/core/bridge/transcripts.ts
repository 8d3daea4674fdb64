// Live transcription arrives as word fragments. Notes are written per utterance instead, both when
// the model's turn completes or is cut off (barge-in, or the socket carrying it ended): the user's
// words first, then the model's. Not earlier: input transcription is independent of the model's
// output order, so the last words of an utterance may arrive after the model started speaking
// (protocols.md §1.5) and would otherwise make a second note.
//
// Several people: each input fragment comes with the speakers whose voice was active while its
// words were said (bridge/room.ts; the model's transcription names nobody). Consecutive fragments
// of the same speaker(s) make one note; a change of speaker starts another, so two people taking
// turns inside one model turn get a note each. Words said while two talked at once cannot be split
// by timing: that note names both (ids joined by ",") and says "(overlapping)".
import type { NoteKind } from '../api-types.ts';

export type TranscriptSink = (kind: NoteKind, text: string, speaker?: string) => void;

interface InputSegment {
  text: string;
  speakers: readonly string[];
}

export class TranscriptAggregator {
  readonly #sink: TranscriptSink;
  #segments: InputSegment[] = [];
  #output = '';

  constructor(sink: TranscriptSink) {
    this.#sink = sink;
  }

  /** `speakers`: who was talking when these words were said (none known: joins its neighbour). */
  input(fragment: string, speakers: string | readonly string[] = []): void {
    const who = typeof speakers === 'string' ? [speakers] : speakers;
    const last = this.#segments.at(-1);
    if (last && (who.length === 0 || sameSpeakers(last.speakers, who))) {
      last.text += fragment;
    } else if (last && last.speakers.length === 0) {
      last.text += fragment;
      last.speakers = who;
    } else {
      this.#segments.push({ text: fragment, speakers: who });
    }
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
    for (const segment of this.#segments) {
      const text = joinFragments(segment.text);
      if (!text) continue;
      if (segment.speakers.length > 1) this.#sink('input_transcript', `(overlapping) ${text}`, segment.speakers.join(','));
      else this.#sink('input_transcript', text, segment.speakers[0]);
    }
    this.#segments = [];
  }
}

function joinFragments(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function sameSpeakers(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id) => b.includes(id));
}
