// npm run dist — electron-builder with electron-builder.yml for the current OS, extra arguments
// passed through (e.g. `npm run dist -- --linux AppImage`). The auto-update feed is the generic
// provider in electron-builder.yml whose URL is LVB_UPDATE_FEED_URL at build time: set, it must be
// an http(s) URL and lands in the app's resources/app-update.yml (and latest*.yml next to the
// installers); unset, the build uses the same config with `publish: null` (electron-builder would
// otherwise stop on the undefined variable, and `-c.publish=null` is not coerced to null by its
// CLI), so the app carries no app-update.yml and auto-update stays off in that build.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const FEED_VARIABLE = 'LVB_UPDATE_FEED_URL';
const CONFIG_FILE = 'electron-builder.yml';
const require = createRequire(import.meta.url);

/** The update feed URL from the environment, null when unset; throws on one that is not http(s). */
export function updateFeed(env: NodeJS.ProcessEnv): string | null {
  const feed = env[FEED_VARIABLE]?.trim();
  if (!feed) return null;
  let url: URL;
  try {
    url = new URL(feed);
  } catch {
    throw new Error(`${FEED_VARIABLE} is not a URL: ${feed}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new Error(`${FEED_VARIABLE} must be an http(s) URL, not ${url.protocol}`);
  return feed;
}

/** electron-builder.yml as electron-builder reads it, with the feed removed: the config of a build without auto-update. */
export async function configWithoutFeed(root: string): Promise<Record<string, unknown>> {
  const { getConfig } = require('app-builder-lib/out/util/config/config') as {
    getConfig: (dir: string, file: string, extra: null) => Promise<Record<string, unknown>>;
  };
  return { ...(await getConfig(root, CONFIG_FILE, null)), publish: null };
}

/** The `--config` argument for this build: the file itself with a feed, a derived copy without. */
export async function configArgs(env: NodeJS.ProcessEnv, root: string): Promise<string[]> {
  if (updateFeed(env) !== null) return ['--config', CONFIG_FILE];
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'lvb-dist-')), 'electron-builder.no-feed.json');
  writeFileSync(file, JSON.stringify(await configWithoutFeed(root), null, 2));
  return ['--config', file];
}

async function main(): Promise<void> {
  const root = fileURLToPath(new URL('..', import.meta.url));
  let args: string[];
  try {
    args = await configArgs(process.env, root);
  } catch (error) {
    console.error(`dist: ${(error as Error).message}`);
    process.exit(2);
  }
  const feed = updateFeed(process.env);
  console.log(
    feed
      ? `dist: update feed ${feed}`
      : `dist: ${FEED_VARIABLE} is not set, so this build has no update feed (auto-update off)`,
  );
  const run = spawnSync(
    process.execPath,
    [require.resolve('electron-builder/cli.js'), ...args, ...process.argv.slice(2)],
    { cwd: root, stdio: 'inherit' },
  );
  if (feed === null) rmSync(path.dirname(args[1]!), { recursive: true, force: true });
  process.exit(run.status ?? 1);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main();
