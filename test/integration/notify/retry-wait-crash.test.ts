// A reminder the receiver did not accept is never written off while it waits to be retried. The
// real headless core delivers a scheduled reminder to a loopback receiver that answers 500 (then
// 204), or 429 with Retry-After; while the core waits to retry it is killed (SIGKILL) or told to
// stop (SIGTERM). After a restart the reminder reaches the receiver and is accepted exactly once,
// and the entry ends `delivered` — never `failed` "it may have been delivered". A Retry-After is
// honoured across the restart: the retry does not come before the time the receiver asked for.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scheduleFilePath, type StoredNotification } from '../../../main/core/notify/schedule-store.ts';
import { readScheduleRows } from '../../helpers/schedule-db.ts';
import { freePort } from '../../helpers/net.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../unit/notify/webhook-receiver.ts';

async function waitFor(predicate: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Core {
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startCore(home: string, receiver: WebhookReceiver): Promise<Core> {
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
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await waitFor(() => output.includes('dashboard: http://'), 'the sidecar to start');
  return { child, port, output: () => output, exited };
}

function lastRecord(home: string, id: string): StoredNotification | undefined {
  return readScheduleRows(scheduleFilePath(home)).find((r) => r.id === id);
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Answer = '500' | '429';
const cases: { answer: Answer; signal: 'SIGKILL' | 'SIGTERM' }[] = [
  { answer: '500', signal: 'SIGKILL' },
  { answer: '500', signal: 'SIGTERM' },
  { answer: '429', signal: 'SIGKILL' },
  { answer: '429', signal: 'SIGTERM' },
];
const RETRY_AFTER_SECONDS = 6;

describe('a reminder not accepted by the receiver survives a crash or a shutdown during the retry wait', () => {
  for (const { answer, signal } of cases) {
    it(`answers ${answer === '500' ? '500 then 204' : `429 Retry-After ${RETRY_AFTER_SECONDS}`}, ${signal} during the wait → delivered exactly once after restart`, async () => {
      const home = mkdtempSync(path.join(tmpdir(), 'lvb-retry-wait-'));
      cleanups.push(() => rmSync(home, { recursive: true, force: true }));
      const receiver = await startWebhookReceiver();
      cleanups.push(() => receiver.close());
      // Until the core is stopped every POST is refused; afterwards the receiver accepts (204).
      const refusal =
        answer === '500' ? { status: 500 } : { status: 429, headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } };
      for (let i = 0; i < 8; i++) receiver.script.push(refusal);

      const first = await startCore(home, receiver);
      cleanups.push(() => void first.child.kill('SIGKILL'));
      const token = readFileSync(path.join(home, 'voice-users', 'sidecar.token'), 'utf8').trim();
      const res = await fetch(`http://127.0.0.1:${first.port}/schedule`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'Backup finished', delay_seconds: 0, mode: 'webhook' }),
      });
      expect(res.status).toBe(201);
      const { scheduled: id } = (await res.json()) as { scheduled: string };

      // The first POST was refused; the core now waits to retry. Stop it there: as soon as the file
      // shows the wait (or, on code that holds its claim through the wait, a little later).
      await waitFor(() => receiver.received.length >= 1, 'the first POST');
      const refusedAt = Date.now();
      await waitFor(
        () => lastRecord(home, id)?.state === 'scheduled' || Date.now() - refusedAt > 700,
        'the wait to be recorded',
      ).catch(() => undefined);
      first.child.kill(signal);
      const stopped = await first.exited;
      // Every POST so far was refused (the script holds more refusals than the core makes).
      expect(receiver.script.length).toBeGreaterThan(0);
      const refusedPosts = receiver.received.length;
      if (signal === 'SIGTERM') expect(stopped).toEqual({ code: 0, signal: null });
      const afterStop = lastRecord(home, id)!;
      expect(afterStop.state, JSON.stringify(afterStop)).toBe('scheduled');
      expect(afterStop.last_error).toMatch(/not accepted/);
      const retryAt = afterStop.next_attempt_at!;
      if (answer === '429') expect(retryAt).toBeGreaterThanOrEqual(refusedAt / 1000 + RETRY_AFTER_SECONDS - 1);

      // From now on the receiver accepts.
      receiver.script.length = 0;
      const second = await startCore(home, receiver);
      cleanups.push(() => void second.child.kill('SIGKILL'));
      await waitFor(
        () => lastRecord(home, id)?.state === 'delivered' || lastRecord(home, id)?.state === 'failed',
        'the reminder to be delivered after restart',
      );
      const final = lastRecord(home, id)!;
      expect(final.state, JSON.stringify(final)).toBe('delivered');
      const posts = receiver.received.filter((r) => (r.json as { notification_id?: string }).notification_id === id);
      // Exactly one POST accepted (every POST after the stop was answered 204; those before refused).
      expect(posts.length - refusedPosts).toBe(1);
      if (answer === '429') {
        // The retry did not come before the time the receiver asked for, restart or not.
        expect(final.delivered_at!).toBeGreaterThanOrEqual(retryAt - 0.5);
      }
      second.child.kill('SIGTERM');
      await second.exited;
    }, 120_000);
  }
});
