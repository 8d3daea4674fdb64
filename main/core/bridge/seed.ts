// The context a session opened mid-call starts with (after a park or an outage): the persona and
// the call's recent transcript, in the system instruction, so every provider takes it through the
// same contract (ports.ts `systemInstruction`) and none of them answers or repeats old turns.
import type { NoteEvent } from '../api-types.ts';

/** Transcript lines kept in a seed, newest last, and their total size (a few hundred tokens). */
const SEED_MAX_LINES = 30;
const SEED_MAX_CHARS = 4000;

export const SEED_HEADER =
  'Earlier in this call (the connection to you was reopened; this is what was said before, for context only: do not repeat it and do not answer it again):';

/** The recent conversation of a call from its notes, as lines for a seed ('' when nothing was said). */
export function transcriptSeed(notes: readonly NoteEvent[], name: (id: string) => string): string {
  const lines: string[] = [];
  let chars = 0;
  for (let i = notes.length - 1; i >= 0 && lines.length < SEED_MAX_LINES; i--) {
    const note = notes[i]!;
    let line: string | null = null;
    if (note.kind === 'input_transcript') line = `${note.speaker ? name(note.speaker) : 'User'}: ${note.text}`;
    else if (note.kind === 'output_transcript') line = `You: ${note.text}`;
    else if (note.kind === 'say') line = `(You were asked to say: ${note.text})`;
    if (!line) continue;
    if (chars + line.length > SEED_MAX_CHARS) break;
    chars += line.length + 1;
    lines.push(line);
  }
  return lines.reverse().join('\n');
}

/** Persona plus the seed, as one system instruction. */
export function seededInstruction(persona: string | undefined, seed: string): string | undefined {
  if (!seed) return persona;
  const context = `${SEED_HEADER}\n${seed}`;
  return persona ? `${persona}\n\n${context}` : context;
}
