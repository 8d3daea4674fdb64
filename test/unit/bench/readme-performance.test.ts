// README's performance tables are generated from bench/results/*.json (npm run docs:perf; the soak
// tables by npm run soak:readme), never typed by hand: a hand edit inside the markers, or a result
// file re-run without regenerating README, fails here with the command that fixes it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../../scripts/readme-performance.ts', import.meta.url));
const soakScript = fileURLToPath(new URL('../../../scripts/soak-readme.ts', import.meta.url));

describe('README performance tables', () => {
  it('are what npm run docs:perf makes of bench/results/*.json', () => {
    const run = spawnSync(process.execPath, [script, '--check'], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('and the soak tables are what npm run soak:readme makes of the soak results', () => {
    const run = spawnSync(process.execPath, [soakScript, '--check'], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
