// The native pieces the core depends on, checked once at start-up so a missing one is named in the
// first lines of the log and in /health, not discovered mid-call: the Opus codec (native addon or the
// WASM fallback), sharp (screen frames for the model) and davey (DAVE end-to-end encrypted voice).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Logger } from 'pino';
import type { NativePieceReport, OpusReport } from '../api-types.ts';
import type { OpusFactory } from '../voice/opus.ts';

const require = createRequire(import.meta.url);

export interface NativePieces {
  opus: OpusReport;
  sharp: NativePieceReport;
  davey: NativePieceReport;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.trim();
}

/** The installed version of a package, found from its entry point (some do not export package.json). */
function packageVersion(name: string): string {
  let dir = path.dirname(require.resolve(name));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
      if (parsed.name === name && parsed.version) return parsed.version;
    }
    const parent = path.dirname(dir);
    if (parent === dir) return 'unknown';
    dir = parent;
  }
}

/**
 * sharp's libvips costs ~28 MB of RSS and ~0.4 s to load, so it is not loaded here (the first /frame
 * loads it): its package and the prebuilt binary package for this platform must be installed.
 */
export function checkSharp(): NativePieceReport {
  const binary = `@img/sharp-${process.platform}-${process.arch}`;
  try {
    const version = packageVersion('sharp');
    require.resolve(`${binary}/package`);
    return { available: true, reason: `sharp ${version} with ${binary} installed (loaded on the first frame)` };
  } catch (error) {
    return { available: false, reason: `screen frames cannot be converted: ${firstLine(error)}` };
  }
}

/** davey is small (~4 MB, a few ms): load it, so a wrong or missing binary shows now. */
export function checkDavey(load: () => unknown = () => require('@snazzah/davey')): NativePieceReport {
  try {
    const davey = load() as { DAVE_PROTOCOL_VERSION?: number };
    return {
      available: true,
      reason: `@snazzah/davey ${packageVersion('@snazzah/davey')} loaded (DAVE protocol v${davey.DAVE_PROTOCOL_VERSION ?? '?'})`,
    };
  } catch (error) {
    return {
      available: false,
      reason: `DAVE (end-to-end encrypted) voice channels cannot be joined: ${firstLine(error)}`,
    };
  }
}

export function checkNativePieces(opus: OpusFactory, checks: { davey?: () => unknown } = {}): NativePieces {
  return { opus: { ...opus.choice }, sharp: checkSharp(), davey: checkDavey(checks.davey) };
}

/** One line when everything is native, else one warning per missing piece saying what it costs. */
export function logNativePieces(pieces: NativePieces, log: Logger): void {
  if (pieces.opus.impl === 'wasm') {
    // What fixes it, as the dashboard's warning says (renderer/format.ts nativeWarning): the core on the
    // Node the addon was built for, or the addon rebuilt for this one.
    log.warn(
      { opus: pieces.opus, node: process.version },
      `Opus: using the WASM codec (opusscript), several times slower per 20 ms frame, because ${pieces.opus.reason}. ` +
        `This core runs on Node ${process.version}: start it with npm run headless or ./scripts/demo.sh (they use the Node in .tools/ the addon was built for), ` +
        'or rebuild the addon for this Node: npm rebuild @discordjs/opus',
    );
  }
  if (!pieces.sharp.available) log.warn({ sharp: pieces.sharp }, `sharp is missing: ${pieces.sharp.reason}`);
  if (!pieces.davey.available) log.warn({ davey: pieces.davey }, `davey is missing: ${pieces.davey.reason}`);
  if (pieces.opus.impl === 'native' && pieces.sharp.available && pieces.davey.available) {
    log.info('native pieces: Opus native (@discordjs/opus), sharp and davey present');
  }
}
