// Call notes arrive in three shapes: NoteEvents from the notes log, plain strings, or one text.
// This turns any of them into ordered utterances, merging the transcript fragments the live model
// streams (one event per few words) into whole turns, and dropping entries that are not speech or
// notes (state changes, frames, tool calls, notification receipts).
import { z } from 'zod';
import { NOTE_KINDS } from '../../api-types.ts';

export const noteLikeSchema = z.object({
  id: z.string().max(200).optional(),
  ts: z.number().finite().optional(),
  kind: z.enum(NOTE_KINDS).optional(),
  speaker: z.string().max(200).optional(),
  speaker_name: z.string().max(400).optional(),
  text: z.string().max(200_000),
  callId: z.string().max(200).optional(),
});

export type NoteLike = z.infer<typeof noteLikeSchema>;
export type NotesInput = string | readonly (string | NoteLike)[];

/** The notes fields shared by the grill, goal-synth and hand-off tool arguments. */
export const notesArgsShape = {
  text: z.string().max(200_000).optional().describe('Call notes or a transcript as plain text.'),
  notes: z
    .array(z.union([z.string().max(200_000), noteLikeSchema]))
    .max(5_000)
    .optional()
    .describe('Call notes: strings, or note events { kind, speaker, text } from GET /notes.'),
};

export interface Utterance {
  kind: (typeof NOTE_KINDS)[number];
  speaker?: string;
  /** Display name(s) for `speaker` (ids stay in `speaker`). */
  speaker_name?: string;
  text: string;
}

const SPOKEN_OR_WRITTEN = new Set<string>(['input_transcript', 'output_transcript', 'note', 'say']);
const TRANSCRIPT = new Set<string>(['input_transcript', 'output_transcript']);

export function toUtterances(input: NotesInput): Utterance[] {
  if (typeof input === 'string') return input.trim() ? [{ kind: 'note', text: input }] : [];
  const out: Utterance[] = [];
  for (const item of input) {
    const note: NoteLike = typeof item === 'string' ? { kind: 'note', text: item } : item;
    const kind = note.kind ?? 'note';
    if (!SPOKEN_OR_WRITTEN.has(kind) || !note.text.trim()) continue;
    const last = out[out.length - 1];
    if (last && TRANSCRIPT.has(kind) && last.kind === kind && last.speaker === note.speaker) {
      // Streamed fragments usually carry their own leading space; add one only between words.
      last.text += /^[\s,.;:!?)]/.test(note.text) || /\s$/.test(last.text) ? note.text : ` ${note.text}`;
      continue;
    }
    out.push({
      kind,
      speaker: note.speaker,
      ...(note.speaker_name ? { speaker_name: note.speaker_name } : {}),
      text: note.text,
    });
  }
  return out.map((u) => ({ ...u, text: u.text.trim() }));
}

/** Plain text of the notes: one utterance per line. */
export function notesToText(input: NotesInput): string {
  return toUtterances(input)
    .map((u) => u.text)
    .join('\n');
}

/** Notes and text together (notes first), or undefined when neither says anything. */
export function combineNotes(args: { text?: string; notes?: readonly (string | NoteLike)[] }): NotesInput | undefined {
  const parts: (string | NoteLike)[] = [...(args.notes ?? [])];
  if (args.text?.trim()) parts.push({ kind: 'note', text: args.text });
  return parts.length ? parts : undefined;
}
