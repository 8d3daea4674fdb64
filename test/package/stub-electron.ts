// A stand-in for the Electron distribution that electron-builder copies into the unpacked app, so
// the package can be built and checked with no download. electron-builder (26, ElectronFramework
// `unpack`) treats an `electronDist` directory without an `electron-v*.zip` inside as an unpacked
// Electron and copies it whole; on Linux it then only renames `electron` to the executable name,
// moves `LICENSE` (if any), and flips the fuses (electronFuses) in that executable with
// @electron/fuses, which needs the fuse sentinel followed by the wire: version 1, length, one
// byte per fuse ('0' off, '1' on). The stub carries that wire with Electron's own defaults, so the
// fuse settings of electron-builder.yml are applied to it and can be read back.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** @electron/fuses' constants (SENTINEL, FuseV1Options order), pinned with @electron/fuses 1.8. */
const FUSE_SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
export const FUSE_NAMES = [
  'runAsNode',
  'enableCookieEncryption',
  'enableNodeOptionsEnvironmentVariable',
  'enableNodeCliInspectArguments',
  'enableEmbeddedAsarIntegrityValidation',
  'onlyLoadAppFromAsar',
  'loadBrowserProcessSpecificV8Snapshot',
  'grantFileProtocolExtraPrivileges',
] as const;
/** Electron's shipped defaults, in FUSE_NAMES order. */
const ELECTRON_DEFAULT_WIRE = '10110001';
export const STUB_MARKER = 'live-voice-bridge stub electron';

/** Writes the stub distribution into `dir` and returns it. */
export function writeStubElectronDist(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const executable = path.join(dir, 'electron');
  const script = `#!/bin/sh\n# ${STUB_MARKER}: not Electron; the offline package check never runs it.\necho "${STUB_MARKER}" >&2\nexit 1\n`;
  const wire = Buffer.concat([
    Buffer.from(`# ${FUSE_SENTINEL}`),
    Buffer.from([1, ELECTRON_DEFAULT_WIRE.length]),
    Buffer.from(ELECTRON_DEFAULT_WIRE),
    Buffer.from('\n'),
  ]);
  writeFileSync(executable, Buffer.concat([Buffer.from(script), wire]));
  chmodSync(executable, 0o755);
  writeFileSync(path.join(dir, 'LICENSE'), 'stub Electron distribution for the offline package check\n');
  writeFileSync(path.join(dir, 'version'), '45.4.1');
  mkdirSync(path.join(dir, 'resources'), { recursive: true });
  mkdirSync(path.join(dir, 'locales'), { recursive: true });
  writeFileSync(path.join(dir, 'locales', 'en-US.pak'), '');
  return dir;
}

/** Reads the fuse wire back from a (stub) executable: fuse name → on/off. */
export function readFuses(executable: string): Record<(typeof FUSE_NAMES)[number], boolean> {
  const bytes = readFileSync(executable);
  const at = bytes.indexOf(FUSE_SENTINEL);
  if (at < 0) throw new Error(`no fuse wire in ${executable}`);
  const wire = at + FUSE_SENTINEL.length;
  const length = bytes[wire + 1]!;
  const fuses = {} as Record<(typeof FUSE_NAMES)[number], boolean>;
  FUSE_NAMES.forEach((name, i) => {
    if (i < length) fuses[name] = bytes[wire + 2 + i] === '1'.charCodeAt(0);
  });
  return fuses;
}
