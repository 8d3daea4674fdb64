// The global screenshot shortcut, applied with rollback: a new accelerator that is invalid or taken
// by another app leaves the previous one working (the gitify pattern), and the caller is told why.

/** The part of Electron's globalShortcut this needs (a fake in tests). */
export interface ShortcutRegistrar {
  /** False when another application holds the accelerator; throws when it is not a valid accelerator. */
  register(accelerator: string, callback: () => void): boolean;
  unregister(accelerator: string): void;
}

export interface ShortcutOutcome {
  /** The accelerator now registered, or null for none. */
  active: string | null;
  error?: string;
}

export function applyShortcut(
  registrar: ShortcutRegistrar,
  wanted: string | null,
  current: string | null,
  onTrigger: () => void,
): ShortcutOutcome {
  if (wanted === current) return { active: current };
  if (current) registrar.unregister(current);
  if (!wanted) return { active: null };

  let error: string | undefined;
  try {
    if (registrar.register(wanted, onTrigger)) return { active: wanted };
    error = `${wanted} is already used by another application`;
  } catch (err) {
    error = `${wanted} is not a valid shortcut (${err instanceof Error ? err.message : String(err)})`;
  }
  // Roll back to what worked before.
  if (current) {
    try {
      if (registrar.register(current, onTrigger)) return { active: current, error };
    } catch {
      // The old accelerator was valid a moment ago; if it no longer registers, report none active.
    }
  }
  return { active: null, error };
}
