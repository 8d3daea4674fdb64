// The room view's tools in a person's words: GET /room names the owner-only tools by their internal
// names ("local_notify_schedule (cancel)"); the page says "cancelling reminders". Pure, unit-tested.

/** The built-in tools in a person's words (the room view lists them by their internal names). */
const TOOL_WORDS: Record<string, string> = {
  local_notify: 'sending notifications',
  local_notify_schedule: 'reminders',
  local_delegate_execute: 'delegated tasks',
};
const FORM_WORDS: Record<string, string> = {
  cancel: 'cancelling',
  start: 'starting',
  'start, cancel': 'starting or cancelling',
};

/** `local_notify_schedule (cancel)` → `cancelling reminders`; an MCP tool `mcp_everything_echo` → `the MCP tool “everything echo”`. */
export function toolWords(entry: string): string {
  const match = /^(\S+)(?: \((.+)\))?$/.exec(entry);
  if (!match) return entry;
  const [, name = entry, forms] = match;
  const what =
    TOOL_WORDS[name] ??
    (name.startsWith('mcp_') ? `the MCP tool “${name.slice(4).replace(/_/g, ' ')}”` : name.replace(/_/g, ' '));
  return forms ? `${FORM_WORDS[forms] ?? forms} ${what}` : what;
}

/** The core's "may" sentence with each owner-only tool it names in words. */
export function mayInWords(may: string, ownerOnly: readonly string[]): string {
  // Longest first, so `local_notify_schedule (cancel)` is replaced before `local_notify`.
  return [...ownerOnly]
    .sort((a, b) => b.length - a.length)
    .reduce((text, entry) => text.split(entry).join(toolWords(entry)), may);
}
