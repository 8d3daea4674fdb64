// Every launcher of the core passes the same documented start-up options (main/core/core-node-flags.ts),
// on the command line of the process, and only options Node allows in NODE_OPTIONS (documented, not
// V8 internals). A launcher that drops them runs the core without its idle trim.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CORE_NODE_FLAGS } from '../../main/core/core-node-flags.ts';

const root = new URL('../../', import.meta.url);
const scripts = z
  .object({ scripts: z.record(z.string(), z.string()) })
  .parse(JSON.parse(readFileSync(new URL('package.json', root), 'utf8'))).scripts;
const flags = CORE_NODE_FLAGS.join(' ');

describe("the core's start-up options", () => {
  it("are given by npm run headless, npm run demo (their launcher, scripts/lib/run-core.mjs), scripts/demo.sh and npm start (Electron's --js-flags, the main process's V8)", () => {
    expect(scripts.headless).toBe('node scripts/lib/run-core.mjs headless');
    expect(scripts.demo).toBe('node scripts/lib/run-core.mjs demo');
    expect(readFileSync(new URL('scripts/demo.sh', root), 'utf8')).toContain(
      `exec node ${flags} dist/main/cli.js demo`,
    );
    expect(scripts.start).toContain(`electron --js-flags="${flags}" .`);
  });

  it('are options Node accepts in NODE_OPTIONS (its list of documented, allowed V8 options), and they cap the young generation', () => {
    // Node refuses (exit 9) an option that is not on its NODE_OPTIONS list, as V8 internals are not.
    const script =
      "const s = require('node:v8').getHeapSpaceStatistics().find((x) => x.space_name === 'new_space'); Array.from({ length: 300000 }, (_, i) => ({ i })); console.log(require('node:v8').getHeapSpaceStatistics().find((x) => x.space_name === 'new_space').space_size)";
    const capped = Number(
      execFileSync(process.execPath, ['-e', script], {
        env: { ...process.env, NODE_OPTIONS: flags },
        encoding: 'utf8',
      }),
    );
    const uncapped = Number(
      execFileSync(process.execPath, ['-e', script], { env: { ...process.env, NODE_OPTIONS: '' }, encoding: 'utf8' }),
    );
    expect(capped).toBeGreaterThan(0);
    expect(capped).toBeLessThan(uncapped);
  });

  it(
    'are given by the installed command (bin/live-voice-bridge.js) to the process running the core: the same pid, re-executed with them',
    { timeout: 60_000, skip: !existsSync('/proc/self/cmdline') },
    async () => {
      const home = mkdtempSync(path.join(tmpdir(), 'lvb-flags-'));
      const child = spawn(process.execPath, ['bin/live-voice-bridge.js', 'headless'], {
        cwd: new URL('.', root),
        env: { ...process.env, HERMES_HOME: home, DISCORD_VOICE_LIVE_PORT: '0', NODE_OPTIONS: '' },
        stdio: 'ignore',
      });
      try {
        let args: string[] = [];
        for (let i = 0; i < 200 && !CORE_NODE_FLAGS.every((f) => args.includes(f)); i++) {
          await sleep(100);
          args = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
        }
        expect(args.filter((a) => a.startsWith('--'))).toEqual([...CORE_NODE_FLAGS]);
        expect(args.at(-1)).toBe('headless');
      } finally {
        child.kill('SIGKILL');
        rmSync(home, { recursive: true, force: true });
      }
    },
  );

  it("are the same list in the plain-JavaScript command shim and the npm scripts' launcher", () => {
    for (const file of ['bin/live-voice-bridge.js', 'scripts/lib/run-core.mjs']) {
      const text = readFileSync(new URL(file, root), 'utf8');
      expect(/const CORE_NODE_FLAGS = (\[[^\]]*\]);/.exec(text)?.[1], file).toBe(
        JSON.stringify(CORE_NODE_FLAGS).replaceAll('"', "'"),
      );
    }
  });
});
