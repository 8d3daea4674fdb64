// Delegate watcher behind `local_delegate_execute`: runs the configured delegate command (e.g. an
// agent CLI) as an argument array — never through a shell — in the configured folder, streams its
// output to `<agent home>/voice-users/delegates/<id>.log`, and when it ends tells the user through
// the dispatcher (mode `auto`, so an away user gets a DM) with a short, redacted summary.
// The model only supplies the task text; the command and folder come from configuration.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { NotifyResult } from '../api-types.ts';
import type { Notifier } from './dispatcher.ts';
import { ensurePrivateDir } from '../private-dir.ts';
import { Refusal } from '../contracts/refusal.ts';
import { errorMessage, NotifyInputError, NotifyStateError } from './types.ts';
import { systemClock, type Clock } from '../contracts/clock.ts';

export const DELEGATE_DIR_NAME = 'delegates';
export const MAX_PROMPT_CHARS = 8000;
/** An argv element equal to / containing this is replaced by the task text; otherwise it is appended. */
export const PROMPT_PLACEHOLDER = '{prompt}';
const SUMMARY_MAX_CHARS = 800;
const LINE_MAX_CHARS = 200;

export type DelegateState = 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface DelegateSessionView {
  id: string;
  label: string;
  state: DelegateState;
  pid: number | null;
  /** Epoch seconds. */
  started_at: number;
  ended_at?: number;
  exit_code?: number | null;
  signal?: string | null;
  log_file: string;
  /** Why `log_file` could not be written (its folder gone, the disk full); the session runs on without it. */
  log_error?: string;
  /** Last output lines, redacted. */
  tail: string[];
  /** Status of the finish notification once sent. */
  notified?: NotifyResult['status'];
  error?: string;
}

export interface DelegateWatcherOptions {
  /** argv from config (DISCORD_VOICE_LIVE_DELEGATE_COMMAND); empty = not configured. */
  command: readonly string[];
  /** Working folder from config (DISCORD_VOICE_LIVE_DELEGATE_CWD). */
  cwd: string;
  /** `<agent home>/voice-users/delegates`. */
  logDir: string;
  notifier: Pick<Notifier, 'deliver'>;
  logger: Logger;
  /** Secret scrubber for the summary (the `sora_redact` rules). */
  redact: (text: string) => string;
  clock?: Clock;
  /** Base environment; only the allow-list (and `passEnv`) reaches the child. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Extra variable names passed through (DISCORD_VOICE_LIVE_DELEGATE_ENV). */
  passEnv?: readonly string[];
  maxConcurrent?: number;
  tailLines?: number;
  /** After cancel's SIGTERM, SIGKILL the process group if it is still running. Default 5 s. */
  killGraceMs?: number;
}

/**
 * The configured delegate command could not be started (not found, not executable, its folder
 * missing): a configuration problem here, not the caller's. Answered 503 `delegate_unavailable`;
 * nothing runs and no session is kept.
 */
export class DelegateUnavailableError extends Refusal<'delegate_unavailable'> {
  constructor(message: string) {
    super('delegate_unavailable', message, 503);
  }
}

export interface DelegateWatcher {
  readonly configured: boolean;
  /**
   * Resolves once the command has started (its `spawn` event): the session is running, `pid` set.
   * Rejects with DelegateUnavailableError when it cannot start, keeping no session and sending no
   * notification (the caller hears it at once); with NotifyInputError/NotifyStateError for bad
   * input, no command configured, or too many running.
   */
  start(prompt: string, label?: string): Promise<DelegateSessionView>;
  list(): DelegateSessionView[];
  /** Forget finished sessions that ended more than `maxAgeSeconds` ago (retention). Returns how many. */
  prune(maxAgeSeconds: number): number;
  status(id: string): DelegateSessionView;
  cancel(id: string): DelegateSessionView;
  /** Resolves once the session has ended and its notification was attempted. */
  waitFor(id: string): Promise<DelegateSessionView>;
  /** Cancel every running session (app shutdown). */
  close(): Promise<void>;
}

/**
 * What a delegate may see of our environment: an allow-list (where it runs and how it prints), plus
 * names the user passed on explicitly (DISCORD_VOICE_LIVE_DELEGATE_ENV). A deny-list leaked every
 * secret it did not know by name (GEMINI_API_KEY reached a delegate's log); this cannot. Our own
 * names (DISCORD_VOICE_LIVE_*, PLATFORM_VOICE_LIVE_*, DISCORD_BOT_TOKEN) are refused even if listed.
 */
