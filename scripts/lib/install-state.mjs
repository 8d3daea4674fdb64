// Whether node_modules is what package-lock.json pins, installed by this Node, and whether the native
// Opus addon loads in it. Plain JavaScript (no type stripping): scripts/lib/bootstrap.sh runs it so
// a second run skips `npm ci` and starts in seconds.
//   node scripts/lib/install-state.mjs check    exit 0 when the tree is current (writes the stamp when
//                                               an existing tree matches the lockfile but has no stamp)
//   node scripts/lib/install-state.mjs write    record the tree as current after `npm ci`
//   node scripts/lib/install-state.mjs native   exit 0 when @discordjs/opus loads and encodes
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const lockFile = path.join(root, 'package-lock.json');
const modules = path.join(root, 'node_modules');
const stampFile = path.join(modules, '.live-voice-bridge-install');

function expectedStamp() {
  const lockHash = createHash('sha256').update(readFileSync(lockFile)).digest('hex');
  // The Node version (not only its ABI): a tree installed by another Node is reinstalled, because
  // install scripts and optional native packages were chosen for that Node.
  return JSON.stringify({ lock: lockHash, node: process.version, platform: `${process.platform}-${process.arch}` });
}

/**
 * A tree installed before stamps existed (or by hand with `npm ci`) is current when npm's own record of
 * it (node_modules/.package-lock.json) holds exactly the lockfile's packages at the lockfile's versions,
 * apart from optional packages for other platforms, which npm leaves out.
 */
function installedTreeMatchesLock() {
  const hidden = path.join(modules, '.package-lock.json');
  if (!existsSync(hidden)) return false;
  const wanted = JSON.parse(readFileSync(lockFile, 'utf8')).packages ?? {};
  const have = JSON.parse(readFileSync(hidden, 'utf8')).packages ?? {};
  for (const [key, entry] of Object.entries(wanted)) {
    if (key === '' || entry.link) continue;
    if (have[key] ? have[key].version !== entry.version : !entry.optional) return false;
  }
  for (const [key, entry] of Object.entries(have)) {
    if (entry.link) continue;
    if (!wanted[key] || wanted[key].version !== entry.version) return false;
  }
  return true;
}

function nativeOpusError() {
  try {
    const require = createRequire(path.join(root, 'package.json'));
    const { OpusEncoder } = require('@discordjs/opus');
    new OpusEncoder(48_000, 2).encode(Buffer.alloc(3840));
    return null;
  } catch (err) {
    return String(err instanceof Error ? err.message : err).split('\n')[0];
  }
}

const command = process.argv[2];
if (command === 'check') {
  if (!existsSync(modules)) process.exit(1);
  const expected = expectedStamp();
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === expected) process.exit(0);
  // No stamp, but the tree matches and this Node loads its native addon: record it rather than reinstall.
  if (!existsSync(stampFile) && installedTreeMatchesLock() && nativeOpusError() === null) {
    writeFileSync(stampFile, expected);
    process.exit(0);
  }
  process.exit(1);
} else if (command === 'write') {
  writeFileSync(stampFile, expectedStamp());
} else if (command === 'native') {
  const error = nativeOpusError();
  if (error) {
    process.stderr.write(`@discordjs/opus does not load under Node ${process.version}: ${error}\n`);
    process.exit(1);
  }
} else {
  process.stderr.write('usage: node scripts/lib/install-state.mjs check|write|native\n');
  process.exit(2);
}
