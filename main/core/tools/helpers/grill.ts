// sora_live_grill: make call notes state objective, constraints, owner, risk, next command and
// verification test. It extracts what the notes already say (labelled lines, common phrasings,
// commands in backticks or `$ ` lines, test names) and asks one pointed question per missing or
// vague field, so the live model can ask the caller aloud before the call ends.
import { chatSafeInline } from './chat-safe.ts';
import { toUtterances, type NotesInput } from './notes-input.ts';

export const GRILL_FIELDS = ['objective', 'constraints', 'owner', 'risk', 'next_command', 'verification_test'] as const;
export type GrillField = (typeof GRILL_FIELDS)[number];

export interface GrillFields {
  objective: string | null;
  constraints: string[];
  owner: string | null;
  risk: string[];
  next_command: string | null;
  verification_test: string | null;
}

export interface GrillResult {
  fields: GrillFields;
  /** Fields the notes do not state at all. */
  missing: GrillField[];
  /** Fields the notes state too vaguely to act on ("someone", "TBD", "fix it"). */
  vague: GrillField[];
  /** One pointed question per missing or vague field, most important first. */
  questions: string[];
  complete: boolean;
  markdown: string;
}

export interface GrillInput {
  notes: NotesInput;
  maxQuestions?: number;
}

const ITEM_MAX = 300;
const LIST_MAX = 6;

