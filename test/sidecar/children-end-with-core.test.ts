// No child process outlives the core. The real headless core starts a delegate whose command
// ignores SIGTERM (and has a child of its own, in the same process group); the core is told to stop
// (SIGTERM); once it has exited, nothing of the delegate's process group is left running.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { freePort } from '../helpers/net.ts';

async function waitFor(predicate: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Whether any process of group `pgid` still runs (zombies count as gone). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pgid}/stat`, 'utf8');
    return !/\) [ZX] /.test(stat);
  } catch {
    return true; // the leader is gone but another member of its group is not
  }
}

it('a delegate that ignores SIGTERM is ended with the core (SIGTERM, bounded wait, SIGKILL)', async () => {
  const home = mkdtempSync(path.join(tmpdir(), 'lvb-children-'));
  const port = await freePort();
  const child = spawn(process.execPath, ['main/cli.ts', 'headless'], {
    env: {
      ...process.env,
      HERMES_HOME: home,
      DISCORD_VOICE_LIVE_PORT: String(port),
      DISCORD_VOICE_LIVE_LOG_LEVEL: 'info',
      // A shell that ignores SIGTERM and waits on a child of its own (which inherits the ignore).
      DISCORD_VOICE_LIVE_DELEGATE_COMMAND: 'sh,-c,trap "" TERM; sleep 600 & wait',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<{ code: number | null }>((resolve) => child.once('exit', (code) => resolve({ code })));
  let pgid = 0;
  try {
    await waitFor(() => output.includes('dashboard: http://'), 'the sidecar to start');
    const token = readFileSync(path.join(home, 'voice-users', 'sidecar.token'), 'utf8').trim();
    const res = await fetch(`http://127.0.0.1:${port}/tools/local_delegate_execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'refactor everything', label: 'stubborn' }),
    });
    const body = (await res.json()) as { result?: { session?: { pid?: number } }; session?: { pid?: number } };
    expect(res.status, JSON.stringify(body)).toBe(200);
    pgid = (body.result?.session?.pid ?? body.session?.pid)!;
    expect(pgid).toBeGreaterThan(0);
    await waitFor(() => groupAlive(pgid), 'the delegate to run');

    child.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0 });
    // Sent before the core exited; the kernel has ended the group by the time we look (bounded poll).
    await waitFor(() => !groupAlive(pgid), 'the delegate group to be gone', 3000).catch(() => undefined);
    expect(groupAlive(pgid), `delegate process group ${pgid} outlived the core`).toBe(false);
  } finally {
    child.kill('SIGKILL');
    if (pgid) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    rmSync(home, { recursive: true, force: true });
  }
}, 60_000);
