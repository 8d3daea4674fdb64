// The delegate watcher runs real child processes (node -e scripts stand in for an agent CLI).
import { readFileSync, rmSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NotifyRequest, NotifyResult } from '../../../main/core/api-types.ts';
import {
  createDelegateWatcher,
  delegateArgv,
  delegateEnv,
  DelegateUnavailableError,
  type DelegateWatcherOptions,
} from '../../../main/core/notify/delegate.ts';
import { redactText } from '../../../main/core/tools/helpers/index.ts';

const logger = pino({ level: 'silent' });
let home: string;
let delivered: NotifyRequest[];

beforeEach(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'lvb-delegate-'));
  delivered = [];
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const notifier = {
  async deliver(req: NotifyRequest): Promise<NotifyResult> {
    delivered.push(req);
    return { id: 'n-test', status: 'ok', channel: 'dm', results: { dm: { status: 'ok' } }, notified_at: 1 };
  },
};

function watcher(script: string, over: Partial<DelegateWatcherOptions> = {}) {
  return createDelegateWatcher({
    // The task text arrives as process.argv[1] of the script: an argument, never shell text.
    command: [process.execPath, '-e', script],
    cwd: home,
    logDir: path.join(home, 'voice-users', 'delegates'),
    notifier,
    logger,
    redact: redactText,
    ...over,
  });
}

