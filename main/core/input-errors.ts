// Client-facing text for invalid input, bounded. A client mistake must cost a short 400, never an
// answer that grows with the mistake: zod lists every unknown key of a strict object, so a body with
// thousands of keys (once: an 8 MB Buffer, every byte offset a "key") gave a 103 MB error body.
// Shared by the tool registry (its `invalid_args`, for HTTP, MCP and the live model alike), the route
// modules that validate with zod (bridge, talk, setup) and the sidecar's error handler, which bounds
// every error message again as a last line of defence.
import type { z } from 'zod';

/** Issues described in one message; the rest are counted. */
export const MAX_LISTED_ISSUES = 5;
/** Unknown keys named per issue; the rest are counted. */
export const MAX_LISTED_KEYS = 5;
/** One key or path as quoted back to the client. */
const MAX_KEY_CHARS = 40;
/** A whole error message (and each per-field text). */
export const MAX_ERROR_MESSAGE_CHARS = 500;
/** Per-field problems in one answer (`error.fields`). */
export const MAX_ERROR_FIELDS = 10;

export function boundedText(text: string, max = MAX_ERROR_MESSAGE_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** `"a", "b" and 3 more`: at most MAX_LISTED_KEYS keys, each cut to a readable length. */
export function listKeys(keys: readonly string[]): string {
  const shown = keys.slice(0, MAX_LISTED_KEYS).map((k) => JSON.stringify(boundedText(k, MAX_KEY_CHARS)));
  const more = keys.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}

function dotPath(path: readonly PropertyKey[]): string {
  const text = path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
  return boundedText(text, MAX_KEY_CHARS * 2);
}

/**
 * The same lines as `z.prettifyError` ("✖ problem" / "  → at path"), but at most MAX_LISTED_ISSUES
 * issues, unknown keys listed with `listKeys`, and the whole cut to MAX_ERROR_MESSAGE_CHARS.
 */
export function zodErrorMessage(error: z.ZodError): string {
  const issues = [...error.issues].sort((a, b) => a.path.length - b.path.length);
  const lines: string[] = [];
  for (const issue of issues.slice(0, MAX_LISTED_ISSUES)) {
    const message =
      issue.code === 'unrecognized_keys'
        ? `Unrecognized key${issue.keys.length === 1 ? '' : 's'}: ${listKeys(issue.keys)}`
        : issue.message;
    lines.push(`✖ ${boundedText(message, MAX_ERROR_MESSAGE_CHARS / 2)}`);
    if (issue.path.length) lines.push(`  → at ${dotPath(issue.path)}`);
  }
  if (issues.length > MAX_LISTED_ISSUES) lines.push(`✖ and ${issues.length - MAX_LISTED_ISSUES} more problems`);
  return boundedText(lines.join('\n'));
}

/** `error.fields` of an answer: at most MAX_ERROR_FIELDS entries, keys and texts cut. */
export function boundedFields(fields: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!fields) return undefined;
  const entries = Object.entries(fields).slice(0, MAX_ERROR_FIELDS);
  return Object.fromEntries(entries.map(([k, v]) => [boundedText(k, MAX_KEY_CHARS), boundedText(v)]));
}
