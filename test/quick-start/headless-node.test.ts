// `npm run headless` (and `npm run demo`) from a fresh terminal, whose PATH starts with the machine's
// older Node: the core runs on the Node the Quick start put in .tools/ — the one the native Opus addon
// was built for — not on the old one with the WASM fallback; without a .tools Node it stops at once
// with the exact command to run. Before, npm ran the core on the machine's Node 20 (audio.opus.impl
// "wasm", and the dashboard's advice "Reinstall with ./scripts/demo.sh or npm ci" did not fix it).
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../helpers/net.ts';

const root = process.cwd();
const machineNode = '/usr/bin/node';
const projectNode = path.join(root, '.tools', 'node22', 'bin', 'node');
const minimum = /(\d+\.\d+)\.\d+/.exec(
  (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node,
)![1]!;
const machineVersion = existsSync(machineNode)
  ? spawnSync(machineNode, ['--version'], { encoding: 'utf8' }).stdout.trim()
  : '';
const machineNodeIsOld = (() => {
  const m = /^v(\d+)\.(\d+)\./.exec(machineVersion);
  const [needMajor, needMinor] = minimum.split('.').map(Number) as [number, number];
  return m !== null && (Number(m[1]) < needMajor || (Number(m[1]) === needMajor && Number(m[2]) < needMinor));
})();
if (!machineNodeIsOld)
  console.log(
    `headless-node: these checks need the machine's ${machineNode} older than ${minimum} (found ${machineVersion || 'none'})`,
  );

/** A fresh terminal: the machine's Node first on PATH, no sidecar variables of the runner. */
function freshTerminalEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const {
    DISCORD_VOICE_LIVE_SIDECAR_TOKEN: _t,
    DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE: _f,
    LVB_NODE_HANDOVER: _h,
    ...base
  } = process.env;
  return {
    ...base,
    PATH: `${path.dirname(machineNode)}:${process.env.PATH}`,
    DISCORD_VOICE_LIVE_LOG_LEVEL: 'warn',
    ...extra,
  };
}

describe.runIf(machineNodeIsOld)(`npm run headless under the machine's ${machineVersion}`, () => {
  it.runIf(existsSync(projectNode))(
    'runs the core on the .tools Node, with the native Opus addon; Ctrl-C ends it all',
    { timeout: 240_000 },
    async () => {
      const home = mkdtempSync(path.join(tmpdir(), 'lvb-headless-node-'));
      const port = await freePort();
      const npm = spawn('npm', ['run', 'headless'], {
        cwd: root,
        env: freshTerminalEnv({ HERMES_HOME: home, DISCORD_VOICE_LIVE_PORT: String(port) }),
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      let stderr = '';
      npm.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
      try {
        await new Promise<void>((resolve, reject) => {
          let out = '';
          npm.stdout.on('data', (d: Buffer) => {
            out += d.toString();
            if (out.includes(`dashboard: http://127.0.0.1:${port}/login`)) resolve();
          });
          void exited.then((code) =>
            reject(new Error(`npm run headless exited (${code}) before the sidecar was up: ${stderr}`)),
          );
        });
        const health = (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as {
          node: string;
          audio: { opus: { impl: string } };
        };
        expect(health.node).toBe(spawnSync(projectNode, ['--version'], { encoding: 'utf8' }).stdout.trim());
        expect(health.audio.opus.impl).toBe('native');
        expect(stderr).toContain(`this terminal's node is ${machineVersion}`);
        // Ctrl-C: SIGINT to the terminal's foreground process group (npm, sh, the launcher, the core).
        process.kill(-npm.pid!, 'SIGINT');
        await exited;
        // Nothing is left listening.
        for (let i = 0; i < 50; i++) {
          const up = await fetch(`http://127.0.0.1:${port}/health`).then(
            () => true,
            () => false,
          );
          if (!up) break;
          await new Promise((r) => setTimeout(r, 200));
        }
        expect(
          await fetch(`http://127.0.0.1:${port}/health`).then(
            () => 'still up',
            () => 'gone',
          ),
        ).toBe('gone');
      } finally {
        try {
          process.kill(-npm.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
        rmSync(home, { recursive: true, force: true });
      }
    },
  );

  it('without a .tools Node: stops at once (exit 2) with the exact command to run', () => {
    // A checkout with no .tools/ yet: the launcher and package.json alone (nothing else is read before the check).
    const dir = mkdtempSync(path.join(tmpdir(), 'lvb-no-tools-'));
    try {
      mkdirSync(path.join(dir, 'scripts', 'lib'), { recursive: true });
      copyFileSync(path.join(root, 'package.json'), path.join(dir, 'package.json'));
      copyFileSync(path.join(root, 'scripts', 'lib', 'run-core.mjs'), path.join(dir, 'scripts', 'lib', 'run-core.mjs'));
      for (const script of ['headless', 'demo']) {
        const result = spawnSync('npm', ['run', '--silent', script], {
          cwd: dir,
          env: freshTerminalEnv({}),
          encoding: 'utf8',
          timeout: 60_000,
        });
        expect(result.status, result.stderr).toBe(2);
        expect(result.stderr).toContain(
          `npm run ${script} needs Node >= ${minimum}.0; this terminal's node is ${machineVersion}`,
        );
        expect(result.stderr).toContain(`\n  source scripts/use-node22.sh && npm run ${script}\n`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
