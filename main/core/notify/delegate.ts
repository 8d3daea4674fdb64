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
  'PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TERM', 'TZ', 'TMPDIR', 'TEMP', 'TMP', 'COLORTERM', 'NO_COLOR',
  // Windows: programs do not start without these.
  'SYSTEMROOT', 'SystemRoot', 'COMSPEC', 'ComSpec', 'PATHEXT', 'WINDIR', 'USERPROFILE', 'APPDATA', 'LOCALAPPDATA', 'HOMEDRIVE', 'HOMEPATH',
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

interface Session {
  view: DelegateSessionView;
  child: ChildProcess | null;
  log: WriteStream;
  partial: string;
  done: Promise<DelegateSessionView>;
  killTimer?: NodeJS.Timeout;
  cancelRequested: boolean;
}

/** How long close() waits after SIGTERM before SIGKILL (and after SIGKILL for the exit). */
const CLOSE_GRACE_MS = 1500;

/** Signal a session's whole process group (its own, see spawn), or the child alone if that fails. */
function signalGroup(session: Session, signal: NodeJS.Signals): void {
  const pid = session.child?.pid;
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    session.child?.kill(signal);
  }
}

function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([work.then(() => true), bound]).finally(() => clearTimeout(timer));
}

export function createDelegateWatcher(options: DelegateWatcherOptions): DelegateWatcher {
  const clock = options.clock ?? systemClock;
  const log = options.logger;
  const maxConcurrent = options.maxConcurrent ?? 2;
  const tailLines = options.tailLines ?? 5;
  const killGraceMs = options.killGraceMs ?? 5000;
  const sessions = new Map<string, Session>();
  const nowS = (): number => clock.now() / 1000;

  function pushOutput(session: Session, chunk: string): void {
    session.log.write(chunk);
    const text = (session.partial + chunk).replace(ANSI, '');
    const lines = text.split(/\r?\n|\r/);
    session.partial = lines.pop()!.slice(-2000);
    for (const line of lines) {
      if (line.trim() === '') continue;
      session.view.tail.push(options.redact(line.trim()).slice(0, LINE_MAX_CHARS));
      if (session.view.tail.length > tailLines) session.view.tail.shift();
    }
  }

  function summary(view: DelegateSessionView): string {
    const took = formatDuration((view.ended_at ?? nowS()) - view.started_at);
    const head =
      view.state === 'succeeded'
        ? `Delegate "${view.label}" finished successfully (exit 0) after ${took}.`
        : view.state === 'cancelled'
          ? `Delegate "${view.label}" was cancelled after ${took}.`
          : view.error
            ? `Delegate "${view.label}" could not run: ${view.error}.`
            : `Delegate "${view.label}" failed (${view.signal ? `signal ${view.signal}` : `exit ${view.exit_code}`}) after ${took}.`;
    const tail = view.tail.length ? `\nLast lines:\n${view.tail.join('\n')}` : '';
    return options.redact(head + tail).slice(0, SUMMARY_MAX_CHARS);
  }

  function snapshot(session: Session): DelegateSessionView {
    return { ...session.view, tail: [...session.view.tail] };
  }

  function get(id: string): Session {
    const session = sessions.get(id);
    if (!session) throw new NotifyStateError('not_found', `no delegate session with id ${JSON.stringify(id)}`);
    return session;
  }

  const watcher: DelegateWatcher = {
    configured: options.command.length > 0,
    async start(prompt, label) {
      if (options.command.length === 0) throw new NotifyInputError('not_configured', 'no delegate command is configured (DISCORD_VOICE_LIVE_DELEGATE_COMMAND)');
      const task = prompt.trim();
      if (!task) throw new NotifyInputError('empty_prompt', 'prompt is required');
      if (task.length > MAX_PROMPT_CHARS) throw new NotifyInputError('prompt_too_long', `prompt is longer than ${MAX_PROMPT_CHARS} characters`);
      // An argument cannot carry a NUL: spawn() would throw on it. The task text's fault, so a 400.
      if (task.includes('\0')) throw new NotifyInputError('bad_prompt', 'prompt must not contain NUL characters');
      const running = [...sessions.values()].filter((s) => s.view.state === 'running').length;
      if (running >= maxConcurrent) throw new NotifyStateError('conflict', `${running} delegate sessions are already running (limit ${maxConcurrent})`);

      const id = `d-${randomBytes(4).toString('hex')}`;
      ensurePrivateDir(options.logDir);
      const logFile = path.join(options.logDir, `${id}.log`);
      const view: DelegateSessionView = {
        id,
        label: (label ?? '').replace(/\s+/g, ' ').trim().slice(0, 80) || id,
        state: 'running',
        pid: null,
        started_at: nowS(),
        log_file: logFile,
        tail: [],
      };
      const logStream = createWriteStream(logFile, { flags: 'a', mode: 0o600 });
      // The file opens asynchronously; a failure then (or on a later write) is an 'error' event,
      // which unheard is an uncaught exception (a fault in /health headless, Electron's error
      // dialog in the desktop app). The session runs on and says what happened.
      logStream.on('error', (err) => {
        if (view.log_error) return;
        view.log_error = errorMessage(err);
        log.warn({ id, err: view.log_error }, 'delegate log cannot be written; the session runs on without it');
      });
      // Emitted once the file is closed after end(), or after an error: `done` waits for it, so a
      // finished session's log is complete on disk (or its view says why not).
      const logClosed = new Promise<void>((resolve) => logStream.once('close', resolve));
      logStream.write(`# delegate ${id} started ${new Date(clock.now()).toISOString()} command=${path.basename(options.command[0]!)}\n`);

      let resolveDone!: (v: DelegateSessionView) => void;
      const session: Session = { view, child: null, log: logStream, partial: '', cancelRequested: false, done: new Promise((r) => (resolveDone = r)) };
      sessions.set(id, session);

      let finished = false;
      const finish = (exitCode: number | null, signal: string | null, error?: string): void => {
        if (finished) return;
        finished = true;
        clearTimeout(session.killTimer);
        if (session.partial.trim()) pushOutput(session, '\n');
        view.ended_at = nowS();
        view.exit_code = exitCode;
        view.signal = signal;
        if (error) view.error = error;
        view.state = session.cancelRequested ? 'cancelled' : !error && exitCode === 0 ? 'succeeded' : 'failed';
        logStream.end(`\n# delegate ${id} ended ${new Date(clock.now()).toISOString()} state=${view.state} exit=${exitCode} signal=${signal}\n`);
        log.info({ id, state: view.state, exitCode, signal }, 'delegate session ended');
        options.notifier
          .deliver({ text: summary(view), mode: 'auto', title: 'Delegate finished', source: 'delegate' })
          .then((result) => (view.notified = result.status))
          .catch((err: unknown) => {
            view.notified = 'error';
            log.warn({ id, err: errorMessage(err) }, 'delegate finish notification failed');
          })
          .finally(() => void logClosed.then(() => resolveDone(snapshot(session))));
      };

      /**
       * The command never started: no session is kept (it is dropped from the list, its `done`
       * settles for close()), nobody is notified, and the caller gets a 503 `delegate_unavailable`
       * at once instead of a "started" that was not true.
       */
      const notStarted = (reason: string): DelegateUnavailableError => {
        finished = true;
        view.ended_at = nowS();
        view.state = 'failed';
        view.error = reason;
        sessions.delete(id);
        logStream.end(`# delegate ${id} could not start: ${reason}\n`);
        void logClosed.then(() => resolveDone(snapshot(session)));
        const name = path.basename(options.command[0]!);
        log.warn({ id, command: name, err: reason }, 'delegate command could not be started');
        return new DelegateUnavailableError(
          `the delegate command "${name}" could not be started (${reason}); nothing was started. ` +
            'Check DISCORD_VOICE_LIVE_DELEGATE_COMMAND (the program must exist and be executable) and DISCORD_VOICE_LIVE_DELEGATE_CWD (the folder must exist).',
        );
      };

      const [cmd, ...args] = delegateArgv(options.command, task);
      let child: ChildProcess;
      try {
        child = spawn(cmd!, args, {
          cwd: options.cwd,
          env: delegateEnv(options.env ?? process.env, options.passEnv),
          stdio: ['ignore', 'pipe', 'pipe'],
          shell: false,
          // Own process group, so cancel reaches whatever the agent CLI spawned.
          detached: true,
        });
      } catch (err) {
        throw notStarted(errorMessage(err));
      }
      session.child = child;
      view.pid = child.pid ?? null;
      child.stdout?.setEncoding('utf8').on('data', (d: string) => pushOutput(session, d));
      child.stderr?.setEncoding('utf8').on('data', (d: string) => pushOutput(session, d));
      // A command that does not exist (ENOENT), is not executable (EACCES) or whose folder is gone
      // fails only after spawn() returned, as an 'error' event instead of 'spawn': answer after
      // one of the two, so the caller never hears "started" for a command that never ran.
      const spawnError = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
        child.once('spawn', () => resolve(null));
        child.once('error', (err: NodeJS.ErrnoException) => resolve(err));
      });
      if (spawnError) {
        child.stdout?.destroy();
        child.stderr?.destroy();
        throw notStarted(spawnError.code ?? spawnError.message);
      }
      child.on('error', (err: NodeJS.ErrnoException) => finish(null, null, err.code ?? err.message));
      child.on('close', (code, signal) => finish(code, signal));
      log.info({ id, pid: view.pid }, 'delegate session started');
      return snapshot(session);
    },
    list: () => [...sessions.values()].map(snapshot),
    prune(maxAgeSeconds) {
      const cutoff = nowS() - maxAgeSeconds;
      let removed = 0;
      for (const [id, s] of sessions) {
        if (s.view.state !== 'running' && (s.view.ended_at ?? Infinity) < cutoff) {
          sessions.delete(id);
          removed++;
        }
      }
      return removed;
    },
    status: (id) => snapshot(get(id)),
    cancel(id) {
      const session = get(id);
      if (session.view.state !== 'running') throw new NotifyStateError('conflict', `delegate ${id} already ${session.view.state}`);
      session.cancelRequested = true;
      if (session.child?.pid) {
        signalGroup(session, 'SIGTERM');
        session.killTimer = setTimeout(() => signalGroup(session, 'SIGKILL'), killGraceMs);
      }
      return snapshot(session);
    },
    waitFor: (id) => get(id).done,
    async close() {
      // Ended with the core, whatever they do with SIGTERM: a bounded wait, then SIGKILL to the
      // whole group, BEFORE close() resolves (a kill timer would never fire once the process exits).
      const running = [...sessions.values()].filter((s) => s.view.state === 'running');
      for (const s of running) if (!s.cancelRequested) watcher.cancel(s.view.id);
      const allDone = Promise.all(running.map((s) => s.done));
      if (!(await settlesWithin(allDone, Math.min(killGraceMs, CLOSE_GRACE_MS)))) {
        for (const s of running) if (s.view.state === 'running') signalGroup(s, 'SIGKILL');
        await settlesWithin(allDone, CLOSE_GRACE_MS);
      }
    },
  };
  return watcher;
}
