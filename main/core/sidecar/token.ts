// The sidecar's bearer token: from config, or generated once into an owner-only file so local
// CLI clients (and only the user's own account) can read it, as Jupyter does with its runtime files.
import { randomBytes, createHash, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const TOKEN_FILE_NAME = 'sidecar.token';

export interface SidecarTokenInfo {
  token: string;
  source: 'config' | 'file' | 'generated';
  file: string;
}

export function tokenFilePath(voiceUsersDir: string): string {
  return path.join(voiceUsersDir, TOKEN_FILE_NAME);
}

export function ensureSidecarToken(
  voiceUsersDir: string,
  configured?: string,
  file = tokenFilePath(voiceUsersDir),
): SidecarTokenInfo {
  if (configured) return { token: configured, source: 'config', file };
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (existing.length >= 32) {
      // Tighten a file someone loosened; the token is only as private as its file.
      if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
      return { token: existing, source: 'file', file };
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const token = randomBytes(32).toString('base64url');
  writeFileSync(file, token + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return { token, source: 'generated', file };
}

export function readSidecarToken(voiceUsersDir: string, file = tokenFilePath(voiceUsersDir)): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Constant-time comparison that does not leak the length: both sides are hashed first. */
export function secretsEqual(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
