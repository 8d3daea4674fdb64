// Where `require('electron')` would point, found WITHOUT requiring it: electron's index.js starts
// a download when its binary is missing, which must never happen on an offline machine.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export function electronBinary(): string | null {
  const require = createRequire(import.meta.url);
  let pkgDir: string;
  try {
    pkgDir = path.dirname(require.resolve('electron/package.json'));
  } catch {
    return null;
  }
  const pathFile = path.join(pkgDir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const candidate = override
    ? path.join(override, relative ?? 'electron')
    : relative
      ? path.join(pkgDir, 'dist', relative)
      : null;
  return candidate && existsSync(candidate) ? candidate : null;
}
