// Who opted out of being heard, remembered across calls and restarts: one small JSON file in the
// agent home (`voice-users/consent.json`, 0600), validated when read back (a damaged file counts as
// nobody opted out and is logged, never fatal), rewritten whole through a temporary file so a crash
// never leaves half a file.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ensurePrivateDir } from '../private-dir.ts';

export const CONSENT_FILE = 'consent.json';

const consentFileSchema = z.object({
  version: z.literal(1),
  /** Discord user id → when (epoch seconds) and how they opted out. */
  opted_out: z.record(
    z.string().regex(/^\d{1,25}$/),
    z.object({ at: z.number(), via: z.enum(['command', 'reaction', 'api']) }),
  ),
});
type ConsentFile = z.infer<typeof consentFileSchema>;
export type OptOutVia = ConsentFile['opted_out'][string]['via'];

export class ConsentStore {
  readonly #file: string;
  #data: ConsentFile = { version: 1, opted_out: {} };
  readonly #listeners = new Set<() => void>();

  constructor(dir: string, onDamaged?: (problem: string) => void) {
    this.#file = path.join(dir, CONSENT_FILE);
    let raw: string;
    try {
      raw = readFileSync(this.#file, 'utf8');
    } catch {
      return; // no file yet: nobody opted out
    }
    try {
      this.#data = consentFileSchema.parse(JSON.parse(raw));
    } catch (err) {
      onDamaged?.(
        `${this.#file} is not a valid consent file (${err instanceof Error ? err.message : String(err)}); nobody counts as opted out until someone opts out again`,
      );
    }
  }

  optedOut(userId: string): boolean {
    return Object.hasOwn(this.#data.opted_out, userId);
  }

  /** Ids of everyone who opted out. */
  list(): string[] {
    return Object.keys(this.#data.opted_out);
  }

  /** True when it changed something. */
  optOut(userId: string, via: OptOutVia): boolean {
    if (this.optedOut(userId)) return false;
    this.#data.opted_out[userId] = { at: Math.floor(Date.now() / 1000), via };
    this.#save();
    return true;
  }

  optIn(userId: string): boolean {
    if (!this.optedOut(userId)) return false;
    delete this.#data.opted_out[userId];
    this.#save();
    return true;
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #save(): void {
    ensurePrivateDir(path.dirname(this.#file));
    const tmp = `${this.#file}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.#data, null, 2) + '\n', { mode: 0o600 });
    renameSync(tmp, this.#file);
    for (const listener of this.#listeners) listener();
  }
}
