// One SIGTERM during an in-flight delivery: the headless process runs its whole shutdown (no library
// re-raises the signal and kills it mid-way), exits 0, and the reminder being delivered is recorded
// in the schedule file, not left `delivering`.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { scheduleFilePath } from '../../main/core/notify/schedule-store.ts';
import { readScheduleRows } from '../helpers/schedule-db.ts';
import { freePort } from '../helpers/net.ts';
import { startWebhookReceiver } from '../unit/notify/webhook-receiver.ts';

async function waitFor(predicate: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

it('SIGTERM while a webhook delivery hangs: whole shutdown, exit 0, the entry recorded', async () => {
  const home = mkdtempSync(path.join(tmpdir(), 'lvb-sigterm-'));
  const receiver = await startWebhookReceiver();
  // The receiver takes the POST and never answers.
  receiver.script.push({ hang: true });
  const port = await freePort();
  const child = spawn(process.execPath, ['main/cli.ts', 'headless'], {
    env: {
      ...process.env,
      HERMES_HOME: home,
      DISCORD_VOICE_LIVE_PORT: String(port),
      DISCORD_VOICE_LIVE_LOG_LEVEL: 'info',
      DISCORD_VOICE_LIVE_WEBHOOK_AGENT_NOTIFY: receiver.url,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  try {
    await waitFor(() => output.includes('dashboard: http://'), 'the sidecar to start');
    const token = readFileSync(path.join(home, 'voice-users', 'sidecar.token'), 'utf8').trim();
    const res = await fetch(`http://127.0.0.1:${port}/schedule`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Backup finished', delay_seconds: 0, mode: 'webhook' }),
    });
    expect(res.status).toBe(201);
    const { scheduled } = (await res.json()) as { scheduled: string };
    await waitFor(() => receiver.received.length === 1, 'the POST to be in flight');

    child.kill('SIGTERM');
    const { code, signal } = await exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(output).toContain('shutting down');
    expect(output).not.toContain('did not finish in time');
    // The entry's row is an outcome, not a claim in flight.
    const last = readScheduleRows(scheduleFilePath(home)).find((r) => r.id === scheduled)!;
    expect(last.state).not.toBe('delivering');
    expect(last.state).not.toBe('scheduled');
    expect(receiver.received).toHaveLength(1);
  } finally {
    child.kill('SIGKILL');
    await receiver.close();
    rmSync(home, { recursive: true, force: true });
  }
}, 60_000);
