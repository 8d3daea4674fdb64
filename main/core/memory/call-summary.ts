// The end-of-call summary kept with each call (issue #54 "memory"): the `sora_live_grill` fields
// (objective, constraints, owner, risk, next command, verification), plus the decisions taken and
// the questions left open, each citing the note ids (lines) it comes from. The notes are redacted
// with `sora_redact` before anything is extracted, so no secret said aloud reaches the summary.
// Built from the stored notes only: an opted-out speaker's words were never stored.
import type { NoteEvent } from '../api-types.ts';
import { liveGrill } from '../tools/helpers/grill.ts';
import { redact } from '../tools/helpers/redact.ts';

export interface Cited {
  text: string;
  /** Ids of the notes (GET /notes?call=) the text comes from. */
  cites: string[];
}

export interface CallMemory {
  version: 1;
  call_id: string;
  started_at: number;
  ended_at: number;
  objective: Cited | null;
  constraints: Cited[];
  owner: Cited | null;
  risk: Cited[];
  next_command: Cited | null;
  verification: Cited | null;
  decisions: Cited[];
  open_questions: Cited[];
  /** How many secrets were redacted from the notes before summarising. */
  redactions: number;
}

const SPOKEN = new Set(['input_transcript', 'output_transcript', 'note', 'say']);
const DECISION =
  /\b(?:we (?:have )?decided|decided to|decision|agreed|let'?s go with|going with|settled on|the plan is|we will|we'll)\b/i;
const UNSURE =
  /\b(?:not sure|don'?t know|do not know|unclear|no idea|can'?t tell|cannot tell|open question|to be decided|tbd)\b/i;
const MAX_ITEMS = 6;
const MAX_CITES = 5;

const words = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * The notes a piece of extracted text comes from: the lines it contains, is part of, or mostly
 * repeats (the grill joins one speaker's streamed fragments into one turn, so a field can span lines).
 */
function citesFor(text: string, notes: readonly NoteEvent[]): string[] {
  const needle = text.toLowerCase();
  const want = new Set(words(text));
  const cited = notes.filter((n) => {
    const line = n.text.toLowerCase().trim();
    if (line.length >= 4 && (line.includes(needle) || needle.includes(line))) return true;
    const own = words(line);
    return own.length >= 3 && own.filter((w) => want.has(w)).length / own.length >= 0.7;
  });
  return cited.slice(0, MAX_CITES).map((n) => n.id);
}

const cite = (text: string | null, notes: readonly NoteEvent[]): Cited | null =>
  text ? { text, cites: citesFor(text, notes) } : null;

/** Sentences of the spoken lines that state a decision. */
function decisionsOf(notes: readonly NoteEvent[]): Cited[] {
  const out: Cited[] = [];
  for (const n of notes) {
    for (const sentence of n.text.split(/(?<=[.!?])\s+/)) {
      if (out.length < MAX_ITEMS && DECISION.test(sentence) && !sentence.trim().endsWith('?'))
        out.push({ text: sentence.trim(), cites: [n.id] });
    }
  }
  return out;
}

/** Questions people asked that the model's next line did not answer (no reply, or an unsure one). */
function openQuestionsOf(notes: readonly NoteEvent[]): Cited[] {
  const out: Cited[] = [];
  notes.forEach((n, i) => {
    if (n.kind !== 'input_transcript' || !n.text.includes('?') || out.length >= MAX_ITEMS) return;
    const reply = notes.slice(i + 1).find((m) => m.kind === 'output_transcript' || m.kind === 'input_transcript');
    if (!reply || reply.kind !== 'output_transcript' || UNSURE.test(reply.text))
      out.push({
        text: n.text.trim(),
        cites: [n.id, ...(reply && reply.kind === 'output_transcript' ? [reply.id] : [])],
      });
  });
  return out;
}

export function summarizeCall(callId: string, stored: readonly NoteEvent[]): CallMemory {
  let redactions = 0;
  const notes = stored
    .filter((n) => SPOKEN.has(n.kind) && n.text.trim())
    .map((n) => {
      const r = redact(n.text);
      redactions += r.redactions.length;
      return { ...n, text: r.text };
    });
  const { fields } = liveGrill({ notes });
  const list = (items: readonly string[]): Cited[] =>
    items.slice(0, MAX_ITEMS).map((text) => ({ text, cites: citesFor(text, notes) }));
  return {
    version: 1,
    call_id: callId,
    started_at: stored[0]?.ts ?? 0,
    ended_at: stored.at(-1)?.ts ?? 0,
    objective: cite(fields.objective, notes),
    constraints: list(fields.constraints),
    owner: cite(fields.owner, notes),
    risk: list(fields.risk),
    next_command: cite(fields.next_command, notes),
    verification: cite(fields.verification_test, notes),
    decisions: decisionsOf(notes),
    open_questions: openQuestionsOf(notes),
    redactions,
  };
}

/** Whether the summary says anything worth remembering. */
export function hasContent(m: CallMemory): boolean {
  return Boolean(
    m.objective ||
    m.owner ||
    m.next_command ||
    m.verification ||
    m.constraints.length ||
    m.risk.length ||
    m.decisions.length ||
    m.open_questions.length,
  );
}
