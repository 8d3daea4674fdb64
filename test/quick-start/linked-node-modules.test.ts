// scripts/demo.sh and scripts/test.sh reinstall with `npm ci` when node_modules is not what the
// lockfile pins. npm ci empties node_modules first: when node_modules is a link (a git worktree that
// shares another checkout's tree), that emptied the other checkout's tree under everything running
// from it (seen: a demo test in a worktree wiped the main checkout's node_modules mid-run). The
// bootstrap now stops with the command to run instead, and the linked tree is left whole.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';

let dir: string | undefined;
afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

it('a stale install behind a node_modules link is not reinstalled through the link: the bootstrap says what to run, the tree stays', () => {
  dir = mkdtempSync(path.join(tmpdir(), 'lvb-linked-nm-'));
  const checkout = path.join(dir, 'checkout');
  const shared = path.join(dir, 'shared');
  mkdirSync(path.join(checkout, 'scripts', 'lib'), { recursive: true });
  for (const file of [
    'scripts/lib/bootstrap.sh',
    'scripts/lib/install-state.mjs',
    'scripts/use-node22.sh',
    'package.json',
    'package-lock.json',
  ])
    cpSync(file, path.join(checkout, file));
  // The shared tree's stamp is for another lockfile, so the check fails.
  mkdirSync(path.join(shared, 'node_modules', 'zod'), { recursive: true });
  writeFileSync(path.join(shared, 'node_modules', 'zod', 'package.json'), '{"name":"zod"}');
  writeFileSync(path.join(shared, 'node_modules', '.live-voice-bridge-install'), '{"lock":"old"}');
  symlinkSync(path.join(shared, 'node_modules'), path.join(checkout, 'node_modules'));
  // npm on PATH is a marker: if the bootstrap ran it, the test sees it.
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(path.join(bin, 'npm'), `#!/bin/sh\ntouch "${path.join(dir, 'npm-ran')}"\n`, { mode: 0o755 });
  const run = spawnSync('bash', ['-c', 'source scripts/lib/bootstrap.sh && lvb_bootstrap'], {
    cwd: checkout,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${bin}:${path.dirname(process.execPath)}:/usr/bin:/bin` },
  });
  expect(run.status).toBe(1);
  expect(run.stderr).toContain(`node_modules is a link to ${path.join(shared, 'node_modules')}`);
  expect(run.stderr).toContain(`run npm ci in ${shared}`);
  expect(existsSync(path.join(dir, 'npm-ran'))).toBe(false);
  expect(readFileSync(path.join(shared, 'node_modules', 'zod', 'package.json'), 'utf8')).toBe('{"name":"zod"}');
});
