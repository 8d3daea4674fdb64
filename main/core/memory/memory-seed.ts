// A new call starts knowing what earlier calls concluded: the last few summaries (call-summary.ts),
// newest first, in the session's system instruction, bounded by a token budget
// (DISCORD_VOICE_LIVE_MEMORY_SEED_TOKENS, about 4 characters a token; 0 turns it off).
import type { CallMemory } from './call-summary.ts';

export const MEMORY_SEED_HEADER =
  'What you remember from earlier calls (newest first; for context only: do not recite it, use it when the user refers to an earlier call, and say you are not sure when it does not cover the question; the recall tool searches everything that was said):';

const CHARS_PER_TOKEN = 4;

function day(ts: number): string {
  return new Date(ts * 1000).toISOString().slice(0, 10);
}

/** One summary as one paragraph. */
export function memoryLine(m: CallMemory): string {
  const parts: string[] = [];
  if (m.objective) parts.push(`objective: ${m.objective.text}`);
  if (m.owner) parts.push(`owner: ${m.owner.text}`);
  if (m.decisions.length) parts.push(`decided: ${m.decisions.map((d) => d.text).join(' / ')}`);
  if (m.constraints.length) parts.push(`constraints: ${m.constraints.map((c) => c.text).join(' / ')}`);
  if (m.risk.length) parts.push(`risks: ${m.risk.map((r) => r.text).join(' / ')}`);
  if (m.next_command) parts.push(`next: ${m.next_command.text}`);
  if (m.verification) parts.push(`verify: ${m.verification.text}`);
  if (m.open_questions.length) parts.push(`still open: ${m.open_questions.map((q) => q.text).join(' / ')}`);
  return `- Call of ${day(m.started_at)} (${m.call_id}): ${parts.join('; ')}`;
}

/** The seed text for the newest-first summaries within `maxTokens`; '' when off or empty. */
export function memorySeed(summaries: readonly CallMemory[], maxTokens: number): string {
  if (maxTokens <= 0 || summaries.length === 0) return '';
  const budget = maxTokens * CHARS_PER_TOKEN - MEMORY_SEED_HEADER.length;
  const lines: string[] = [];
  let used = 0;
  for (const m of summaries) {
    const line = memoryLine(m);
    if (used + line.length + 1 > budget) break;
    lines.push(line);
    used += line.length + 1;
  }
  return lines.length ? `${MEMORY_SEED_HEADER}\n${lines.join('\n')}` : '';
}

/** The persona with the memory seed after it. */
export function withMemory(persona: string | undefined, seed: string): string | undefined {
  if (!seed) return persona;
  return persona ? `${persona}\n\n${seed}` : seed;
}
