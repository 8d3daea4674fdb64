// The headless shell as a user runs it: a child process, its printed login URL, /health, SIGTERM → exit 0.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { freePort } from '../helpers/net.ts';

it('starts, prints the dashboard login URL, serves /health, and exits 0 on SIGTERM', async () => {
  const home = mkdtempSync(path.join(tmpdir(), 'lvb-headless-'));
  const port = await freePort();
  const child = spawn(process.execPath, ['main/cli.ts', 'headless'], {
    env: {
      ...process.env,
      HERMES_HOME: home,
      DISCORD_VOICE_LIVE_PORT: String(port),
      DISCORD_VOICE_LIVE_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      child.once('exit', (code) => reject(new Error(`exited early with ${code}`)));
    });
    expect(line).toMatch(new RegExp(`dashboard: http://127\\.0\\.0\\.1:${port}/login\\?nonce=[\\w-]+$`));
    const health = (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as {
      status: string;
      reasons: string[];
    };
    // Runs, but no bot or model is configured: degraded, and it says why.
    expect(health.status).toBe('degraded');
    expect(health.reasons.join('\n')).toContain('not configured');
    const exitCode = await new Promise<number | null>((resolve) => {
      child.once('exit', (code) => resolve(code));
      child.kill('SIGTERM');
    });
    expect(exitCode).toBe(0);
  } finally {
    child.kill('SIGKILL');
    rmSync(home, { recursive: true, force: true });
  }
});

it('refuses bad configuration with exit 2 and a message naming the variable', async () => {
  const child = spawn(process.execPath, ['main/cli.ts', 'headless'], {
    env: { ...process.env, DISCORD_VOICE_LIVE_PORT: 'not-a-port' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code).toBe(2);
  expect(err).toContain('DISCORD_VOICE_LIVE_PORT: must be an integer');
});

it('CLI clients say clearly when the sidecar is not running (exit 3)', async () => {
  const port = await freePort();
  const child = spawn(process.execPath, ['main/cli.ts', 'health'], {
    env: { ...process.env, DISCORD_VOICE_LIVE_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code).toBe(3);
  expect(err).toContain(`the sidecar is not running at http://127.0.0.1:${port}`);
});
