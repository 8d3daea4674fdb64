#!/usr/bin/env node
// Runs the compiled CLI: always in an installed package; in a checkout when dist/ was compiled from
// the sources now there (scripts/lib/core-build.mjs; the Quick start and `npm run headless` compile
// it), else the TypeScript source directly (this Node strips types without a flag), so an edit is
// never shadowed by an old build. Plain JavaScript so that it runs on any Node:
// under a Node older than package.json's "engines.node" it hands over to the Node that
// scripts/use-node22.sh put in .tools/ (so `npx live-voice-bridge …` works from a terminal whose
// PATH still starts with the machine's Node 20), or says how to get one.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);
const built = new URL('dist/main/cli.js', root);
const source = new URL('main/cli.ts', root);

async function builtIsUsable() {
  if (!existsSync(built)) return false;
  const buildState = new URL('scripts/lib/core-build.mjs', root);
  // A package (no sources, or no build script beside them) always runs what it ships.
  if (!existsSync(source) || !existsSync(buildState)) return true;
  const { builtIsCurrent } = await import(buildState.href);
  return builtIsCurrent();
}
const entry = (await builtIsUsable()) ? built : source;

function olderThan(version, minimum) {
  const have = version.split('.').map(Number);
  const need = minimum.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (have[i] !== need[i]) return have[i] < need[i];
  return false;
}

// The core's start-up options (main/core/core-node-flags.ts, which test/unit/core-node-flags.test.ts
// keeps equal to this list; docs/performance.md, "Memory without internals"): options Node documents,
// given on the command line of the process that runs the core, never set at run time.
const CORE_NODE_FLAGS = ['--max-semi-space-size=1'];
const command = process.argv[2] ?? 'headless';
const coreFlags = command === 'headless' || command === 'demo' ? CORE_NODE_FLAGS : [];

const minimum = /(\d+\.\d+\.\d+)/.exec(JSON.parse(readFileSync(new URL('package.json', root), 'utf8')).engines.node)[1];
if (olderThan(process.versions.node, minimum)) {
  const projectNode = new URL('.tools/node22/bin/node', root);
  if (existsSync(projectNode) && process.env.LVB_NODE_HANDOVER !== '1') {
    const child = spawnSync(projectNode.pathname, [...coreFlags, entry.pathname, ...process.argv.slice(2)], {
      stdio: 'inherit',
      env: { ...process.env, LVB_NODE_HANDOVER: '1' },
    });
    if (child.signal) process.kill(process.pid, child.signal);
    process.exit(child.status ?? 1);
  }
  process.stderr.write(
    `live-voice-bridge needs Node >= ${minimum}; this is Node ${process.versions.node}.\n` +
      'Run ./scripts/demo.sh once (it puts a new enough Node in .tools/), or: source scripts/use-node22.sh\n',
  );
  process.exit(2);
}
// A command that runs the core becomes `node <options> <entry>` in this same process (execve keeps the
// pid, stdio and signals: nothing is left behind to forward them); where execve does not exist
// (Windows) it runs here with V8's defaults.
if (coreFlags.some((flag) => !process.execArgv.includes(flag)) && typeof process.execve === 'function') {
  process.execve(
    process.execPath,
    [process.execPath, ...process.execArgv, ...coreFlags, fileURLToPath(entry), ...process.argv.slice(2)],
    process.env,
  );
}
await import(entry.href);
