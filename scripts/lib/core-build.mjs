// Keeps dist/ (the compiled core and the dashboard's scripts) in step with main/**, renderer/** and
// preload/**, so that every launcher — the Quick start's demo, `npm run headless`, `npx
// live-voice-bridge …`, the benchmarks — runs JavaScript rather than TypeScript source. Why: Node's type stripper (amaro, a WebAssembly build of swc) stays resident once
// the first .ts file loads, 24-30 MB of RSS (measured) for the life of the core (docs/performance.md,
// "Memory"). Plain JavaScript (no type stripping) so that it runs before anything is compiled.
//   node scripts/lib/core-build.mjs ensure   compile (tsc, no type check: ~5 s) when the sources
//                                            changed since the last compile; silent when current
//   node scripts/lib/core-build.mjs check    exit 0 when dist/ is current
// Type errors are the job of `npm run typecheck` and the tests; `npm run build` (the desktop build)
// still checks types.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const stampFile = path.join(root, 'dist', '.core-build-stamp');
/** What the compiled output depends on besides main/**: the compiler settings and the compiler. */
const CONFIG_FILES = [
  'tsconfig.base.json',
  'tsconfig.build.json',
  'main/app/tsconfig.json',
  'main/app/tsconfig.build.json',
  'node_modules/typescript/package.json',
];
const SOURCE_DIRS = ['main', 'renderer', 'preload'];
/**
 * The core (main/** → dist/main) and the dashboard's scripts (renderer/** → dist/renderer, which the
 * sidecar would otherwise strip with the same type stripper when the dashboard first loads).
 */
const PROJECTS = ['tsconfig.build.json', 'main/app/tsconfig.build.json'];

function sourceFiles(dir) {
  const files = [];
  if (!existsSync(dir)) return files;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(full));
    else if (/\.c?ts$/.test(entry.name) && !entry.name.endsWith('.test.ts')) files.push(full);
  }
  return files;
}

/** A hash of every input's path and content (content, not mtimes: a checkout rewrites mtimes). */
export function sourceHash() {
  const hash = createHash('sha256');
  const sources = SOURCE_DIRS.flatMap((dir) => sourceFiles(path.join(root, dir))).sort();
  const inputs = [...sources, ...CONFIG_FILES.map((f) => path.join(root, f))];
  for (const file of inputs) {
    hash.update(path.relative(root, file)).update('\0');
    if (existsSync(file)) hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** True when dist/ was compiled from exactly the sources now in main/, renderer/ and preload/. */
export function builtIsCurrent() {
  return existsSync(stampFile) && readFileSync(stampFile, 'utf8') === sourceHash();
}

/** Compiles the sources into dist/ when it is not current; returns false (tsc's output printed) when it fails. */
export function ensureBuilt(say = (line) => process.stderr.write(`\u001b[1m==>\u001b[0m ${line}\n`)) {
  const expected = sourceHash();
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === expected) return true;
  say('compiling the core and the dashboard into dist/ (after a change to their sources; a few seconds)');
  // Removed first: an interrupted compile must not leave a stamp that calls a half-written dist/ current.
  rmSync(stampFile, { force: true });
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  for (const project of PROJECTS) {
    const run = spawnSync(process.execPath, [tsc, '-p', project, '--noCheck'], { cwd: root, stdio: 'inherit' });
    if (run.status !== 0) return false;
  }
  writeFileSync(stampFile, expected);
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const command = process.argv[2];
  if (command === 'ensure') process.exit(ensureBuilt() ? 0 : 1);
  else if (command === 'check') process.exit(builtIsCurrent() ? 0 : 1);
  else {
    process.stderr.write('usage: node scripts/lib/core-build.mjs ensure|check\n');
    process.exit(2);
  }
}
