// `npm run demo` as a newcomer runs it: a child process, no accounts, a whole exchange printed.
import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import { freePort } from '../../helpers/net.ts';

it('plays one simulated exchange and prints the login URL and the transcript', async () => {
  const port = await freePort();
  const child = spawn(process.execPath, ['main/cli.ts', 'demo', '--once', '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(err).toBe('');
  expect(code).toBe(0);
  expect(out).toMatch(new RegExp(`dashboard +http://127\\.0\\.0\\.1:${port}/login\\?nonce=[\\w-]+`));
  expect(out).toMatch(/state +connected/);
  expect(out).toMatch(/owner +\(\d+ ms of speech\)/);
  expect(out).toContain('model    Hi! I can hear you clearly.');
  expect(out).toContain('demo finished: 1 model reply.');
}, 60_000);
