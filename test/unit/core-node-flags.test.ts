// Every launcher of the core passes the same documented start-up options (main/core/core-node-flags.ts),
// on the command line of the process, and only options Node allows in NODE_OPTIONS (documented, not
// V8 internals). A launcher that drops them runs the core without its idle trim.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CORE_NODE_FLAGS } from '../../main/core/core-node-flags.ts';

const root = new URL('../../', import.meta.url);
const scripts = z.object({ scripts: z.record(z.string(), z.string()) }).parse(JSON.parse(readFileSync(new URL('package.json', root), 'utf8'))).scripts;
const flags = CORE_NODE_FLAGS.join(' ');

describe('the core\'s start-up options', () => {
  it('are given by npm run headless, npm run demo, scripts/demo.sh and npm start (Electron\'s --js-flags, the main process\'s V8)', () => {
    expect(scripts.headless).toContain(`node ${flags} dist/main/cli.js headless`);
    expect(scripts.demo).toContain(`node ${flags} dist/main/cli.js demo`);
    expect(readFileSync(new URL('scripts/demo.sh', root), 'utf8')).toContain(`exec node ${flags} dist/main/cli.js demo`);
    expect(scripts.start).toContain(`electron --js-flags="${flags}" .`);
  });

  it('are options Node accepts in NODE_OPTIONS (its list of documented, allowed V8 options), and they cap the young generation', () => {
    // Node refuses (exit 9) an option that is not on its NODE_OPTIONS list, as V8 internals are not.
    const script = "const s = require('node:v8').getHeapSpaceStatistics().find((x) => x.space_name === 'new_space'); Array.from({ length: 300000 }, (_, i) => ({ i })); console.log(require('node:v8').getHeapSpaceStatistics().find((x) => x.space_name === 'new_space').space_size)";
    const capped = Number(execFileSync(process.execPath, ['-e', script], { env: { ...process.env, NODE_OPTIONS: flags }, encoding: 'utf8' }));
    const uncapped = Number(execFileSync(process.execPath, ['-e', script], { env: { ...process.env, NODE_OPTIONS: '' }, encoding: 'utf8' }));
    expect(capped).toBeGreaterThan(0);
    expect(capped).toBeLessThan(uncapped);
  });
});