const DELEGATE_ENV_ALLOWED = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TERM',
  'TZ',
  'TMPDIR',
  'TEMP',
  'TMP',
  'COLORTERM',
  'NO_COLOR',
  // Windows: programs do not start without these.
  'SYSTEMROOT',
  'SystemRoot',
  'COMSPEC',
  'ComSpec',
  'PATHEXT',
  'WINDIR',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
  'HOMEDRIVE',
  'HOMEPATH',
]);
const ALLOWED_PREFIXES = /^(LC_|XDG_)/;
const OURS = /^(DISCORD_VOICE_LIVE_|PLATFORM_VOICE_LIVE_)|^DISCORD_BOT_TOKEN$/;

export function delegateEnv(base: NodeJS.ProcessEnv, passThrough: readonly string[] = []): NodeJS.ProcessEnv {
  const extra = new Set(passThrough);
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) {
    if (OURS.test(key)) continue;
    if (DELEGATE_ENV_ALLOWED.has(key) || ALLOWED_PREFIXES.test(key) || extra.has(key)) env[key] = value;
  }
  return env;
}

export function delegateArgv(command: readonly string[], prompt: string): string[] {
  return command.some((a) => a.includes(PROMPT_PLACEHOLDER))
    ? command.map((a) => a.split(PROMPT_PLACEHOLDER).join(prompt))
    : [...command, prompt];
}

function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

// eslint-disable-next-line no-control-regex -- matching terminal escape sequences is the point
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

/** How long close() waits after SIGTERM before SIGKILL (and after SIGKILL for the exit). */
const CLOSE_GRACE_MS = 1500;

function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([work.then(() => true), bound]).finally(() => clearTimeout(timer));
}

/** The task text as the command will get it; throws the caller's mistake as a NotifyInputError. */
function validTask(prompt: string): string {
  const task = prompt.trim();
  if (!task) throw new NotifyInputError('empty_prompt', 'prompt is required');
  if (task.length > MAX_PROMPT_CHARS)
    throw new NotifyInputError('prompt_too_long', `prompt is longer than ${MAX_PROMPT_CHARS} characters`);
  // An argument cannot carry a NUL: spawn() would throw on it. The task text's fault, so a 400.
  if (task.includes('\0')) throw new NotifyInputError('bad_prompt', 'prompt must not contain NUL characters');
  return task;
}

/** What one run needs of the watcher. */
interface RunContext {
  options: DelegateWatcherOptions;
  log: Logger;
  tailLines: number;
  nowS(): number;
  /** The run never started: the watcher forgets it. */
  forget(id: string): void;
}

/** One delegate run: its log file, its process (own process group), its output tail and its end. */
class DelegateRun {
  readonly view: DelegateSessionView;
  readonly done: Promise<DelegateSessionView>;
  cancelRequested = false;
  #child: ChildProcess | null = null;
  readonly #logStream: WriteStream;
  readonly #logClosed: Promise<void>;
  readonly #ctx: RunContext;
  #partial = '';
  #killTimer: NodeJS.Timeout | undefined;
  #finished = false;
  #resolveDone!: (view: DelegateSessionView) => void;

