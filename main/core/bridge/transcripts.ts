// Live transcription arrives as word fragments. Notes are written per utterance instead, both when
// the model's turn completes or is cut off (barge-in, or the socket carrying it ended): the user's
// words first, then the model's. Not earlier: input transcription is independent of the model's
// output order, so the last words of an utterance may arrive after the model started speaking
// (protocols.md §1.5) and would otherwise make a second note. A reply cut short (barge-in, "stop
// talking") waits for the same end: the model's words stop where the user stopped hearing them
// (cutOutput), while the user's words still arriving, the late part of the request the reply
// answered, join their note instead of starting one after the cut reply's.
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
  /** The reply was cut: how it ended (its words so far stay in #output; later ones are not kept). */
  #cutSuffix: string | null = null;
  /**
   * A reply is under way whose notes are not written yet: its first audio or words came, and no
   * flush since. A cut outside one is of a reply already written (the tail still playing after its
   * turnComplete) and must not stay pending into the next reply.
   */
  #replyUnderWay = false;

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
    this.#replyUnderWay = true;
    // The rest of a cut reply's words: playback dropped their audio, nobody heard them.
    if (this.#cutSuffix === null) this.#output += fragment;
  }

  /** The model's next reply began (its first audio): a cut from now on is this reply's. */
  replyStarted(): void {
    this.#replyUnderWay = true;
  }

  /**
   * The reply was cut off: its note keeps the words said so far, ending with `suffix` (how much was
   * heard). Nothing is written yet: that waits for flush() at the end of the model's turn, so the
   * late fragments of the user's words still arriving are not split from their note. The first cut
   * of a reply stands. A cut with no reply under way is of one whose notes are written (its tail
   * played on after its turnComplete): kept pending, it made the next reply's first audio write the
   * next request's early words as a note of their own, and its late words another (CI, 2026-12-03:
   * "We decided to" / "ship on Friday." as two caption lines, under load).
   */
  cutOutput(suffix: string): void {
    if (this.#replyUnderWay) this.#cutSuffix ??= suffix;
  }

  /** A cut reply's notes are waiting for the end of its turn. */
  get cutPending(): boolean {
    return this.#cutSuffix !== null;
  }

  flush(): void {
    this.#flushInput();
    const text = joinFragments(this.#output);
    if (text) this.#sink('output_transcript', this.#cutSuffix === null ? text : `${text} ${this.#cutSuffix}`, 'model');
    this.#output = '';
    this.#cutSuffix = null;
    this.#replyUnderWay = false;
  }

  #flushInput(): void {
    for (const segment of this.#segments) {
      const text = joinFragments(segment.text);
      if (!text) continue;
      if (segment.speakers.length > 1)
        this.#sink('input_transcript', `(overlapping) ${text}`, segment.speakers.join(','));
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
