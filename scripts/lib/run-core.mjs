// `npm run headless` and `npm run demo`: the core on a Node that can run it. npm runs scripts with the
// `node` first on PATH, which in a fresh terminal is the machine's (Debian's Node 20): the core then
// started on it with the WASM Opus fallback, because the native addon was built by the Node the
// Quick start put in .tools/. So, like the CLI shim (bin/live-voice-bridge.js), this hands over to
// that Node when the one running it is older than package.json's "engines.node", and when there is
// none it stops with the exact command to run. Then it compiles dist/ when the sources changed
// (core-build.mjs) and becomes `node <core options> dist/main/cli.js <command>`.
// Plain JavaScript, and nothing imported before the version check, so that it runs on any Node.
//   node scripts/lib/run-core.mjs headless|demo [arguments…]
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const [command, ...rest] = process.argv.slice(2);
if (command !== 'headless' && command !== 'demo') {
  process.stderr.write('usage: node scripts/lib/run-core.mjs headless|demo [arguments…]\n');
  process.exit(2);
}

function olderThan(version, minimum) {
  const have = version.split('.').map(Number);
  const need = minimum.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (have[i] !== need[i]) return have[i] < need[i];
  return false;
}

/** Runs `file args` with stdio shared, passes on the signals a terminal or npm sends, exits as it does. */
function runAndExit(file, args, env) {
  const child = spawn(file, args, { stdio: 'inherit', env });
  // Ctrl-C reaches the whole process group (the child too); npm's SIGTERM reaches only us: pass it on.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
}

const minimum = /(\d+\.\d+\.\d+)/.exec(
  JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).engines.node,
)[1];
if (olderThan(process.versions.node, minimum)) {
  const projectNode = path.join(root, '.tools', 'node22', 'bin', 'node');
  if (existsSync(projectNode) && process.env.LVB_NODE_HANDOVER !== '1') {
    process.stderr.write(
      `==> this terminal's node is ${process.version} (older than ${minimum}): running on the Node the Quick start installed, ${path.relative(root, projectNode)}\n`,
    );
    runAndExit(projectNode, [fileURLToPath(import.meta.url), command, ...rest], {
      ...process.env,
      LVB_NODE_HANDOVER: '1',
    });
  } else {
    process.stderr.write(
      `npm run ${command} needs Node >= ${minimum}; this terminal's node is ${process.version}, on which the core would fall back to the slow WASM Opus codec.\n` +
        'Run this (the first time it installs Node 22 from the npm registry into .tools/, then puts it first on PATH):\n' +
        `  source scripts/use-node22.sh && npm run ${command}\n` +
        '(or ./scripts/demo.sh once: it also installs the packages and builds the native addons for that Node)\n',
    );
    process.exit(2);
  }
} else {
  const { ensureBuilt } = await import('./core-build.mjs');
  if (!ensureBuilt()) process.exit(1);
  // The core's start-up options (main/core/core-node-flags.ts; test/unit/core-node-flags.test.ts keeps this list equal).
  const CORE_NODE_FLAGS = ['--max-semi-space-size=1'];
  const args = [...CORE_NODE_FLAGS, path.join(root, 'dist', 'main', 'cli.js'), command, ...rest];
  // execve keeps the pid, stdio and signals (nothing left behind to forward them); Windows has none.
  if (typeof process.execve === 'function') process.execve(process.execPath, [process.execPath, ...args], process.env);
  else runAndExit(process.execPath, args, process.env);
}
