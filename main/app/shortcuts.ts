// The desktop shell's keys: what each does, its default, how a user re-binds it, and whether a
// binding clashes with a shortcut people already rely on (editors, browsers, the OS). A global key
// is taken from every other app while we run, so a clash (the old default Ctrl/Cmd+Shift+F was Find
// in Files in VS Code and JetBrains) breaks someone's muscle memory: it is detected and shown.

export type ShortcutId = 'screenshot' | 'mute' | 'talk';

export interface ShortcutSpec {
  id: ShortcutId;
  /** Menu wording. */
  label: string;
  /** Electron accelerator syntax; `talk` is held (push-to-talk), the others are pressed. */
  defaultAccelerator: string;
  /** The shell-only environment variable that overrides the saved binding. */
  env: string;
}

/**
 * Defaults chosen from keys the table below leaves free on every platform: Ctrl/Cmd+Alt+Shift with
 * F10-F12 is bound by none of VS Code, JetBrains, the browsers or the OSes listed. The talk key is
 * held, so it is ONE key a person can hold with one finger (a four-key chord held through a sentence
 * is not push-to-talk), and one that does nothing in the app under it: a global hook does not swallow
 * keys, so a letter held in an editor would type itself and F5-F12 step debuggers. Scroll Lock does
 * nothing in today's apps beyond its light. Keyboards without it (Macs, many laptops): choose e.g.
 * F13 (LVB_TALK_KEY or `talkKey`); the dashboard's settings say so.
 */
export const SHORTCUTS: readonly ShortcutSpec[] = [
  {
    id: 'screenshot',
    label: 'Push screenshot',
    defaultAccelerator: 'CommandOrControl+Alt+Shift+F11',
    env: 'LVB_SCREENSHOT_SHORTCUT',
  },
  {
    id: 'mute',
    label: 'Mute / unmute',
    defaultAccelerator: 'CommandOrControl+Alt+Shift+F10',
    env: 'LVB_MUTE_SHORTCUT',
  },
  { id: 'talk', label: 'Hold to talk', defaultAccelerator: 'Scrolllock', env: 'LVB_TALK_KEY' },
];

/** The screenshot default before this table existed (Find in Files elsewhere): a saved copy of it is retired. */
export const RETIRED_SCREENSHOT_DEFAULT = 'CommandOrControl+Shift+F';

export interface KnownShortcut {
  /** Accelerator as the app documents it (CommandOrControl where the app uses Cmd on macOS and Ctrl elsewhere). */
  keys: string;
  app: string;
  action: string;
  /** Only on this platform (absent: every platform). */
  platform?: 'darwin' | 'win32' | 'linux';
}

