// The headless core as a user runs it, left idle: once its idle memory trim has run, V8's memory
// reducer must not run GCs of its own afterwards. It used to (8-9 s after the trim, two incremental
// full GCs), landing in the first call the owner joined: the benchmark's idle call read 0.9-1.25 % of
// a core instead of about 0.1 %. --trace-memory-reducer makes V8 print "Memory reducer: started GC"
// on stdout for each GC the reducer starts.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { freePort } from '../helpers/net.ts';

/** The reducer's first GC comes 8 s (plus 0.1 s of slack) after the full GC that armed it. */
const WATCH_AFTER_TRIM_MS = 10_000;

it('after the idle trim, V8\'s memory reducer starts no GC of its own in an idle core', { timeout: 60_000 }, async () => {
  const home = mkdtempSync(path.join(tmpdir(), 'lvb-idle-gc-'));
  const port = await freePort();
  const child = spawn(process.execPath, ['--trace-memory-reducer', 'main/cli.ts', 'headless'], {
    env: { ...process.env, HERMES_HOME: home, DISCORD_VOICE_LIVE_PORT: String(port), DISCORD_VOICE_LIVE_LOG_LEVEL: 'debug' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  try {
    const deadline = Date.now() + 40_000;
    while (!out.includes('idle memory trimmed') && Date.now() < deadline && child.exitCode === null) await sleep(100);
    expect(out, 'the idle trim ran').toContain('idle memory trimmed');
    const afterTrim = out.length;
    await sleep(WATCH_AFTER_TRIM_MS);
    expect(child.exitCode, 'the core is still running').toBeNull();
    const reducerGcs = out.slice(afterTrim).split('\n').filter((line) => line.includes('Memory reducer: started GC'));
    expect(reducerGcs).toEqual([]);
  } finally {
    child.kill('SIGKILL');
    rmSync(home, { recursive: true, force: true });
  }
});