const LABELS: Record<GrillField, RegExp> = {
  objective: /^(?:objective|goal|aim|purpose|task|mission|intent|outcome)s?$/i,
  constraints:
    /^(?:constraints?|requirements?|limits?|limitations?|rules?|boundaries|budget|deadline|must not|don'?t)$/i,
  owner: /^(?:owner|owned by|assignee|assigned to|responsible|dri|who)$/i,
  risk: /^(?:risks?|concerns?|caveats?|dangers?|blast radius|rollback(?: plan)?)$/i,
  next_command: /^(?:next command|command|cmd|next step|next action|next|run|action)$/i,
  verification_test:
    /^(?:verification(?: test)?|verify|tests?|check|acceptance(?: test| criteria)?|done when|success criteria|definition of done|validation)$/i,
};

/** `- **Owner**: Dana`, `## Risk - ...`, `1) next command: ...` */
const LABELLED_LINE =
  /^\s*(?:[-*•>]+\s*|#{1,6}\s*|\d{1,2}[.)]\s*)?(?:\*\*|__)?([A-Za-z][A-Za-z' ]{1,30}?)(?:\*\*|__)?\s*(?:\([^)]{0,40}\))?\s*(?::|\s[-–—]\s)\s*(.*)$/;

const COMMAND_START =
  /^(?:npx|npm|node|pnpm|yarn|bun|deno|git|gh|make|docker|kubectl|helm|curl|wget|python3?|pip3?|uv|cargo|go|bash|sh|zsh|\.\/|\/usr\/|sudo|systemctl|journalctl|ssh|scp|rsync|aws|gcloud|az|terraform|ansible|vitest|jest|pytest|playwright|tsc|eslint|live-voice-bridge|ls|cat|grep|rg|sed|tail|psql|redis-cli)\b/;
const TEST_COMMAND =
  /\b(?:npm (?:run )?test|npx vitest|vitest|jest|pytest|go test|cargo test|make (?:test|check)|playwright test|mocha|rspec|phpunit|tox|ctest|dotnet test|mvn test|gradle test)\b/;
const TEST_NAME = /\b[\w./-]+\.(?:test|spec)\.[cm]?[jt]sx?\b|\btest_[a-z0-9_]+\b|\b[A-Z]\w*Test\b|\btests?\/[\w./-]+/;

const VAGUE_WORDS =
  /^(?:tbd|tba|todo|\?+|n\/?a|unknown|unclear|none|nothing|nobody|someone|somebody|anyone|anybody|everyone|whoever|the team|team|we|us|they|them|later|soon|eventually|stuff|things|something|fix it|make it work|do it|handle it|sort it out|whatever|idk|not sure|maybe|etc|it works|test it|check it|looks good|see above|same as before)$/i;
const VAGUE_INSIDE =
  /\b(?:(?:the|that|this|some) (?:thing|stuff)\b|tbd|to be decided|not sure|somehow|figure (?:it )?out|someone|somebody|whoever|some kind of|or something|i guess)\b/i;

/** After . ! ? and a space, except after e.g. / i.e. / etc. / vs. */
const SENTENCE_BREAK = /(?<!\b(?:e\.g|i\.e|etc|vs|approx)\.)(?<=[.!?])\s+(?=\S)/i;

interface Statement {
  text: string;
  speaker?: string;
  kind: string;
}

function statementsOf(notes: NotesInput): Statement[] {
  const out: Statement[] = [];
  for (const u of toUtterances(notes)) {
    // U+2028/2029/0085 end a line for `.` in a regex but not for split('\n'): treat them as spaces.
    for (const line of u.text.replace(/[\u2028\u2029\u0085]/g, ' ').split(/\r?\n|\r/)) {
      if (!line.trim()) continue;
      // A labelled line stays whole; spoken prose splits into sentences.
      const parts = LABELLED_LINE.test(line) || /^\s*\$\s/.test(line) ? [line] : line.split(SENTENCE_BREAK);
      for (const part of parts)
        if (part.trim()) out.push({ text: part.trim(), speaker: u.speaker_name ?? u.speaker, kind: u.kind });
    }
  }
  return out;
}

/** Chat-safe single line; '' when nothing readable is left (a bare fence, punctuation). */
function clean(value: string): string {
  if (!/[\p{L}\p{N}]/u.test(value)) return '';
  return chatSafeInline(value.replace(/^\s*(?:\*\*|__)|(?:\*\*|__)\s*$/g, '').replace(/[\s.;,]+$/, ''), ITEM_MAX);
}

function commandsIn(text: string): string[] {
  const found: string[] = [];
  const dollar = /^\s*\$\s+(.+)$/.exec(text);
  if (dollar) found.push(dollar[1]!.trim());
  for (const m of text.matchAll(/`([^`\n]{2,200})`/g)) {
    const inner = m[1]!.trim();
    if (COMMAND_START.test(inner) || /\s--?[a-z]/.test(inner)) found.push(inner);
  }
  return found;
}

function isVague(field: GrillField, value: string): boolean {
  const bare = value
    .replace(/^(?:the|a|an)\s+/i, '')
    .replace(/[.!?…]+$/, '')
    .trim();
  if (VAGUE_WORDS.test(bare) || VAGUE_INSIDE.test(bare)) return true;
  switch (field) {
    case 'objective':
      return bare.split(/\s+/).length < 3;
    case 'owner':
      return /^(?:we|us|they|them|people|folks|devs?|ops|the team|team|who|\[(?:here|everyone|role \d+)\])$/i.test(
        bare,
      );
    case 'next_command':
      return !(COMMAND_START.test(bare) || /`[^`]+`/.test(value) || /\s--?[a-z]/.test(bare));
    case 'verification_test':
      return bare.split(/\s+/).length < 2 && !TEST_NAME.test(bare);
    default:
      return false;
  }
}

const PHRASES = {
  objective: [
    /\b(?:the|our|my|main)?\s*(?:goal|objective|aim|plan|task|idea|point) (?:here |today )?(?:is|was) (?:to |that )?(.{6,})/i,
    /\b(?:we|i) (?:need|want|have|are trying|'re trying|am trying) to (.{6,})/i,
    /\bi (?:need|want|would like) (?:you )?to (.{6,})/i,
  ],
  owner: [
    /\b(?:owned by|assigned to|owner is|responsible is|dri is)\s+(<@!?\d+>|@?[\w.-]+(?: [A-Z][a-z]+)?)/i,
    /(?:^|[.;,]\s*)(<@!?\d+>|[A-Z][a-z]+(?: [A-Z][a-z]+)?|I|[Ww]e|[Tt]hey|[Ss]omeone|[Ss]omebody)(?:\s+(?:will|is going to|owns|takes|handles|is on it|is responsible)|'ll)\b/,
  ],
  risk: /\b(?:risks?|risky|danger|careful|concern(?:ed)?|worr(?:y|ied)|might (?:break|fail|lose|leak)|could (?:break|fail|lose|leak|take down)|may (?:break|fail)|data loss|downtime|breaking change|roll ?back)\b/i,
  constraint:
    /\b(?:must(?:n't| not)?|do not|don't|never|only|without|no more than|at most|at least|can't|cannot|should(?:n't| not)|keep (?:the|it|them)|deadline|budget|by (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|eod|end of (?:day|week)|noon))\b/i,
  verification:
    /\b(?:verify|confirm|make sure|check that|done when|success (?:is|means|looks like)|should (?:pass|return|show|print|respond)|we(?:'ll)? know it works|passes)\b/i,
  nextHint: /\b(?:next|then|first|run|start with|go ahead and)\b/i,
};

function ownerFromPronoun(raw: string, s: Statement): string {
  if (/^i$/i.test(raw))
    return s.kind === 'output_transcript' ? 'the assistant' : s.speaker ? `the caller (${s.speaker})` : 'the caller';
  return raw;
}

function extract(statements: Statement[]): GrillFields {
  const fields: GrillFields = {
    objective: null,
    constraints: [],
    owner: null,
    risk: [],
    next_command: null,
    verification_test: null,
  };
  const used = new Set<Statement>();
  const pushUnique = (list: string[], value: string) => {
    if (value && list.length < LIST_MAX && !list.includes(value)) list.push(value);
  };

  // 1. Labelled lines are the strongest signal.
  for (const s of statements) {
    const m = LABELLED_LINE.exec(s.text);
    if (!m) continue;
    const label = m[1]!.trim();
    const field = GRILL_FIELDS.find((f) => LABELS[f].test(label));
    if (!field) continue;
    used.add(s);
    const value = m[2]!.trim();
    if (!clean(value)) continue;
    if (field === 'constraints' || field === 'risk') {
      for (const part of value.split(/\s*;\s*/)) pushUnique(fields[field], clean(part));
    } else if (field === 'next_command') {
      fields.next_command ??= clean(commandsIn(value)[0] ?? value.replace(/^\$\s+/, '').replace(/`{3,}/g, ''));
    } else if (fields[field] === null) {
      fields[field] = clean(value);
    }
  }

  // 2. Commands and tests anywhere.
  for (const s of statements) {
    for (const cmd of commandsIn(s.text)) {
      if (TEST_COMMAND.test(cmd)) fields.verification_test ??= clean(cmd);
      else if (fields.next_command === null && (PHRASES.nextHint.test(s.text) || /^\s*\$/.test(s.text)))
        fields.next_command = clean(cmd);
    }
  }
  if (fields.next_command === null) {
    const any = statements.flatMap((s) => commandsIn(s.text)).find((c) => !TEST_COMMAND.test(c));
    if (any) fields.next_command = clean(any);
  }

  // 3. Common phrasings in prose.
  for (const s of statements) {
    if (used.has(s)) continue;
    if (fields.objective === null) {
      const m = PHRASES.objective.map((re) => re.exec(s.text)).find(Boolean);
      if (m) {
        fields.objective = clean(m[1]!);
        used.add(s);
        continue;
      }
    }
    if (fields.owner === null && !s.text.trimEnd().endsWith('?')) {
      const m = PHRASES.owner.map((re) => re.exec(s.text)).find(Boolean);
      if (m) fields.owner = clean(ownerFromPronoun(m[1]!, s));
    }
    if (fields.verification_test === null && PHRASES.verification.test(s.text)) {
      const name = TEST_NAME.exec(s.text);
      fields.verification_test = clean(name ? name[0] : s.text);
      used.add(s);
      continue;
    }
    if (PHRASES.risk.test(s.text)) {
      pushUnique(fields.risk, clean(s.text));
      used.add(s);
      continue;
    }
    if (PHRASES.constraint.test(s.text)) pushUnique(fields.constraints, clean(s.text));
  }
  if (fields.verification_test === null) {
    const name = statements.map((s) => TEST_NAME.exec(s.text)).find(Boolean);
    if (name) fields.verification_test = clean(name[0]);
  }
  return fields;
}

function quote(value: string): string {
  return `“${value.length > 80 ? value.slice(0, 79) + '…' : value}”`;
}

function questionFor(field: GrillField, fields: GrillFields, vague: boolean, objectiveUsable: boolean): string {
  const about =
    fields.objective && objectiveUsable && fields.objective.length <= 60 ? ` for ${quote(fields.objective)}` : '';
  switch (field) {
    case 'objective':
      return vague
        ? `The objective ${quote(fields.objective ?? '')} is vague: what specific outcome should exist when this is done?`
        : 'What exactly should be true when this is done? Say it in one sentence.';
    case 'constraints':
      return `What must not change or break${about}: limits, deadlines, things to leave alone?`;
    case 'owner':
      return vague
        ? `${quote(fields.owner ?? '')} is not one person: who owns this and does the next step?`
        : `Who owns this${about}? Name one person.`;
    case 'risk':
      return `What is the biggest risk${about} if it goes wrong, and how would you roll back?`;
    case 'next_command':
      return vague
        ? `${quote(fields.next_command ?? '')} is not a runnable step: what exact command runs next?`
        : `What exact command (or first concrete action) runs next${about}?`;
    case 'verification_test':
      return vague
        ? `${quote(fields.verification_test ?? '')} cannot be checked: which test, command or observable result proves it worked?`
        : `Which test or check proves it worked${about}: a test name, a command, or a result you can observe?`;
  }
}

function isEmpty(fields: GrillFields, field: GrillField): boolean {
  const v = fields[field];
  return Array.isArray(v) ? v.length === 0 : v === null;
}

export function renderGrillMarkdown(fields: GrillFields, questions: readonly string[]): string {
  const line = (label: string, value: string | null) => `- **${label}:** ${value ?? '_not stated_'}`;
  const list = (label: string, values: string[]) => line(label, values.length ? values.join('; ') : null);
  const cmd =
    fields.next_command && !fields.next_command.includes('`') ? `\`${fields.next_command}\`` : fields.next_command;
  const parts = [
    '## Call brief',
    line('Objective', fields.objective),
    list('Constraints', fields.constraints),
    line('Owner', fields.owner),
    list('Risks', fields.risk),
    line('Next command', cmd),
    line('Verification', fields.verification_test),
  ];
  if (questions.length) parts.push('', '### Open questions', ...questions.map((q, i) => `${i + 1}. ${q}`));
  return parts.join('\n');
}

export function liveGrill(input: GrillInput): GrillResult {
  const fields = extract(statementsOf(input.notes));
  const missing = GRILL_FIELDS.filter((f) => isEmpty(fields, f));
  const vague = GRILL_FIELDS.filter((f) => {
    if (missing.includes(f)) return false;
    const v = fields[f];
    return Array.isArray(v) ? v.every((item) => isVague(f, item)) : isVague(f, v as string);
  });
  const maxQuestions = Math.max(0, Math.min(input.maxQuestions ?? GRILL_FIELDS.length, 12));
  const questions = GRILL_FIELDS.filter((f) => missing.includes(f) || vague.includes(f))
    .map((f) => questionFor(f, fields, vague.includes(f), !vague.includes('objective')))
    .slice(0, maxQuestions);
  return {
    fields,
    missing,
    vague,
    questions,
    complete: missing.length === 0 && vague.length === 0,
    markdown: renderGrillMarkdown(fields, questions),
  };
}
