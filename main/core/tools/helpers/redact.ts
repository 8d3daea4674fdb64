// Pattern redaction shared by `sora_redact`, the logger and every hand-off/webhook/DM that carries
// notes. All rules run on the original text, overlapping finds are merged (so a secret matched by
// two rules is never half-exposed), and each span becomes `[REDACTED:<kind>]`.
import { REDACTION_RULES, type RedactionRule } from './redact-rules.ts';

export interface Redaction {
  kind: string;
  /** UTF-16 offsets into the input text (before truncation): where the secret was. */
  start: number;
  end: number;
}

export interface RedactResult {
  text: string;
  redactions: Redaction[];
  /** The redacted text was cut to `maxChars`. */
  truncated: boolean;
}

export interface RedactOptions {
  /** Cut the redacted output to this many UTF-16 units (never inside a marker or a surrogate pair). */
  maxChars?: number;
}

interface Span extends Redaction {
  priority: number;
}

/** One pass over the text with the union of every rule's hint: most log lines stop here. */
const GATE = new RegExp(REDACTION_RULES.map((r) => `(?:${r.hint.source})`).join('|'), 'i');
/** No secret the rules know is shorter than this (`pwd=abcdef` is 10). */
const MIN_SECRET_TEXT = 10;

export function redactionMarker(kind: string): string {
  return `[REDACTED:${kind}]`;
}

function findSpans(text: string): Span[] {
  const spans: Span[] = [];
  REDACTION_RULES.forEach((rule, priority) => {
    if (!rule.hint.test(text)) return;
    collect(rule, priority, text, spans);
  });
  return spans;
}

function collect(rule: RedactionRule, priority: number, text: string, out: Span[]): void {
  const pattern = rule.pattern;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    let start = match.index;
    let end = start + match[0].length;
    if (rule.groups) {
      const group = rule.groups.find((g) => match![g] !== undefined);
      const range = group === undefined ? undefined : match.indices?.[group];
      if (!range) continue;
      [start, end] = range;
    }
    const secret = text.slice(start, end);
    if (end > start && (!rule.validate || rule.validate(secret, match, text))) {
      out.push({ kind: typeof rule.kind === 'string' ? rule.kind : rule.kind(match), start, end, priority });
    } else {
      // A rejected candidate must not hide a real secret that starts inside it.
      pattern.lastIndex = match.index + 1;
    }
    if (match[0].length === 0) pattern.lastIndex++;
  }
}

/** Earliest start wins; at the same start the longer span, then the more specific rule. Overlaps merge. */
function mergeSpans(spans: Span[]): Redaction[] {
  spans.sort((a, b) => a.start - b.start || b.end - a.end || a.priority - b.priority);
  const merged: Redaction[] = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last && span.start < last.end) {
      last.end = Math.max(last.end, span.end);
      continue;
    }
    merged.push({ kind: span.kind, start: span.start, end: span.end });
  }
  return merged;
}

function applyRedactions(text: string, redactions: readonly Redaction[]): string {
  let out = '';
  let cursor = 0;
  for (const r of redactions) {
    out += text.slice(cursor, r.start) + redactionMarker(r.kind);
    cursor = r.end;
  }
  return out + text.slice(cursor);
}

/** Cut at `maxChars` without splitting a `[REDACTED:…]` marker or a surrogate pair. */
function truncate(text: string, maxChars: number): string {
  let cut = Math.max(0, maxChars);
  const open = text.lastIndexOf('[REDACTED:', cut);
  if (open !== -1 && open < cut && text.indexOf(']', open) >= cut) cut = open;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return text.slice(0, cut);
}

export function redact(text: string, options: RedactOptions = {}): RedactResult {
  const redactions = text.length >= MIN_SECRET_TEXT && GATE.test(text) ? mergeSpans(findSpans(text)) : [];
  let out = redactions.length ? applyRedactions(text, redactions) : text;
  const truncated = options.maxChars !== undefined && out.length > options.maxChars;
  if (truncated) out = truncate(out, options.maxChars!);
  return { text: out, redactions, truncated };
}

/** The logger's entry point: the redacted text, the same string object when nothing matched. */
export function redactText(text: string): string {
  if (text.length < MIN_SECRET_TEXT || !GATE.test(text)) return text;
  const redactions = mergeSpans(findSpans(text));
  return redactions.length ? applyRedactions(text, redactions) : text;
}