/** Common shortcuts of the apps people run beside us (default keymaps). */
export const COMMON_SHORTCUTS: readonly KnownShortcut[] = [
  // VS Code
  { keys: 'CommandOrControl+Shift+F', app: 'VS Code', action: 'Find in Files' },
  { keys: 'CommandOrControl+Shift+P', app: 'VS Code', action: 'Command Palette' },
  { keys: 'CommandOrControl+Shift+E', app: 'VS Code', action: 'Explorer' },
  { keys: 'CommandOrControl+Shift+G', app: 'VS Code', action: 'Source Control' },
  { keys: 'CommandOrControl+Shift+X', app: 'VS Code', action: 'Extensions' },
  { keys: 'CommandOrControl+Shift+D', app: 'VS Code', action: 'Run and Debug' },
  { keys: 'CommandOrControl+Shift+M', app: 'VS Code', action: 'Problems' },
  { keys: 'CommandOrControl+Shift+K', app: 'VS Code', action: 'Delete Line' },
  { keys: 'CommandOrControl+Shift+H', app: 'VS Code', action: 'Replace in Files' },
  { keys: 'CommandOrControl+Shift+`', app: 'VS Code', action: 'New Terminal' },
  { keys: 'CommandOrControl+P', app: 'VS Code', action: 'Quick Open' },
  { keys: 'CommandOrControl+`', app: 'VS Code', action: 'Toggle Terminal' },
  { keys: 'F5', app: 'VS Code', action: 'Start Debugging' },
  { keys: 'F9', app: 'VS Code', action: 'Toggle Breakpoint' },
  { keys: 'F10', app: 'VS Code', action: 'Step Over' },
  { keys: 'F11', app: 'VS Code', action: 'Step Into' },
  { keys: 'F12', app: 'VS Code', action: 'Go to Definition' },
  { keys: 'Shift+F12', app: 'VS Code', action: 'Go to References' },
  { keys: 'Alt+F12', app: 'VS Code', action: 'Peek Definition' },
  { keys: 'CommandOrControl+F12', app: 'VS Code', action: 'Go to Implementations' },
  // JetBrains (IntelliJ, PyCharm, WebStorm, ... default keymap)
  { keys: 'CommandOrControl+Shift+F', app: 'JetBrains IDEs', action: 'Find in Files' },
  { keys: 'CommandOrControl+Shift+R', app: 'JetBrains IDEs', action: 'Replace in Files' },
  { keys: 'CommandOrControl+Shift+A', app: 'JetBrains IDEs', action: 'Find Action' },
  { keys: 'CommandOrControl+Shift+N', app: 'JetBrains IDEs', action: 'Go to File' },
  { keys: 'CommandOrControl+Shift+F10', app: 'JetBrains IDEs', action: 'Run context configuration' },
  { keys: 'CommandOrControl+Shift+F9', app: 'JetBrains IDEs', action: 'Debug context configuration' },
  { keys: 'CommandOrControl+Alt+Shift+S', app: 'JetBrains IDEs', action: 'Project Structure' },
  { keys: 'CommandOrControl+Alt+Shift+N', app: 'JetBrains IDEs', action: 'Go to Symbol' },
  { keys: 'CommandOrControl+Alt+L', app: 'JetBrains IDEs', action: 'Reformat Code' },
  { keys: 'CommandOrControl+Alt+S', app: 'JetBrains IDEs', action: 'Settings' },
  { keys: 'Alt+Shift+F10', app: 'JetBrains IDEs', action: 'Run…' },
  { keys: 'Alt+Shift+F9', app: 'JetBrains IDEs', action: 'Debug…' },
  { keys: 'Shift+F10', app: 'JetBrains IDEs', action: 'Run' },
  { keys: 'Shift+F9', app: 'JetBrains IDEs', action: 'Debug' },
  { keys: 'Alt+F12', app: 'JetBrains IDEs', action: 'Terminal' },
  { keys: 'F8', app: 'JetBrains IDEs', action: 'Step Over' },
  { keys: 'F7', app: 'JetBrains IDEs', action: 'Step Into' },
  { keys: 'F9', app: 'JetBrains IDEs', action: 'Resume Program' },
  // Browsers (Chrome, Edge, Firefox)
  { keys: 'CommandOrControl+Shift+T', app: 'Browsers', action: 'Reopen closed tab' },
  { keys: 'CommandOrControl+Shift+N', app: 'Browsers', action: 'New incognito window' },
  { keys: 'CommandOrControl+Shift+P', app: 'Firefox', action: 'New private window' },
  { keys: 'CommandOrControl+Shift+I', app: 'Browsers', action: 'Developer tools' },
  { keys: 'CommandOrControl+Shift+J', app: 'Browsers', action: 'Console / Downloads' },
  { keys: 'CommandOrControl+Shift+C', app: 'Browsers', action: 'Inspect element' },
  { keys: 'CommandOrControl+Shift+B', app: 'Browsers', action: 'Bookmarks bar' },
  { keys: 'CommandOrControl+Shift+Delete', app: 'Browsers', action: 'Clear browsing data' },
  { keys: 'CommandOrControl+Shift+R', app: 'Browsers', action: 'Hard reload' },
  { keys: 'CommandOrControl+L', app: 'Browsers', action: 'Address bar' },
  { keys: 'CommandOrControl+T', app: 'Browsers', action: 'New tab' },
  { keys: 'F11', app: 'Browsers', action: 'Full screen', platform: 'win32' },
  { keys: 'F11', app: 'Browsers', action: 'Full screen', platform: 'linux' },
  { keys: 'F12', app: 'Browsers', action: 'Developer tools', platform: 'win32' },
  { keys: 'F12', app: 'Browsers', action: 'Developer tools', platform: 'linux' },
  // Operating systems
  { keys: 'Command+Shift+3', app: 'macOS', action: 'Screenshot', platform: 'darwin' },
  { keys: 'Command+Shift+4', app: 'macOS', action: 'Screenshot of a region', platform: 'darwin' },
  { keys: 'Command+Shift+5', app: 'macOS', action: 'Screenshot toolbar', platform: 'darwin' },
  { keys: 'Command+Space', app: 'macOS', action: 'Spotlight', platform: 'darwin' },
  { keys: 'Command+Alt+Escape', app: 'macOS', action: 'Force Quit', platform: 'darwin' },
  { keys: 'Control+Command+Q', app: 'macOS', action: 'Lock Screen', platform: 'darwin' },
  { keys: 'Command+Shift+Q', app: 'macOS', action: 'Log Out', platform: 'darwin' },
  { keys: 'F11', app: 'macOS', action: 'Show Desktop', platform: 'darwin' },
  { keys: 'Super+Shift+S', app: 'Windows', action: 'Snipping Tool', platform: 'win32' },
  { keys: 'Control+Shift+Escape', app: 'Windows', action: 'Task Manager', platform: 'win32' },
  { keys: 'Control+Alt+Delete', app: 'Windows', action: 'Security screen', platform: 'win32' },
  { keys: 'Alt+F4', app: 'Windows / Linux', action: 'Close window' },
  { keys: 'Alt+Tab', app: 'OS', action: 'Switch windows' },
  { keys: 'Control+Alt+T', app: 'Ubuntu / GNOME', action: 'Terminal', platform: 'linux' },
  { keys: 'Control+Alt+Delete', app: 'GNOME', action: 'Log Out', platform: 'linux' },
  { keys: 'Control+Alt+L', app: 'GNOME / KDE', action: 'Lock Screen', platform: 'linux' },
  { keys: 'Shift+PrintScreen', app: 'GNOME', action: 'Screenshot of a region', platform: 'linux' },
  { keys: 'PrintScreen', app: 'OS', action: 'Screenshot' },
  { keys: 'Super+L', app: 'OS', action: 'Lock Screen' },
];

