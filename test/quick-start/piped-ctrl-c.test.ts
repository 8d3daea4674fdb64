// The Quick start's demo with its output piped (`./scripts/demo.sh | tee log`), ended by Ctrl-C in
// its terminal: SIGINT reaches the whole process group, so tee ends at once and the demo's next
// write to the pipe fails with EPIPE. That used to kill the demo mid-cleanup (an unhandled 'error'
// event on stdout), leaving its temporary home behind, sidecar token included. Piped or not, Ctrl-C
// must remove it and end the fakes. Also: `./scripts/demo.sh --help` prints the demo's options.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { freePort } from '../helpers/net.ts';
import { processAlive, signalGroup, startDemo } from '../helpers/demo-session.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'lvb-piped-demo-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

it('./scripts/demo.sh --help prints the options, --room and --provider among them, exit 0', () => {
  const help = spawnSync('./scripts/demo.sh', ['--help'], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 120_000,
  });
  expect(help.status).toBe(0);
  expect(help.stdout).toContain('Usage: ./scripts/demo.sh [options]');
  expect(help.stdout).toContain('  --room ');
  expect(help.stdout).toContain('  --provider NAME ');
}, 150_000);

it.each([
  ['stdout piped', '| tee'],
  ['stdout and stderr piped', '2>&1 | tee'],
])(
  'Ctrl-C with %s into tee removes the demo home (token included) and ends the fakes',
  async (_what, pipe) => {
    const port = await freePort();
    const log = path.join(scratch, `demo-${port}.log`);
    const demo = startDemo(`./scripts/demo.sh --port ${port} ${pipe} "${log}"`, {
      cwd: process.cwd(),
      env: { ...process.env, NO_COLOR: '1' },
      readyTimeoutMs: 120_000,
    });
    try {
      const { pasteLines, fakesPid } = await demo.ready;
      const tokenFile = /^export DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE=(\S+)$/m.exec(pasteLines.join('\n'))![1]!;
      const home = path.dirname(path.dirname(tokenFile));
      expect(existsSync(tokenFile)).toBe(true);
      // Something is being said, so the demo writes transcript lines into the pipe after tee is gone.
      await new Promise((r) => setTimeout(r, 6_000));
      signalGroup(demo, 'SIGINT');
      await demo.exited;
      // The demo (the pipeline's first command) may still be cleaning up when the shell returns.
      const deadline = Date.now() + 15_000;
      while ((existsSync(home) || processAlive(fakesPid)) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 200));
      expect(existsSync(tokenFile)).toBe(false);
      expect(existsSync(home)).toBe(false);
      expect(processAlive(fakesPid)).toBe(false);
      // tee wrote what it read before Ctrl-C: the demo really was piped.
      expect(readFileSync(log, 'utf8')).toContain('In another terminal, paste:');
      expect(demo.err()).not.toContain('EPIPE');
    } finally {
      if (demo.child.exitCode === null) signalGroup(demo, 'SIGKILL');
    }
  },
  180_000,
);