  constructor(ctx: RunContext, id: string, label: string | undefined) {
    this.#ctx = ctx;
    const logFile = path.join(ctx.options.logDir, `${id}.log`);
    this.view = {
      id,
      label: (label ?? '').replace(/\s+/g, ' ').trim().slice(0, 80) || id,
      state: 'running',
      pid: null,
      started_at: ctx.nowS(),
      log_file: logFile,
      tail: [],
    };
    this.done = new Promise((resolve) => (this.#resolveDone = resolve));
    ensurePrivateDir(ctx.options.logDir);
    this.#logStream = createWriteStream(logFile, { flags: 'a', mode: 0o600 });
    // The file opens asynchronously; a failure then (or on a later write) is an 'error' event,
    // which unheard is an uncaught exception (a fault in /health headless, Electron's error
    // dialog in the desktop app). The session runs on and says what happened.
    this.#logStream.on('error', (err) => {
      if (this.view.log_error) return;
      this.view.log_error = errorMessage(err);
      ctx.log.warn({ id, err: this.view.log_error }, 'delegate log cannot be written; the session runs on without it');
    });
    // Emitted once the file is closed after end(), or after an error: `done` waits for it, so a
    // finished session's log is complete on disk (or its view says why not).
    this.#logClosed = new Promise<void>((resolve) => this.#logStream.once('close', resolve));
    this.#logStream.write(
      `# delegate ${id} started ${this.#iso()} command=${path.basename(ctx.options.command[0]!)}\n`,
    );
  }

  get running(): boolean {
    return this.view.state === 'running';
  }

  snapshot(): DelegateSessionView {
    return { ...this.view, tail: [...this.view.tail] };
  }

  /**
   * Resolves once the command has started (its `spawn` event). A command that does not exist
   * (ENOENT), is not executable (EACCES) or whose folder is gone fails only after spawn() returned,
   * as an 'error' event instead of 'spawn': this answers after one of the two, so the caller never
   * hears "started" for a command that never ran.
   */
  async spawn(task: string): Promise<void> {
    const { options } = this.#ctx;
    const [cmd, ...args] = delegateArgv(options.command, task);
    let child: ChildProcess;
    try {
      // Own process group (detached), so cancel reaches whatever the agent CLI spawned.
      child = spawn(cmd!, args, {
        cwd: options.cwd,
        env: delegateEnv(options.env ?? process.env, options.passEnv),
        stdio: ['ignore', 'pipe', 'pipe'],
        shell: false,
        detached: true,
      });
    } catch (err) {
      throw this.#notStarted(errorMessage(err));
    }
    this.#child = child;
    this.view.pid = child.pid ?? null;
    child.stdout?.setEncoding('utf8').on('data', (d: string) => this.#pushOutput(d));
    child.stderr?.setEncoding('utf8').on('data', (d: string) => this.#pushOutput(d));
    const spawnError = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
      child.once('spawn', () => resolve(null));
      child.once('error', (err: NodeJS.ErrnoException) => resolve(err));
    });
    if (spawnError) {
      child.stdout?.destroy();
      child.stderr?.destroy();
      throw this.#notStarted(spawnError.code ?? spawnError.message);
    }
    child.on('error', (err: NodeJS.ErrnoException) => this.#finish(null, null, err.code ?? err.message));
    child.on('close', (code, signal) => this.#finish(code, signal));
  }

  /** SIGTERM to the process group, SIGKILL after `graceMs` if it is still running. */
  cancel(graceMs: number): void {
    this.cancelRequested = true;
    if (!this.#child?.pid) return;
    this.signalGroup('SIGTERM');
    this.#killTimer = setTimeout(() => this.signalGroup('SIGKILL'), graceMs);
  }

  /** Signal the run's whole process group (its own, see spawn), or the child alone if that fails. */
  signalGroup(signal: NodeJS.Signals): void {
    const pid = this.#child?.pid;
    if (!pid) return;
    try {
      process.kill(-pid, signal);
    } catch {
      this.#child?.kill(signal);
    }
  }

  #iso(): string {
    return new Date(this.#ctx.nowS() * 1000).toISOString();
  }

  #pushOutput(chunk: string): void {
    this.#logStream.write(chunk);
    const text = (this.#partial + chunk).replace(ANSI, '');
    const lines = text.split(/\r?\n|\r/);
    this.#partial = lines.pop()!.slice(-2000);
    const tail = this.view.tail;
    for (const line of lines) {
      if (line.trim() === '') continue;
      tail.push(this.#ctx.options.redact(line.trim()).slice(0, LINE_MAX_CHARS));
      if (tail.length > this.#ctx.tailLines) tail.shift();
    }
  }

  #finish(exitCode: number | null, signal: string | null, error?: string): void {
    if (this.#finished) return;
    this.#finished = true;
    clearTimeout(this.#killTimer);
    if (this.#partial.trim()) this.#pushOutput('\n');
    const view = this.view;
    Object.assign(view, { ended_at: this.#ctx.nowS(), exit_code: exitCode, signal }, error ? { error } : {});
    view.state = this.cancelRequested ? 'cancelled' : !error && exitCode === 0 ? 'succeeded' : 'failed';
    this.#logStream.end(
      `\n# delegate ${view.id} ended ${this.#iso()} state=${view.state} exit=${exitCode} signal=${signal}\n`,
    );
    this.#ctx.log.info({ id: view.id, state: view.state, exitCode, signal }, 'delegate session ended');
    this.#ctx.options.notifier
      .deliver({ text: this.#summary(), mode: 'auto', title: 'Delegate finished', source: 'delegate' })
      .then((result) => (view.notified = result.status))
      .catch((err: unknown) => {
        view.notified = 'error';
        this.#ctx.log.warn({ id: view.id, err: errorMessage(err) }, 'delegate finish notification failed');
      })
      .finally(() => void this.#logClosed.then(() => this.#resolveDone(this.snapshot())));
  }

  /**
   * The command never started: no session is kept (it is dropped from the list, its `done`
   * settles for close()), nobody is notified, and the caller gets a 503 `delegate_unavailable`
   * at once instead of a "started" that was not true.
   */
  #notStarted(reason: string): DelegateUnavailableError {
    this.#finished = true;
    Object.assign(this.view, { ended_at: this.#ctx.nowS(), state: 'failed', error: reason });
    this.#ctx.forget(this.view.id);
    this.#logStream.end(`# delegate ${this.view.id} could not start: ${reason}\n`);
    void this.#logClosed.then(() => this.#resolveDone(this.snapshot()));
    const name = path.basename(this.#ctx.options.command[0]!);
    this.#ctx.log.warn({ id: this.view.id, command: name, err: reason }, 'delegate command could not be started');
    return new DelegateUnavailableError(
      `the delegate command "${name}" could not be started (${reason}); nothing was started. ` +
        'Check DISCORD_VOICE_LIVE_DELEGATE_COMMAND (the program must exist and be executable) and DISCORD_VOICE_LIVE_DELEGATE_CWD (the folder must exist).',
    );
  }

  #summary(): string {
    const view = this.view;
    const took = formatDuration((view.ended_at ?? this.#ctx.nowS()) - view.started_at);
    const head =
      view.state === 'succeeded'
        ? `Delegate "${view.label}" finished successfully (exit 0) after ${took}.`
        : view.state === 'cancelled'
          ? `Delegate "${view.label}" was cancelled after ${took}.`
          : view.error
            ? `Delegate "${view.label}" could not run: ${view.error}.`
            : `Delegate "${view.label}" failed (${view.signal ? `signal ${view.signal}` : `exit ${view.exit_code}`}) after ${took}.`;
    const tail = view.tail.length ? `\nLast lines:\n${view.tail.join('\n')}` : '';
    return this.#ctx.options.redact(head + tail).slice(0, SUMMARY_MAX_CHARS);
  }
}

/** The delegate sessions of this core: at most `maxConcurrent` running, each a DelegateRun. */
class DelegateSessions implements DelegateWatcher {
  readonly configured: boolean;
  readonly #runs = new Map<string, DelegateRun>();
  readonly #maxConcurrent: number;
  readonly #killGraceMs: number;
  readonly #ctx: RunContext;

  constructor(options: DelegateWatcherOptions) {
    const clock = options.clock ?? systemClock;
    this.configured = options.command.length > 0;
    this.#maxConcurrent = options.maxConcurrent ?? 2;
    this.#killGraceMs = options.killGraceMs ?? 5000;
    this.#ctx = {
      options,
      log: options.logger,
      tailLines: options.tailLines ?? 5,
      nowS: () => clock.now() / 1000,
      forget: (id) => this.#runs.delete(id),
    };
  }

  async start(prompt: string, label?: string): Promise<DelegateSessionView> {
    if (!this.configured)
      throw new NotifyInputError(
        'not_configured',
        'no delegate command is configured (DISCORD_VOICE_LIVE_DELEGATE_COMMAND)',
      );
    const task = validTask(prompt);
    const running = this.#running().length;
    if (running >= this.#maxConcurrent)
      throw new NotifyStateError(
        'conflict',
        `${running} delegate sessions are already running (limit ${this.#maxConcurrent})`,
      );
    const run = new DelegateRun(this.#ctx, `d-${randomBytes(4).toString('hex')}`, label);
    this.#runs.set(run.view.id, run);
    await run.spawn(task);
    this.#ctx.log.info({ id: run.view.id, pid: run.view.pid }, 'delegate session started');
    return run.snapshot();
  }

  list(): DelegateSessionView[] {
    return [...this.#runs.values()].map((run) => run.snapshot());
  }

  prune(maxAgeSeconds: number): number {
    const cutoff = this.#ctx.nowS() - maxAgeSeconds;
    let removed = 0;
    for (const [id, run] of this.#runs) {
      if (!run.running && (run.view.ended_at ?? Infinity) < cutoff) {
        this.#runs.delete(id);
        removed++;
      }
    }
    return removed;
  }

  status(id: string): DelegateSessionView {
    return this.#get(id).snapshot();
  }

  cancel(id: string): DelegateSessionView {
    const run = this.#get(id);
    if (!run.running) throw new NotifyStateError('conflict', `delegate ${id} already ${run.view.state}`);
    run.cancel(this.#killGraceMs);
    return run.snapshot();
  }

  waitFor(id: string): Promise<DelegateSessionView> {
    return this.#get(id).done;
  }

  async close(): Promise<void> {
    // Ended with the core, whatever they do with SIGTERM: a bounded wait, then SIGKILL to the
    // whole group, BEFORE close() resolves (a kill timer would never fire once the process exits).
    const running = this.#running();
    for (const run of running) if (!run.cancelRequested) this.cancel(run.view.id);
    const allDone = Promise.all(running.map((run) => run.done));
    if (!(await settlesWithin(allDone, Math.min(this.#killGraceMs, CLOSE_GRACE_MS)))) {
      for (const run of running) if (run.running) run.signalGroup('SIGKILL');
      await settlesWithin(allDone, CLOSE_GRACE_MS);
    }
  }

  #running(): DelegateRun[] {
    return [...this.#runs.values()].filter((run) => run.running);
  }

  #get(id: string): DelegateRun {
    const run = this.#runs.get(id);
    if (!run) throw new NotifyStateError('not_found', `no delegate session with id ${JSON.stringify(id)}`);
    return run;
  }
}

export function createDelegateWatcher(options: DelegateWatcherOptions): DelegateWatcher {
  return new DelegateSessions(options);
}
