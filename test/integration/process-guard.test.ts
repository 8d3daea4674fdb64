// The headless process survives what nothing else caught: an unhandled rejection or an uncaught
// exception is logged, counted in /health, and the sidecar keeps answering.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

const CHILD = fileURLToPath(new URL('../fixtures/process/last-resort-child.ts', import.meta.url));
let child: ChildProcess | null = null;
afterAll(() => {
  child?.kill('SIGKILL');
});

const healthSchema = z.object({
  status: z.enum(['ok', 'degraded', 'error']),
  faults: z.object({
    malformed_model_messages: z.number(),
    unhandled_rejections: z.number(),
    uncaught_exceptions: z.number(),
  }),
});

async function health(url: string): Promise<z.infer<typeof healthSchema>> {
  const res = await fetch(`${url}/health`);
  return healthSchema.parse(await res.json());
}

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() - start > 15_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('last-resort handlers in the headless process', () => {
  it('an unhandled rejection and an uncaught exception are logged and counted; the sidecar keeps answering', async () => {
    child = spawn(process.execPath, [CHILD], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child!.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      child!.once('exit', (code) => reject(new Error(`child exited ${code}: ${stderr}`)));
    });
    const { url } = z.object({ url: z.string(), token: z.string() }).parse(JSON.parse(line));
    expect((await health(url)).faults).toEqual({
      malformed_model_messages: 0,
      unhandled_rejections: 0,
      uncaught_exceptions: 0,
    });

    child.stdin!.write('reject\nthrow\n');
    const after = await until(
      () => health(url),
      (h) => h.faults.unhandled_rejections === 1 && h.faults.uncaught_exceptions === 1,
      'both faults counted',
    );
    // Still up and answering; unconfigured here, so `degraded` (not configured), never `error`.
    expect(after.status).toBe('degraded');
    expect(child.exitCode).toBeNull();
    // both logged (the log line may reach the pipe after /health already counts it)
    await until(
      async () => stderr,
      (text) => text.includes('an unknown bug rejected') && text.includes('an unknown bug threw'),
      'both log lines',
    );
  });
});
