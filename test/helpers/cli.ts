// Run the CLI as a user does: its output piped (what scripts see, JSON), or on a terminal (a pseudo
// terminal from util-linux `script`, so `process.stdout.isTTY` is true and the CLI prints sentences).
import { spawn } from 'node:child_process';

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string>;
  /** Run on a pseudo terminal: stdout and stderr then arrive together in `stdout` (`\r\n` made `\n`). */
  tty?: boolean;
}

/** The environment the CLI reads, without the runner's own sidecar variables. */
function baseEnv(): NodeJS.ProcessEnv {
  const {
    DISCORD_VOICE_LIVE_SIDECAR_TOKEN: _t,
    DISCORD_VOICE_LIVE_SIDECAR_TOKEN_FILE: _f,
    DISCORD_VOICE_LIVE_PORT: _p,
    ...base
  } = process.env;
  return { ...base, NO_COLOR: '1', TZ: 'UTC' };
}

const shellQuote = (arg: string): string => `'${arg.replace(/'/g, `'\\''`)}'`;

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  const env = { ...baseEnv(), ...options.env };
  const command = [process.execPath, 'bin/live-voice-bridge.js', ...args];
  // -q: no "Script started" lines; -e: its exit status is the command's; the log goes to /dev/null.
  const child = options.tty
    ? spawn('script', ['-qec', `stty cols 120 2>/dev/null; exec ${command.map(shellQuote).join(' ')}`, '/dev/null'], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : spawn(command[0]!, command.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) =>
    child.on('close', (status) =>
      resolve({ status, stdout: options.tty ? stdout.replace(/\r\n/g, '\n') : stdout, stderr }),
    ),
  );
}
