// The README's first Quick start command, as a new user runs it: a fresh `git clone` into a temp
// folder, the machine's Node 20 first on PATH, nothing installed in the clone. It must fetch a new
// enough Node, install, build native Opus, and bring up the demo: /health answers with native Opus and
// a connected call, the printed lines work when pasted into a Node 20 shell, and Ctrl-C (SIGINT to
// the process group) ends it with exit 0 within 5 s. Run again, it skips the install. CI only
// (CI=true, .ci/run): it installs every dependency from the npm registry, which takes minutes.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { freePort } from '../helpers/net.ts';
import { acceptCut, runPasted, signalGroup, startDemo, type DemoSession } from '../helpers/demo-session.ts';

const inCi = process.env.CI === 'true';
if (!inCi) {
  console.log(
    'fresh-clone Quick start test not run: it needs CI=true (it clones the repo and installs Node and every dependency from the npm registry, several minutes); .ci/run sets it',
  );
}

const root = process.cwd();
const MACHINE_NODE_DIR = '/usr/bin';

/** The Quick start commands exactly as README.md shows them: the one code block under "## Quick start". */
function quickStartCommands(): string[] {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((part) => part.startsWith('Quick start'));
  const block = section && /```(?:sh|bash)\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('README.md has no code block under "## Quick start"');
  return block[1]!
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

function minimumNode(): string {
  const engines = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } })
    .engines.node;
  return /(\d+\.\d+\.\d+)/.exec(engines)![1]!;
}

function atLeast(version: string, minimum: string): boolean {
  const have = version.replace(/^v/, '').split('.').map(Number);
  const need = minimum.split('.').map(Number);
  return (have[0]! - need[0]! || have[1]! - need[1]! || have[2]! - need[2]!) >= 0;
}

/**
 * A stock user's environment: the machine's Node first on PATH, no project Node, nothing that npm or
 * vitest or this project's configuration put into the environment of this test.
 */
function stockEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const keep = Object.entries(process.env).filter(
    ([key]) =>
      !/^(npm_|NODE_|VITEST|DISCORD_|PLATFORM_VOICE_LIVE_|GEMINI_|OPENAI_|HERMES_HOME$|INIT_CWD$|ELECTRON_)/.test(key),
  );
  const pathDirs = (process.env.PATH ?? '')
    .split(':')
    .filter((dir) => dir && !dir.includes('/.tools/') && !dir.includes('node_modules'));
  return { ...Object.fromEntries(keep), PATH: [MACHINE_NODE_DIR, ...pathDirs].join(':'), NO_COLOR: '1', ...extra };
}

const HealthSchema = z.object({
  node: z.string(),
  bridge: z.object({ state: z.string() }),
  audio: z.object({ opus: z.object({ impl: z.enum(['native', 'wasm']), library: z.string(), reason: z.string() }) }),
});

async function waitForConnectedCall(port: number): Promise<z.infer<typeof HealthSchema>> {
  let last: unknown = null;
  for (let attempt = 0; attempt < 120; attempt++) {
    try {
      const health = HealthSchema.parse(await (await fetch(`http://127.0.0.1:${port}/health`)).json());
      if (health.bridge.state === 'connected') return health;
      last = health;
    } catch (err) {
      last = err;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`no connected call in /health: ${JSON.stringify(last)}`);
}

/** Ctrl-C in the demo's terminal; resolves with the exit, or rejects when it takes more than 5 s. */
async function interrupt(demo: DemoSession): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  signalGroup(demo, 'SIGINT');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) =>
      (timer = setTimeout(
        () => reject(new Error(`the demo did not exit within 5 s of SIGINT:\n${demo.out()}\n${demo.err()}`)),
        5_000,
      )),
  );
  try {
    return await Promise.race([demo.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe.runIf(inCi)('Quick start on a fresh clone with Node 20 first on PATH (CI)', () => {
  // Made in the test, not here: a suite skipped outside CI still runs this body when collected.
  let scratch: string | undefined;
  // The clone holds node_modules and a Node: removing it takes a while on a busy machine.
  afterAll(() => scratch && rmSync(scratch, { recursive: true, force: true }), 300_000);

  it(
    'the first command sets everything up and runs the demo; the printed lines work; Ctrl-C exits 0; a second run skips the install',
    async () => {
      scratch = mkdtempSync(path.join(tmpdir(), 'lvb-fresh-clone-'));
      const clone = path.join(scratch, 'live-voice-bridge');
      const commands = quickStartCommands();
      expect(commands).toHaveLength(2);
      const [runCommand] = commands as [string, string];

      execFileSync('git', ['clone', '--quiet', '--no-hardlinks', root, clone]);
      execFileSync('git', [
        '-C',
        clone,
        'checkout',
        '--quiet',
        '--detach',
        execFileSync('git', ['-C', root, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim(),
      ]);
      expect(existsSync(path.join(clone, 'node_modules'))).toBe(false);

      const port = await freePort();
      const env = stockEnv({ DISCORD_VOICE_LIVE_PORT: String(port) });
      // Precondition: the machine's Node is older than the project needs (Debian's 20).
      const machineNode = spawnSync('node', ['--version'], { env, encoding: 'utf8' }).stdout.trim();
      expect(atLeast(machineNode, minimumNode())).toBe(false);

      const first = startDemo(runCommand, { cwd: clone, env, readyTimeoutMs: 20 * 60_000 });
      try {
        const { pasteLines } = await first.ready;
        const health = await waitForConnectedCall(port);
        expect(atLeast(health.node, minimumNode())).toBe(true);
        expect(health.audio.opus).toMatchObject({ impl: 'native', library: '@discordjs/opus' });
        expect(first.out() + first.err()).toContain('installing dependencies with Node');
        // The core runs compiled, without Node's type stripper resident (docs/performance.md, "Memory").
        expect(first.out() + first.err()).toContain('compiling the core and the dashboard into dist/');
        const corePid = /this process \((\d+)\) is the core/.exec(first.out())?.[1];
        expect(readFileSync(`/proc/${corePid}/cmdline`, 'utf8').split('\0')).toContain('dist/main/cli.js');

        // Pasted into another terminal that still has Node 20 first on PATH.
        const pasted = runPasted(acceptCut(pasteLines), stockEnv({}));
        expect(pasted.status).toBe(0);
        expect(pasted.stdout).toMatch(/"outcome": "(spoken|cut)"/);
        expect(pasted.stdout).not.toMatch(/"outcome": "(dropped|waiting)"/);
        expect(pasted.stdout).toMatch(/"voice": \{\s*"status": "ok"/);
        expect(pasted.stdout).toMatch(/"notes":\[/);
        expect(pasted.stdout).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/login\\?nonce=[\\w-]+$`, 'm'));

        expect(await interrupt(first)).toEqual({ code: 0, signal: null });
        expect(first.out()).toContain('demo finished:');
      } finally {
        if (first.child.exitCode === null) signalGroup(first, 'SIGKILL');
      }

      const second = startDemo(runCommand, { cwd: clone, env, readyTimeoutMs: 5 * 60_000 });
      try {
        await second.ready;
        await waitForConnectedCall(port);
        expect(second.out() + second.err()).not.toContain('installing dependencies');
        expect(second.out() + second.err()).not.toContain('installing node@22');
        expect(second.out() + second.err()).not.toContain('compiling the core');
        expect(await interrupt(second)).toEqual({ code: 0, signal: null });
      } finally {
        if (second.child.exitCode === null) signalGroup(second, 'SIGKILL');
      }
    },
    30 * 60_000,
  );
});
