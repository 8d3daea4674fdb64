// A local client that holds idle connections up to the file-descriptor limit must not make the
// sidecar unreachable. The real headless core runs under `prlimit --nofile=1024` in a child process;
// this test opens 1,200 connections to it and leaves them idle, then asks /health 40 times: every
// one is answered (before: 0 of 40, the process alive but unreachable).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { freePort } from '../helpers/net.ts';

const IDLE_CONNECTIONS = 1200;
const HEALTH_CHECKS = 40;

async function waitFor(predicate: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function openIdle(port: number): Promise<net.Socket> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.on('error', () => undefined); // the sidecar may close it: that is the point
    socket.once('connect', () => resolve(socket));
    socket.once('close', () => resolve(socket));
  });
}

async function health(port: number): Promise<number> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(10_000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

it(`answers /health while a client holds ${IDLE_CONNECTIONS} idle connections under a 1,024 descriptor limit`, async () => {
  const home = mkdtempSync(path.join(tmpdir(), 'lvb-fd-limit-'));
  const port = await freePort();
  const child = spawn('prlimit', ['--nofile=1024:1024', process.execPath, 'main/cli.ts', 'headless'], {
    env: {
      ...process.env,
      HERMES_HOME: home,
      DISCORD_VOICE_LIVE_PORT: String(port),
      DISCORD_VOICE_LIVE_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const sockets: net.Socket[] = [];
  try {
    await waitFor(() => output.includes('dashboard: http://'), 'the sidecar to start');
    for (let i = 0; i < IDLE_CONNECTIONS; i += 50) {
      sockets.push(
        ...(await Promise.all(Array.from({ length: Math.min(50, IDLE_CONNECTIONS - i) }, () => openIdle(port)))),
      );
    }
    const answered: number[] = [];
    for (let i = 0; i < HEALTH_CHECKS; i++) answered.push(await health(port));
    expect(answered.filter((s) => s === 200).length, `answers: ${answered.join(',')}`).toBe(HEALTH_CHECKS);
    expect(child.exitCode).toBeNull();
  } finally {
    for (const s of sockets) s.destroy();
    child.kill('SIGKILL');
    rmSync(home, { recursive: true, force: true });
  }
}, 120_000);
