// One minimum Node, the one the code needs (type stripping without a flag and
// tls.setDefaultCACertificates: 22.19), stated in package.json "engines.node" and read from there by
// the scripts and the CLI; the README states the same. Under an older Node, `npm ci` stops at once
// naming the fix, and the CLI hands over to the project's Node or says how to get one.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = process.cwd();
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  engines: { node: string; fix: string };
};
const minimum = /^>=(\d+\.\d+)\.0$/.exec(pkg.engines.node)?.[1];

it('engines.node is the one minimum; README, scripts and the CLI say the same or read it from there', () => {
  expect(minimum).toBe('22.19');
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  expect(readme).toContain(`Node.js ≥ ${minimum}`);
  expect([...new Set([...readme.matchAll(/Node(?:\.js)? (?:≥|>=) ?(\d+\.\d+)/g)].map((m) => m[1]))]).toEqual([minimum]);
  // The scripts and the CLI shim read package.json instead of repeating a number.
  for (const file of ['scripts/use-node22.sh', 'bin/live-voice-bridge.js']) {
    const text = readFileSync(path.join(root, file), 'utf8');
    expect(text).toContain('engines');
    expect(text).not.toMatch(/22\.1\d/);
  }
  expect(readFileSync(path.join(root, '.npmrc'), 'utf8')).toMatch(/^engine-strict=true$/m);
});

const machineNode = '/usr/bin/node';
const machineNodeVersion = existsSync(machineNode)
  ? spawnSync(machineNode, ['--version'], { encoding: 'utf8' }).stdout.trim()
  : '';
const machineNodeIsOld =
  /^v(\d+)\.(\d+)\./.test(machineNodeVersion) &&
  (() => {
    const [, major, minor] = /^v(\d+)\.(\d+)\./.exec(machineNodeVersion)!;
    const [needMajor, needMinor] = minimum!.split('.').map(Number);
    return Number(major) < needMajor! || (Number(major) === needMajor && Number(minor) < needMinor!);
  })();
if (!machineNodeIsOld)
  console.log(
    `node-minimum: the older-Node checks need the machine's ${machineNode} older than ${minimum} (found ${machineNodeVersion || 'none'})`,
  );

describe.runIf(machineNodeIsOld)(`under the machine's older Node (${machineNodeVersion})`, () => {
  const oldNodeEnv: NodeJS.ProcessEnv = { ...process.env, PATH: `${path.dirname(machineNode)}:${process.env.PATH}` };

  it('npm ci fails at once, before touching node_modules, naming the fix', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lvb-old-node-'));
    try {
      for (const file of ['package.json', 'package-lock.json', '.npmrc'])
        copyFileSync(path.join(root, file), path.join(dir, file));
      const { npm_config_engine_strict: _s, ...env } = oldNodeEnv;
      const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {
        cwd: dir,
        env,
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(result.status).not.toBe(0);
      expect(result.stderr).toContain('EBADENGINE');
      expect(result.stderr).toContain(`"node":">=${minimum}.0"`);
      expect(result.stderr).toContain('./scripts/demo.sh or ./scripts/test.sh');
      expect(existsSync(path.join(dir, 'node_modules'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the CLI shim hands over to the Node in .tools/ when there is one', () => {
    if (!existsSync(path.join(root, '.tools', 'node22', 'bin', 'node'))) return;
    const result = spawnSync(machineNode, ['bin/live-voice-bridge.js', 'help'], {
      cwd: root,
      env: oldNodeEnv,
      encoding: 'utf8',
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('live-voice-bridge demo');
  });
});
