// What a person sees from `npm run headless`: readable log lines on a terminal (JSON when piped or
// asked for), the one paragraph saying what is missing and where to set it, no experimental warnings.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { unconfiguredParagraph } from '../../main/cli/terminal.ts';
import { terminalLogFormat } from '../../main/core/log/terminal-format.ts';
import { freePort } from '../helpers/net.ts';

it('auto is pretty and coloured on a TTY, JSON when piped; NO_COLOR and explicit formats win', () => {
  expect(terminalLogFormat('auto', { isTTY: true }, {})).toEqual({ format: 'pretty', colorize: true });
  expect(terminalLogFormat('auto', { isTTY: false }, {})).toEqual({ format: 'json', colorize: false });
  expect(terminalLogFormat('auto', { isTTY: true }, { NO_COLOR: '1' })).toEqual({ format: 'pretty', colorize: false });
  expect(terminalLogFormat('json', { isTTY: true }, {})).toEqual({ format: 'json', colorize: false });
  expect(terminalLogFormat('pretty', { isTTY: false }, {})).toEqual({ format: 'pretty', colorize: false });
});

it('the unconfigured paragraph names each missing variable and the .env file', () => {
  expect(unconfiguredParagraph([], '/x/.env')).toBeNull();
  const one = unconfiguredParagraph(['GEMINI_API_KEY'], '/x/.env')!;
  expect(one).toMatch(/^Voice calls are off until GEMINI_API_KEY is set\. Put it in \/x\/\.env /);
});

async function runHeadless(env: Record<string, string>): Promise<{ out: string; err: string; code: number | null }> {
  const home = mkdtempSync(path.join(tmpdir(), 'lvb-headless-out-'));
  const port = await freePort();
  const {
    DISCORD_BOT_TOKEN: _a,
    GEMINI_API_KEY: _b,
    DISCORD_VOICE_LIVE_USER_ID: _c,
    DISCORD_VOICE_LIVE_LOG_FORMAT: _d,
    ...base
  } = process.env;
  const child = spawn(process.execPath, ['main/cli.ts', 'headless'], {
    env: { ...base, HERMES_HOME: home, DISCORD_VOICE_LIVE_PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  try {
    for (let i = 0; i < 200 && !out.includes('Everything else works already'); i++)
      await new Promise((r) => setTimeout(r, 100));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    return { out, err, code: await exited };
  } finally {
    child.kill('SIGKILL');
    rmSync(home, { recursive: true, force: true });
  }
}

it('unconfigured and piped: JSON log lines, the paragraph on stdout, no ExperimentalWarning', async () => {
  const { out, err, code } = await runHeadless({});
  expect(code).toBe(0);
  expect(out).toContain(
    `Voice calls are off until DISCORD_BOT_TOKEN, DISCORD_VOICE_LIVE_USER_ID and GEMINI_API_KEY are set. Put them in ${path.resolve('.env')} `,
  );
  const lines = err.split('\n').filter(Boolean);
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
  expect(err + out).not.toContain('ExperimentalWarning');
}, 60_000);

it('DISCORD_VOICE_LIVE_LOG_FORMAT=pretty: time, level and message first, not JSON', async () => {
  const { err, code } = await runHeadless({ DISCORD_VOICE_LIVE_LOG_FORMAT: 'pretty' });
  expect(code).toBe(0);
  expect(err).toMatch(/^\[\d\d:\d\d:\d\d\] WARN: voice calls are disabled until these are configured/m);
  expect(err).not.toMatch(/^\{"level"/m);
  expect(err).not.toContain('\u001b[');
}, 60_000);
