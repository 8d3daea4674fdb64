// scripts/lib/core-build.mjs and bin/live-voice-bridge.js on a scratch copy of the project's layout:
// the launchers run the compiled core (dist/) only when it was compiled from the sources now there,
// so Node's type stripper is not resident in the core (docs/performance.md, "Memory") and an edit is
// never shadowed by an old build.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = path.resolve(import.meta.dirname, '../../..');
let project: string;

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, args, {
    cwd: project,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The CLI of the scratch project says which file Node loaded (source or dist/) and its version. */
function writeCli(version: string): void {
  writeFileSync(
    path.join(project, 'main', 'cli.ts'),
    `const version: string = '${version}';\nconsole.log(JSON.stringify({ version, file: import.meta.filename }));\n`,
  );
}

beforeAll(() => {
  project = mkdtempSync(path.join(tmpdir(), 'lvb-core-build-'));
  for (const file of [
    'bin/live-voice-bridge.js',
    'scripts/lib/core-build.mjs',
    'tsconfig.base.json',
    'tsconfig.build.json',
    'main/app/tsconfig.json',
    'main/app/tsconfig.build.json',
    'package.json',
  ]) {
    mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
    cpSync(path.join(repo, file), path.join(project, file));
  }
  mkdirSync(path.join(project, 'renderer'));
  writeFileSync(path.join(project, 'renderer', 'main.ts'), 'export const panel: string = "calls";\n');
  symlinkSync(path.join(repo, 'node_modules'), path.join(project, 'node_modules'));
  writeCli('one');
});

afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('the compiled core and its launchers', () => {
  it('with no build, check fails and the CLI runs the TypeScript source', () => {
    expect(run(['scripts/lib/core-build.mjs', 'check']).status).toBe(1);
    const cli = run(['bin/live-voice-bridge.js']);
    expect(JSON.parse(cli.stdout)).toEqual({ version: 'one', file: path.join(project, 'main', 'cli.ts') });
  });

  it('ensure compiles the core and the dashboard scripts once; the CLI then runs dist/', () => {
    const first = run(['scripts/lib/core-build.mjs', 'ensure']);
    expect(first.status).toBe(0);
    expect(first.stderr).toContain('compiling the core and the dashboard into dist/');
    expect(existsSync(path.join(project, 'dist', 'main', 'cli.js'))).toBe(true);
    expect(existsSync(path.join(project, 'dist', 'renderer', 'main.js'))).toBe(true);
    expect(run(['scripts/lib/core-build.mjs', 'check']).status).toBe(0);
    // Current: a second ensure does nothing and says nothing.
    expect(run(['scripts/lib/core-build.mjs', 'ensure'])).toMatchObject({ status: 0, stderr: '' });
    expect(JSON.parse(run(['bin/live-voice-bridge.js']).stdout)).toEqual({
      version: 'one',
      file: path.join(project, 'dist', 'main', 'cli.js'),
    });
  });

  it('after an edit the old build is not used until ensure compiles the edit', () => {
    writeCli('two');
    expect(run(['scripts/lib/core-build.mjs', 'check']).status).toBe(1);
    expect(JSON.parse(run(['bin/live-voice-bridge.js']).stdout)).toEqual({
      version: 'two',
      file: path.join(project, 'main', 'cli.ts'),
    });
    expect(run(['scripts/lib/core-build.mjs', 'ensure']).status).toBe(0);
    expect(JSON.parse(run(['bin/live-voice-bridge.js']).stdout)).toEqual({
      version: 'two',
      file: path.join(project, 'dist', 'main', 'cli.js'),
    });
  });

  it('a dashboard script edit also makes the build stale', () => {
    writeFileSync(path.join(project, 'renderer', 'main.ts'), 'export const panel: string = "notes";\n');
    expect(run(['scripts/lib/core-build.mjs', 'check']).status).toBe(1);
  });

  it('a package (no build script beside the sources) runs the dist/ it ships', () => {
    rmSync(path.join(project, 'scripts'), { recursive: true });
    writeCli('three');
    expect(JSON.parse(run(['bin/live-voice-bridge.js']).stdout)).toEqual({
      version: 'two',
      file: path.join(project, 'dist', 'main', 'cli.js'),
    });
    mkdirSync(path.join(project, 'scripts', 'lib'), { recursive: true });
    cpSync(path.join(repo, 'scripts/lib/core-build.mjs'), path.join(project, 'scripts/lib/core-build.mjs'));
  });

  it('a compile that fails leaves no stamp and exits non-zero', () => {
    writeFileSync(path.join(project, 'main', 'cli.ts'), 'const broken = ;\n');
    const failed = run(['scripts/lib/core-build.mjs', 'ensure']);
    expect(failed.status).not.toBe(0);
    expect(existsSync(path.join(project, 'dist', '.core-build-stamp'))).toBe(false);
  });
});
