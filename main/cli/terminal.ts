// What the headless core prints for a person at a terminal when a call cannot start yet: one plain
// paragraph that says what is missing and where to set it (how log lines read: core/log/terminal-format.ts).
function listOf(names: readonly string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** Null when nothing is missing. */
export function unconfiguredParagraph(missing: readonly string[], envFile: string): string | null {
  if (missing.length === 0) return null;
  return (
    `Voice calls are off until ${listOf(missing)} ${missing.length === 1 ? 'is' : 'are'} set. Put ${missing.length === 1 ? 'it' : 'them'} in ${envFile} ` +
    "(read from the folder you start in), in the environment, or on the dashboard's Set up page (the link above opens it; each is tested there); " +
    'README.md, "From zero to a real call", shows where to get each. Everything else works already: ' +
    'the sidecar, notifications by webhook and the helper tools.'
  );
}
