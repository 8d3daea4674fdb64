// The headless core left idle. As the launchers start it (main/core/core-node-flags.ts) it runs no
// GC of its own: no gc is exposed, and nothing sets a V8 flag at run time. With --expose-gc added
// (documented, allowed in NODE_OPTIONS: the opt-in idle trim) its idle memory trim runs, and the
// process lives on while V8's memory reducer, armed by the trim's GC, runs GCs of its own afterwards
// (nothing retires the reducer any more: that took a run-time V8 flag, which once aborted the core).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { CORE_NODE_FLAGS } from '../../main/core/core-node-flags.ts';
import { freePort } from '../helpers/net.ts';

/** The reducer's first GC comes 8 s (plus 0.1 s of slack) after the full GC that armed it. */
const WATCH_AFTER_TRIM_MS = 10_000;

async function idleCore(
  flags: readonly string[],
  until: (out: string) => boolean,
  deadlineMs: number,
): Promise<{ out: string; alive: boolean }> {
  const home = mkdtempSync(path.join(tmpdir(), 'lvb-idle-gc-'));
  const port = await freePort();
  const child = spawn(process.execPath, [...flags, '--trace-memory-reducer', 'main/cli.ts', 'headless'], {
    env: {
      ...process.env,
      HERMES_HOME: home,
      DISCORD_VOICE_LIVE_PORT: String(port),
      DISCORD_VOICE_LIVE_LOG_LEVEL: 'debug',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  try {
    const deadline = Date.now() + deadlineMs;
    while (!until(out) && Date.now() < deadline && child.exitCode === null) await sleep(100);
    return { out, alive: child.exitCode === null };
  } finally {
    child.kill('SIGKILL');
    rmSync(home, { recursive: true, force: true });
  }
}

it(
  "started with --expose-gc beside the launchers' options, the idle core trims and lives on through V8's memory reducer GCs after it",
  { timeout: 90_000 },
  async () => {
    let trimmedAt = -1;
    const run = await idleCore(
      [...CORE_NODE_FLAGS, '--expose-gc'],
      (out) => {
        if (trimmedAt < 0 && out.includes('idle memory trimmed')) trimmedAt = Date.now();
        return trimmedAt > 0 && Date.now() - trimmedAt > WATCH_AFTER_TRIM_MS;
      },
      60_000,
    );
    expect(run.out, 'the idle trim ran').toContain('idle memory trimmed');
    expect(run.alive, 'the core is still running').toBe(true);
  },
);

it(
  'started as the launchers start it (no --expose-gc), the idle core runs no trim of its own',
  { timeout: 60_000 },
  async () => {
    // Long enough for a start-up under load and the 5 s quiet period after it (the first test sees it well within).
    const run = await idleCore(CORE_NODE_FLAGS, () => false, 25_000);
    expect(run.alive, 'the core is still running').toBe(true);
    expect(run.out).not.toContain('idle memory trimmed');
  },
);