type Platform = NodeJS.Platform;

const MODIFIER_ALIASES: Record<string, 'Ctrl' | 'Cmd' | 'Alt' | 'Shift' | 'Super'> = {
  control: 'Ctrl',
  ctrl: 'Ctrl',
  command: 'Cmd',
  cmd: 'Cmd',
  alt: 'Alt',
  option: 'Alt',
  altgr: 'Alt',
  shift: 'Shift',
  super: 'Super',
  meta: 'Super',
};
const MODIFIER_ORDER = ['Ctrl', 'Cmd', 'Super', 'Alt', 'Shift'] as const;

export interface ParsedAccelerator {
  /** Canonical modifiers for the platform (CommandOrControl resolved), in a fixed order. */
  modifiers: string[];
  /** The non-modifier key, as written (letters upper-cased). */
  key: string;
}

/** An accelerator → its canonical parts on `platform`; null when it is not one (no key, two keys, empty part). */
export function parseAccelerator(accelerator: string, platform: Platform): ParsedAccelerator | null {
  const parts = accelerator.split('+').map((p) => p.trim());
  // "CommandOrControl++" would be Plus: Electron spells it "Plus", so an empty part is an error.
  if (parts.some((p) => p === '')) return null;
  const modifiers = new Set<string>();
  let key: string | null = null;
  for (const part of parts) {
    const lower = part.toLowerCase();
    if (lower === 'commandorcontrol' || lower === 'cmdorctrl') modifiers.add(platform === 'darwin' ? 'Cmd' : 'Ctrl');
    else if (MODIFIER_ALIASES[lower])
      modifiers.add(platform !== 'darwin' && MODIFIER_ALIASES[lower] === 'Cmd' ? 'Super' : MODIFIER_ALIASES[lower]);
    else if (key === null) key = part.length === 1 ? part.toUpperCase() : part[0]!.toUpperCase() + part.slice(1);
    else return null;
  }
  if (key === null) return null;
  return { modifiers: MODIFIER_ORDER.filter((m) => modifiers.has(m)), key };
}

/** Canonical text of an accelerator on a platform, for comparison and display ("Ctrl+Alt+Shift+F10"). */
export function canonicalAccelerator(accelerator: string, platform: Platform): string | null {
  const parsed = parseAccelerator(accelerator, platform);
  return parsed ? [...parsed.modifiers, parsed.key].join('+') : null;
}

/** The common shortcuts `accelerator` would take over on `platform` (empty: no clash). */
export function shortcutConflicts(accelerator: string, platform: Platform): KnownShortcut[] {
  const wanted = canonicalAccelerator(accelerator, platform);
  if (!wanted) return [];
  return COMMON_SHORTCUTS.filter(
    (s) => (!s.platform || s.platform === platform) && canonicalAccelerator(s.keys, platform) === wanted,
  );
}

export interface ShortcutBinding {
  id: ShortcutId;
  label: string;
  accelerator: string;
  /** Where the binding came from: a variable overrides the saved setting, which overrides the default. */
  source: 'env' | 'setting' | 'default';
  /** Set when it is not a valid accelerator (then nothing is bound). */
  invalid?: string;
  conflicts: KnownShortcut[];
}

/** One line for the menu or the log: "Clashes with Find in Files (VS Code, JetBrains IDEs)". */
export function describeConflicts(conflicts: readonly KnownShortcut[]): string | null {
  if (conflicts.length === 0) return null;
  const byAction = new Map<string, string[]>();
  for (const c of conflicts) byAction.set(c.action, [...(byAction.get(c.action) ?? []), c.app]);
  return `clashes with ${[...byAction].map(([action, apps]) => `${action} (${apps.join(', ')})`).join('; ')}`;
}

/**
 * The binding of every key: environment variable, else saved setting, else default; a saved copy of
 * the retired screenshot default counts as "not chosen" and gets the new default.
 */
export function resolveShortcuts(
  saved: Partial<Record<ShortcutId, string | undefined>>,
  env: Readonly<Record<string, string | undefined>>,
  platform: Platform,
): ShortcutBinding[] {
  return SHORTCUTS.map((spec) => {
    const fromEnv = env[spec.env]?.trim();
    const fromSetting =
      spec.id === 'screenshot' && saved.screenshot === RETIRED_SCREENSHOT_DEFAULT ? undefined : saved[spec.id]?.trim();
    const accelerator = fromEnv || fromSetting || spec.defaultAccelerator;
    const source = fromEnv ? 'env' : fromSetting ? 'setting' : 'default';
    const valid = parseAccelerator(accelerator, platform) !== null;
    return {
      id: spec.id,
      label: spec.label,
      accelerator,
      source,
      ...(valid ? {} : { invalid: `${accelerator} is not a shortcut (write it like ${spec.defaultAccelerator})` }),
      conflicts: shortcutConflicts(accelerator, platform),
    };
  });
}
