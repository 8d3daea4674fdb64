// sora_goal_synth: one `/goal …` line followed by `/subgoal …` lines that an agent (or a person in
// Discord) can act on. Every item goes through chatSafeInline (redacted, one line, no pings, no
// injected slash commands, balanced backticks) and the whole block fits one Discord message.
import { chatSafeInline, DISCORD_MESSAGE_LIMIT } from './chat-safe.ts';
import { liveGrill, type GrillField, type GrillFields, type GrillResult } from './grill.ts';
import type { NotesInput } from './notes-input.ts';

export interface GoalSynthResult {
  goal: string;
  subgoals: string[];
  /** `/goal …` then one `/subgoal …` per line; at most `max_chars` (default 2000) characters. */
  text: string;
  /** Subgoals were dropped or the goal clipped to fit. */
  truncated: boolean;
}

export type GoalSynthInput =
  | { notes: NotesInput; maxChars?: number }
  | { grill: Pick<GrillResult, 'fields'> & Partial<Pick<GrillResult, 'questions' | 'vague'>>; maxChars?: number };

const GOAL_MAX = 400;
const SUBGOAL_MAX = 240;
const MAX_SUBGOALS = 10;
const FALLBACK_GOAL = 'Clarify the objective of this call with the caller before acting';

function inlineCode(command: string): string {
  // chatSafeInline already balanced any backticks; a command holding one is shown without a span.
  return command.includes('`') ? command : `\`${command}\``;
}

/** Vague fields ("someone", "look into it") become questions, not instructions. */
function subgoalsFrom(fields: GrillFields, questions: readonly string[], vague: readonly GrillField[]): string[] {
  const out: string[] = [];
  const usable = (f: GrillField) => !vague.includes(f);
  if (fields.next_command && usable('next_command'))
    out.push(`Run ${inlineCode(chatSafeInline(fields.next_command, SUBGOAL_MAX - 6))}`);
  if (fields.verification_test && usable('verification_test')) out.push(`Verify: ${fields.verification_test}`);
  for (const c of fields.constraints.slice(0, 3)) out.push(`Respect constraint: ${c}`);
  for (const r of fields.risk.slice(0, 2)) out.push(`Guard against risk: ${r}`);
  if (fields.owner && usable('owner')) out.push(`Owner: ${fields.owner} (confirm before starting)`);
  for (const q of questions.slice(0, 3)) out.push(`Ask the caller: ${q}`);
  return out;
}

export function goalSynth(input: GoalSynthInput): GoalSynthResult {
  const grill = 'grill' in input ? input.grill : liveGrill({ notes: input.notes });
  const maxChars = Math.max(100, Math.min(input.maxChars ?? DISCORD_MESSAGE_LIMIT, DISCORD_MESSAGE_LIMIT));
  const goalMax = Math.min(GOAL_MAX, maxChars - '/goal '.length);
  const goal = chatSafeInline(grill.fields.objective ?? '', goalMax) || FALLBACK_GOAL;
  let truncated = goal.endsWith('…');
  const candidates = subgoalsFrom(grill.fields, grill.questions ?? [], grill.vague ?? [])
    .map((s) => chatSafeInline(s, SUBGOAL_MAX))
    .filter((s, i, all) => s && all.indexOf(s) === i);
  if (candidates.length > MAX_SUBGOALS) truncated = true;

  const subgoals: string[] = [];
  let text = `/goal ${goal}`;
  for (const s of candidates.slice(0, MAX_SUBGOALS)) {
    const line = `\n/subgoal ${s}`;
    if (text.length + line.length > maxChars) {
      truncated = true;
      break;
    }
    text += line;
    subgoals.push(s);
  }
  return { goal, subgoals, text, truncated };
}
