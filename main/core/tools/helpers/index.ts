// The call-note helpers: pure functions (redact → grill → goal synth → hand-off) and their tool
// definitions, reachable from the live model, the sidecar (`POST /tools/<name>`) and the CLI.
export {
  redact,
  redactText,
  redactionMarker,
  type Redaction,
  type RedactOptions,
  type RedactResult,
} from './redact.ts';
export { REDACTION_RULES, type RedactionRule } from './redact-rules.ts';
export { chatSafeInline, neutralizeMentions, DISCORD_MESSAGE_LIMIT } from './chat-safe.ts';
export {
  liveGrill,
  renderGrillMarkdown,
  GRILL_FIELDS,
  type GrillField,
  type GrillFields,
  type GrillInput,
  type GrillResult,
} from './grill.ts';
export { goalSynth, type GoalSynthInput, type GoalSynthResult } from './goal-synth.ts';
export { toUtterances, notesToText, type NoteLike, type NotesInput, type Utterance } from './notes-input.ts';
export {
  buildHandoff,
  handoffDir,
  handoffStamp,
  renderHandoffMarkdown,
  writeHandoffFiles,
  type Handoff,
  type HandoffDocument,
  type HandoffInput,
  type WrittenHandoff,
} from './handoff.ts';
export {
  CALL_NOTES_LIMIT,
  CallNotesRefusal,
  resolveNotes,
  type CallNotesSources,
  type CurrentCallNotes,
  type ResolvedNotes,
} from './call-notes.ts';
export {
  createGoalSynthTool,
  createGrillTool,
  createHandoffTool,
  createHelperTools,
  createRedactTool,
  defaultAgentHome,
  helperTools,
  registerHelperTools,
  REDACT_DEFAULT_MAX_CHARS,
  type HelperToolDeps,
} from './helper-tools.ts';