describe('delegate watcher', () => {
  it('runs the command with the task as one argument, logs output, and notifies (auto) with a redacted summary', async () => {
    const fakeKey = ['sk', 'proj', 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6'].join('-');
    const w = watcher(
      `console.log('task=' + process.argv[1]); console.log('cwd=' + process.cwd()); console.error('using key ${fakeKey}'); console.log('done: 3 files changed')`,
    );
    const started = await w.start('fix it; rm -rf / $(whoami)', 'fixer');
    expect(started.state).toBe('running');
    expect(started.pid).toEqual(expect.any(Number)); // answered once the process exists
    const ended = await w.waitFor(started.id);
    expect(ended).toMatchObject({ state: 'succeeded', exit_code: 0, notified: 'ok' });
    const log = await readFile(started.log_file, 'utf8');
    expect(started.log_file).toBe(path.join(home, 'voice-users', 'delegates', `${started.id}.log`));
    expect(log).toContain('task=fix it; rm -rf / $(whoami)'); // passed literally, no shell
    expect(log).toContain(`cwd=${home}`);
    expect(delivered).toHaveLength(1);
    const note = delivered[0]!;
    expect(note).toMatchObject({ mode: 'auto', title: 'Delegate finished', source: 'delegate' });
    expect(note.text).toMatch(/^Delegate "fixer" finished successfully \(exit 0\) after \d+ s\.\nLast lines:\n/);
    expect(note.text).toContain('done: 3 files changed');
    expect(note.text).not.toContain(fakeKey);
  });

  it('reports a failing exit code and the last lines', async () => {
    const w = watcher(`for (let i = 1; i <= 8; i++) console.log('line ' + i); process.exit(3)`, { tailLines: 3 });
    const s = await w.start('task');
    const ended = await w.waitFor(s.id);
    expect(ended).toMatchObject({ state: 'failed', exit_code: 3, tail: ['line 6', 'line 7', 'line 8'] });
    expect(delivered[0]!.text).toMatch(
      /^Delegate "d-[0-9a-f]+" failed \(exit 3\) after \d+ s\.\nLast lines:\nline 6\nline 7\nline 8$/,
    );
  });

  it('a command that cannot start is refused at once (503 delegate_unavailable): no session, no "started", no notification', async () => {
    const w = watcher('', { command: [path.join(home, 'no-such-agent'), '--run'] });
    const refused = await w.start('task').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(DelegateUnavailableError);
    expect(refused).toMatchObject({ code: 'delegate_unavailable', status: 503 });
    expect((refused as Error).message).toMatch(
      /^the delegate command "no-such-agent" could not be started \(ENOENT\); nothing was started\./,
    );
    expect((refused as Error).message).toContain('DISCORD_VOICE_LIVE_DELEGATE_COMMAND');
    expect(w.list()).toEqual([]); // not left recorded as running
    await w.close(); // nothing pending
    await new Promise((r) => setTimeout(r, 50));
    expect(delivered).toEqual([]);
    // The attempt is on disk for whoever investigates.
    const logs = await readdir(path.join(home, 'voice-users', 'delegates'));
    expect(logs).toHaveLength(1);
    expect(await readFile(path.join(home, 'voice-users', 'delegates', logs[0]!), 'utf8')).toMatch(
      /could not start: ENOENT\n$/,
    );
  });

  it('a command that is not executable, or a working folder that is gone, is refused the same way', async () => {
    const notExecutable = path.join(home, 'agent.txt');
    await writeFile(notExecutable, 'not a program', { mode: 0o644 });
    const a = watcher('', { command: [notExecutable] });
    await expect(a.start('task')).rejects.toMatchObject({ code: 'delegate_unavailable', status: 503 });
    expect(a.list()).toEqual([]);
    const b = watcher(`console.log('never')`, { cwd: path.join(home, 'gone') });
    await expect(b.start('task')).rejects.toMatchObject({ code: 'delegate_unavailable', status: 503 });
    expect(b.list()).toEqual([]);
    // A failed start does not hold a slot of the concurrency limit.
    const c = watcher(`console.log('ok')`, { maxConcurrent: 1, cwd: path.join(home, 'gone') });
    await expect(c.start('one')).rejects.toMatchObject({ code: 'delegate_unavailable' });
    await expect(c.start('two')).rejects.toMatchObject({ code: 'delegate_unavailable' });
    expect(delivered).toEqual([]);
  });

  it('a close() while a start is still pending waits for it, whichever way it goes', async () => {
    const w = watcher('', { command: [path.join(home, 'no-such-agent')] });
    const pending = w.start('task').catch((err: unknown) => err);
    await w.close();
    expect(await pending).toBeInstanceOf(DelegateUnavailableError);
  });

  it("a NUL in the task is the caller's mistake: 400 bad_prompt, nothing started", async () => {
    const w = watcher(`console.log('never')`);
    await expect(w.start('a\u0000b')).rejects.toMatchObject({ code: 'bad_prompt', status: 400 });
    expect(w.list()).toEqual([]);
  });

  it('a log that cannot be written is no uncaught exception: the session runs on and says why', async () => {
    const logDir = path.join(home, 'voice-users', 'delegates');
    const w = watcher(`console.log('done')`);
    const starting = w.start('task');
    // The log file opens asynchronously: its folder vanishing first (an unplugged disk, a cleanup)
    // makes that open fail. Unheard, that 'error' event was an uncaught exception. (Removed before
    // start() has answered: it answers only after the process spawned, by when the file is open.)
    rmSync(logDir, { recursive: true, force: true });
    const s = await starting;
    const ended = await w.waitFor(s.id);
    expect(ended).toMatchObject({ state: 'succeeded', tail: ['done'] });
    expect(ended.log_error).toMatch(/ENOENT/);
    expect(delivered[0]!.text).toMatch(/^Delegate "d-[0-9a-f]+" finished successfully \(exit 0\)/);
  });

  it("a finished session's log is complete on disk when waitFor resolves", async () => {
    const w = watcher(`console.log('first'); console.log('second')`);
    const s = await w.start('task');
    const ended = await w.waitFor(s.id);
    expect(ended.log_error).toBeUndefined();
    // Read at once, synchronously: nothing else may run before the check.
    const text = readFileSync(ended.log_file, 'utf8');
    expect(text).toMatch(
      /^# delegate d-[0-9a-f]+ started .*\nfirst\nsecond\n[\s\S]*# delegate d-[0-9a-f]+ ended .* state=succeeded exit=0 signal=null\n$/,
    );
  });

  it('cancel stops the process group; status and list show it', async () => {
    const w = watcher(`console.log('working'); setInterval(() => {}, 1000)`, { killGraceMs: 2000 });
    const s = await w.start('long task', 'long');
    for (let i = 0; i < 100 && w.status(s.id).tail.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(w.status(s.id).tail).toEqual(['working']);
    w.cancel(s.id);
    const ended = await w.waitFor(s.id);
    expect(ended).toMatchObject({ state: 'cancelled', signal: 'SIGTERM' });
    expect(w.list().map((v) => v.state)).toEqual(['cancelled']);
    expect(() => w.cancel(s.id)).toThrow(/already cancelled/);
    expect(() => w.status('d-nope')).toThrow(/no delegate session/);
    expect(delivered[0]!.text).toMatch(/^Delegate "long" was cancelled after/);
  });

  it('refuses when not configured, with an empty prompt, or over the concurrency limit', async () => {
    await expect(watcher('', { command: [] }).start('x')).rejects.toThrow(/no delegate command is configured/);
    const w = watcher('setTimeout(() => {}, 5000)', { maxConcurrent: 1 });
    await expect(w.start('  ')).rejects.toThrow(/prompt is required/);
    const s = await w.start('one');
    await expect(w.start('two')).rejects.toThrow(/already running \(limit 1\)/);
    await w.close();
    expect(w.status(s.id).state).toBe('cancelled');
  });

  it('a real delegate child sees no secret: its whole environment, printed to its log, holds none', async () => {
    const secrets = {
      GEMINI_API_KEY: ['fake', 'gemini', 'value', process.pid].join('-'),
      OPENAI_API_KEY: ['fake', 'openai', 'value', process.pid].join('-'),
      DISCORD_BOT_TOKEN: ['fake', 'bot', 'value', process.pid].join('-'),
      DISCORD_VOICE_LIVE_SIDECAR_TOKEN: ['fake', 'sidecar', 'value', process.pid].join('-'),
      AWS_SECRET_ACCESS_KEY: ['fake', 'aws', 'value', process.pid].join('-'),
    };
    const w = watcher('console.log(JSON.stringify(process.env))', { env: { ...process.env, ...secrets } });
    const started = await w.start('print env');
    await w.waitFor(started.id);
    const log = await readFile(started.log_file, 'utf8');
    expect(log).toContain('"PATH"');
    for (const value of Object.values(secrets)) expect(log).not.toContain(value);
    for (const name of Object.keys(secrets)) expect(log).not.toContain(`"${name}"`);
  });

  it('keeps our secrets out of the delegate environment and supports a {prompt} placeholder', () => {
    const env = delegateEnv({
      PATH: '/bin',
      DISCORD_BOT_TOKEN: 'x',
      DISCORD_VOICE_LIVE_SIDECAR_TOKEN: 'y',
      PLATFORM_VOICE_LIVE_WEBHOOK_AGENT_NOTIFY: 'z',
      HOME: '/h',
      GEMINI_API_KEY: 'k',
      OPENAI_API_KEY: 'o',
      LC_ALL: 'C',
    });
    expect(env).toEqual({ PATH: '/bin', HOME: '/h', LC_ALL: 'C' });
    // Passed on only when named, and never our own.
    expect(
      delegateEnv({ PATH: '/bin', AGENT_TOKEN: 'a', DISCORD_BOT_TOKEN: 'x' }, ['AGENT_TOKEN', 'DISCORD_BOT_TOKEN']),
    ).toEqual({ PATH: '/bin', AGENT_TOKEN: 'a' });
    expect(delegateArgv(['agent', 'run', '--task={prompt}', '--yes'], 'do it')).toEqual([
      'agent',
      'run',
      '--task=do it',
      '--yes',
    ]);
    expect(delegateArgv(['agent', 'run'], 'do it')).toEqual(['agent', 'run', 'do it']);
  });
});
