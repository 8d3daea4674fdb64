// The hand-off: redact → grill → goal synth on one call's notes, rendered as a markdown document
// for a person and a JSON document for an agent, and written atomically (temp file + rename) under
// `<agent home>/voice-users/handoffs/` with owner-only permissions (notes are private).
import { randomBytes } from 'node:crypto';
import { access, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { chatSafeInline } from './chat-safe.ts';
import { goalSynth, type GoalSynthResult } from './goal-synth.ts';
import { liveGrill, renderGrillMarkdown, type GrillField, type GrillFields } from './grill.ts';
import { toUtterances, type NotesInput, type Utterance } from './notes-input.ts';
import { redact } from './redact.ts';

export const HANDOFF_VERSION = 1;
const EXCERPT_MAX = 6000;

export interface HandoffInput {
  notes: NotesInput;
  title?: string;
  callId?: string;
  now?: Date;
}

export interface HandoffDocument {
  version: typeof HANDOFF_VERSION;
  title: string;
  created_at: string;
  call_id: string | null;
  source: { utterances: number; chars: number };
  redactions: { total: number; by_kind: Record<string, number> };
  brief: { fields: GrillFields; missing: GrillField[]; vague: GrillField[]; questions: string[]; complete: boolean };
  goal: Omit<GoalSynthResult, 'truncated'>;
  /** The redacted notes, one `speaker: text` line per utterance, cut at 6000 characters. */
  notes_excerpt: string;
  notes_truncated: boolean;
}

export interface Handoff {
  markdown: string;
  json: HandoffDocument;
}

function speakerLabel(u: Utterance): string {
  if (u.kind === 'output_transcript') return 'assistant';
  if (u.kind === 'say') return 'say';
  const who = u.speaker_name ?? u.speaker;
  if (u.kind === 'input_transcript') return who ? `caller ${who}` : 'caller';
  return who ? `note ${who}` : 'note';
}

/** A fence longer than any backtick run inside, so the excerpt cannot close it early. */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

export function buildHandoff(input: HandoffInput): Handoff {
  const utterances = toUtterances(input.notes);
  const byKind: Record<string, number> = {};
  let total = 0;
  const redacted = utterances.map((u) => {
    const r = redact(u.text);
    for (const x of r.redactions) byKind[x.kind] = (byKind[x.kind] ?? 0) + 1;
    total += r.redactions.length;
    return { ...u, text: r.text };
  });
  const grill = liveGrill({
    notes: redacted.map((u) => ({ kind: u.kind, speaker: u.speaker_name ?? u.speaker, text: u.text })),
  });
  const goal = goalSynth({ grill });
  const fullExcerpt = redacted.map((u) => `${speakerLabel(u)}: ${u.text}`).join('\n');
  const notesTruncated = fullExcerpt.length > EXCERPT_MAX;
  const excerpt = notesTruncated ? fullExcerpt.slice(0, EXCERPT_MAX) : fullExcerpt;
  const title = chatSafeInline(input.title ?? '', 120) || 'Call hand-off';

  const json: HandoffDocument = {
    version: HANDOFF_VERSION,
    title,
    created_at: (input.now ?? new Date()).toISOString(),
    call_id: input.callId ?? null,
    source: { utterances: utterances.length, chars: utterances.reduce((n, u) => n + u.text.length, 0) },
    redactions: { total, by_kind: byKind },
    brief: {
      fields: grill.fields,
      missing: grill.missing,
      vague: grill.vague,
      questions: grill.questions,
      complete: grill.complete,
    },
    goal: { goal: goal.goal, subgoals: goal.subgoals, text: goal.text },
    notes_excerpt: excerpt,
    notes_truncated: notesTruncated,
  };
  return { markdown: renderHandoffMarkdown(json), json };
}

export function renderHandoffMarkdown(doc: HandoffDocument): string {
  const meta = [
    `created ${doc.created_at}`,
    doc.call_id ? `call ${doc.call_id}` : null,
    `${doc.source.utterances} note${doc.source.utterances === 1 ? '' : 's'}`,
    `${doc.redactions.total} redactions`,
  ]
    .filter(Boolean)
    .join(' · ');
  const status = doc.brief.complete
    ? 'Brief complete.'
    : `Brief incomplete: ${[...doc.brief.missing, ...doc.brief.vague].join(', ')} need an answer.`;
  const fence = fenceFor(doc.notes_excerpt);
  return [
    `# Hand-off: ${doc.title}`,
    '',
    `_${meta}_`,
    '',
    status,
    '',
    '## Goal',
    '',
    '```text',
    doc.goal.text,
    '```',
    '',
    renderGrillMarkdown(doc.brief.fields, doc.brief.questions),
    '',
    '## Notes (redacted)',
    '',
    doc.notes_excerpt
      ? `${fence}text\n${doc.notes_excerpt}${doc.notes_truncated ? '\n…' : ''}\n${fence}`
      : '_no notes_',
    '',
  ].join('\n');
}

/** `2025-01-02T03-04-05-678Z`: sortable, and valid on every file system. */
export function handoffStamp(now: Date): string {
  return now.toISOString().replace(/[:.]/g, '-');
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

async function writeAtomic(file: string, content: string): Promise<void> {
  const temp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  try {
    await writeFile(temp, content, { mode: 0o600, flag: 'wx' });
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

export interface WrittenHandoff {
  markdown_path: string;
  json_path: string;
}

/** Write `<dir>/<timestamp>.md` and `.json` (a `-2`, `-3` … suffix if that second is taken). */
export async function writeHandoffFiles(
  dir: string,
  handoff: Handoff,
  now: Date = new Date(handoff.json.created_at),
): Promise<WrittenHandoff> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const stamp = handoffStamp(now);
  let base = stamp;
  for (let n = 2; (await exists(path.join(dir, `${base}.md`))) || (await exists(path.join(dir, `${base}.json`))); n++)
    base = `${stamp}-${n}`;
  const jsonPath = path.join(dir, `${base}.json`);
  const mdPath = path.join(dir, `${base}.md`);
  await writeAtomic(jsonPath, JSON.stringify(handoff.json, null, 2) + '\n');
  await writeAtomic(mdPath, handoff.markdown);
  return { markdown_path: mdPath, json_path: jsonPath };
}

export function handoffDir(agentHome: string): string {
  return path.join(agentHome, 'voice-users', 'handoffs');
}
