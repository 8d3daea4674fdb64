// The helper tools as registry definitions: the same zod schemas serve the live model, the sidecar
// (`POST /tools/<name>`) and the CLI (`live-voice-bridge tool <name>`). Payloads are documented in
// docs/helper-tools.md. With a `currentCall` source, grill, goal synth and hand-off work on the
// running call's notes when the arguments give none, and refuse (409 `no_call`) when no call runs;
// a hand-off's `call_id` reads that call (call-notes.ts).
import { homedir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { NOTIFY_MODES, type NoteEvent, type NotifyRequest } from '../../api-types.ts';
import { defineTool, type ToolDefinition, type ToolRegistry } from '../registry.ts';
import { resolveNotes, type CurrentCallNotes } from './call-notes.ts';
import { DISCORD_MESSAGE_LIMIT } from './chat-safe.ts';
import { goalSynth } from './goal-synth.ts';
import { GRILL_FIELDS, liveGrill } from './grill.ts';
import { buildHandoff, handoffDir, writeHandoffFiles } from './handoff.ts';
import { notesArgsShape } from './notes-input.ts';
import { redact } from './redact.ts';

export interface HelperToolDeps {
  /** The agent home (`HERMES_HOME`); a function is resolved at each hand-off. */
  agentHome: string | (() => string);
  /**
   * The running call and its notes (null between calls), used when a request names no text or
   * notes. Without it (the CLI) such a request is `invalid_args`.
   */
  currentCall?: () => CurrentCallNotes | null;
  /** A recorded call's notes by id (null: no such call), for a hand-off naming `call_id`. */
  callNotes?: (callId: string) => readonly NoteEvent[] | null;
  /** The notification dispatcher, for `sora_handoff` with `notify: true`. */
  notify?: (request: NotifyRequest) => Promise<unknown>;
  now?: () => Date;
}

export const REDACT_DEFAULT_MAX_CHARS = 20_000;

// Strict, like every sidecar body: a misspelled argument (maxchars) is refused, not silently ignored.
const redactArgs = z.strictObject({
  text: z.string().max(1_000_000).describe('Text to redact: notes, a transcript, a log excerpt.'),
  max_chars: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .optional()
    .describe(`Cut the redacted text to this many characters (default ${REDACT_DEFAULT_MAX_CHARS}).`),
});

const grillResultSchema = z.object({
  fields: z.object({
    objective: z.string().max(4000).nullable().default(null),
    constraints: z.array(z.string().max(4000)).max(50).default([]),
    owner: z.string().max(4000).nullable().default(null),
    risk: z.array(z.string().max(4000)).max(50).default([]),
    next_command: z.string().max(4000).nullable().default(null),
    verification_test: z.string().max(4000).nullable().default(null),
  }),
  questions: z.array(z.string().max(4000)).max(20).optional(),
  vague: z.array(z.enum(GRILL_FIELDS)).max(6).optional(),
});

const NEEDS_NOTES = 'give `text` or `notes` (there is no running call to read notes from)';

function hasNotes(args: { text?: string; notes?: unknown[] }): boolean {
  return Boolean(args.text?.trim()) || (args.notes?.length ?? 0) > 0;
}

export function defaultAgentHome(env: NodeJS.ProcessEnv = process.env): string {
  const raw = env.HERMES_HOME?.trim() || '~/.hermes';
  return path.resolve(raw === '~' || raw.startsWith('~/') ? path.join(homedir(), raw.slice(1)) : raw);
}

export function createRedactTool() {
  return defineTool({
    name: 'sora_redact',
    description:
      'Remove secrets (bot tokens, webhook URLs, JWTs, API keys, passwords, private keys) from text before it is reused. Each one becomes [REDACTED:<kind>].',
    args: redactArgs,
    run: (args) => redact(args.text, { maxChars: args.max_chars ?? REDACT_DEFAULT_MAX_CHARS }),
  });
}

export function createGrillTool(deps: Pick<HelperToolDeps, 'currentCall'> = {}) {
  const args = z
    .strictObject({
      ...notesArgsShape,
      max_questions: z.number().int().min(0).max(12).optional().describe('At most this many questions (default 6).'),
    })
    .refine((a) => deps.currentCall !== undefined || hasNotes(a), NEEDS_NOTES);
  return defineTool({
    name: 'sora_live_grill',
    description: `Check call notes for ${GRILL_FIELDS.join(', ')}; returns what they state and one pointed question per missing or vague item, to ask the caller before the call ends. Without text or notes it reads the current call (refused with no_call when none runs).`,
    args,
    run: (a) => liveGrill({ notes: resolveNotes(a, deps).notes, maxQuestions: a.max_questions }),
  });
}

export function createGoalSynthTool(deps: Pick<HelperToolDeps, 'currentCall'> = {}) {
  const args = z
    .strictObject({
      ...notesArgsShape,
      grill_result: grillResultSchema
        .optional()
        .describe('A sora_live_grill result to turn into goals (instead of notes).'),
      max_chars: z
        .number()
        .int()
        .min(100)
        .max(DISCORD_MESSAGE_LIMIT)
        .optional()
        .describe('Limit for the whole block (default 2000, Discord’s message size).'),
    })
    .refine(
      (a) => deps.currentCall !== undefined || a.grill_result !== undefined || hasNotes(a),
      `${NEEDS_NOTES}, or \`grill_result\``,
    );
  return defineTool({
    name: 'sora_goal_synth',
    description:
      'Turn call notes (or a sora_live_grill result) into a chat-safe block: one /goal line and /subgoal lines, redacted, without mentions, within 2000 characters.',
    args,
    run: (a) =>
      a.grill_result
        ? goalSynth({ grill: a.grill_result, maxChars: a.max_chars })
        : goalSynth({ notes: resolveNotes(a, deps).notes, maxChars: a.max_chars }),
  });
}

export function createHandoffTool(deps: HelperToolDeps) {
  const args = z
    .strictObject({
      ...notesArgsShape,
      title: z.string().max(200).optional(),
      call_id: z
        .string()
        .max(200)
        .optional()
        .describe('The call to hand off (its notes are read when none are given); default: the running call.'),
      notify: z.boolean().optional().describe('Also deliver the /goal block through the notification dispatcher.'),
      notify_mode: z.enum(NOTIFY_MODES).optional().describe('Delivery mode when notify is true (default auto).'),
    })
    .refine((a) => deps.currentCall !== undefined || hasNotes(a), NEEDS_NOTES);
  return defineTool({
    name: 'sora_handoff',
    description:
      'Hand the call off: redact, grill and goal-synth the notes (the current call unless given), write a markdown and a JSON document under <agent home>/voice-users/handoffs/, and optionally notify.',
    args,
    run: async (a) => {
      const { notes, callId: read } = resolveNotes(a, deps);
      const callId =
        read ??
        a.call_id ??
        (Array.isArray(notes)
          ? notes.map((n) => (typeof n === 'string' ? undefined : n.callId)).find(Boolean)
          : undefined);
      const now = deps.now?.() ?? new Date();
      const handoff = buildHandoff({ notes, title: a.title, callId, now });
      const home = typeof deps.agentHome === 'function' ? deps.agentHome() : deps.agentHome;
      const files = await writeHandoffFiles(handoffDir(home), handoff, now);
      let notified: unknown;
      if (a.notify) {
        if (!deps.notify) notified = { status: 'unavailable', detail: 'no notification dispatcher in this process' };
        else {
          try {
            notified = await deps.notify({
              text: handoff.json.goal.text,
              title: handoff.json.title,
              mode: a.notify_mode ?? 'auto',
              source: 'sora_handoff',
            });
          } catch (err) {
            notified = { status: 'error', detail: err instanceof Error ? err.message : String(err) };
          }
        }
      }
      return {
        ...files,
        goal_text: handoff.json.goal.text,
        complete: handoff.json.brief.complete,
        missing: handoff.json.brief.missing,
        vague: handoff.json.brief.vague,
        questions: handoff.json.brief.questions,
        redactions: handoff.json.redactions.total,
        ...(a.notify ? { notified } : {}),
      };
    },
  });
}

/** All four helper tools for the given dependencies. */
export function createHelperTools(deps: HelperToolDeps): ToolDefinition<unknown, unknown>[] {
  return [createRedactTool(), createGrillTool(deps), createGoalSynthTool(deps), createHandoffTool(deps)];
}

/** The helper tools without a running call: hand-offs go under `HERMES_HOME` (default ~/.hermes). */
export const helperTools = createHelperTools({ agentHome: () => defaultAgentHome() });

export function registerHelperTools(registry: ToolRegistry, deps: HelperToolDeps): ToolRegistry {
  for (const tool of createHelperTools(deps)) registry.register(tool);
  return registry;
}
