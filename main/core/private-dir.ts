// Our folders hold tokens, transcripts and logs: only the user may read them. mkdir's mode applies
// only to folders it creates (and through the umask), and another library may have created the
// folder first (conf creates voice-users/ for the settings file), so the mode is set explicitly.
import { chmodSync, mkdirSync } from 'node:fs';

export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform !== 'win32') chmodSync(dir, 0o700);
}
