// "Restart now" for a shell that runs the core in its own process (headless, the simulated call):
// load the configuration again (saved settings on top of the environment) and start a new core in
// place of the old one.
//
// Whatever happens, something keeps running, and the outcome is said as it is:
// - settings the loader refuses, or a new sidecar port that another program holds (checked before
//   anything is stopped), keep the running core untouched (onFailed);
// - a new core that fails to start anyway (the port taken in between, the same port on a host that
//   cannot be bound, a store that will not open) has closed what it opened (startCore), and a core
//   with the previous settings, the last ones that worked, is started in its place (onFailed, with
//   `restored: true`): the sidecar is back where it was and sign-ins survive;
// - when even the previous settings no longer start, nothing runs: onLost (headless exits non-zero).
//
// Why not start the new core before stopping the old one: two cores in one process would share the
// sidecar port (when it did not change), the Discord bot's login, the schedule file's claims and
// the notes and usage files. Only the sidecar port is checked up front: it is the start failure a
// user can cause from the settings page, and it is cheap to probe (bind, then close at once).
import { createServer } from 'node:net';
import type { RestartOutcome } from '../api-types.ts';
import { ConfigError, type Config } from '../config/index.ts';
import { CodedError } from '../contracts/coded-error.ts';

/**
 * What a restart needs of a running core: where its sidecar listens, and how to stop it. Generic so
 * this module (a floor below the composition root) never imports core.ts; callers get their own type.
 */
export interface RunningCore {
  sidecarUrl: string;
  stop(): Promise<void>;
}

export interface RestartableCoreOptions<Core extends RunningCore = RunningCore> {
  /** The configuration of the first start, when the caller loaded it already. */
  initial?: Config;
  /** Loads the configuration (again at each restart); may throw ConfigError. */
  load(): Promise<Config>;
  /**
   * Starts a core for `config`, wiring `restart` into it (CoreOptions.restart) and `lastRestart`
   * (CoreOptions.lastRestart: how the last restart ended, for GET /settings).
   */
  start(config: Config, restart: () => void, lastRestart: () => RestartOutcome | null): Promise<Core>;
  /** After a restart: the new core (print its URL). */
  onRestarted?(core: Core, config: Config): void;
  /**
   * A restart whose new settings did not take: the loader refused them (ConfigError), or a
   * RestartFailedError (`restored`: the new core failed to start and the previous settings run again;
   * otherwise the running core was never stopped). A core with the previous settings runs either way.
   */
  onFailed?(err: unknown): void;
  /**
   * Neither the new settings nor the previous ones start: no core runs (a RestartFailedError with
   * `lost: true`). The caller should exit; without this option, onFailed is told.
   */
  onLost?(err: RestartFailedError): void;
}

export interface RestartableCore<Core extends RunningCore = RunningCore> {
  /** The core now running (a new object after each restart). */
  readonly core: Core;
  readonly config: Config;
  restart(): void;
  /** Resolves when no restart is in progress. */
  settled(): Promise<void>;
}

/** Why the saved settings did not take at a restart, and what runs instead. */
export class RestartFailedError extends CodedError<'restart_failed'> {
  /** The new core failed to start and the previous settings were started again. */
  readonly restored: boolean;
  /** Not even the previous settings started: no core runs. */
  readonly lost: boolean;
  constructor(message: string, options: { cause: unknown; restored?: boolean; lost?: boolean }) {
    super('restart_failed', message, { cause: options.cause });
    this.restored = options.restored ?? false;
    this.lost = options.lost ?? false;
  }
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function listeningPort(core: RunningCore): number {
  return Number(new URL(core.sidecarUrl).port);
}

/**
 * Null when `host:port` can be bound now, else why not (e.g. EADDRINUSE: another program holds it).
 * The probe closes at once; a program that takes the port in between is met by the fallback.
 */
export function probeSidecarPort(host: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? reason(err)));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(null)));
  });
}

export async function startRestartableCore<Core extends RunningCore>(
  options: RestartableCoreOptions<Core>,
): Promise<RestartableCore<Core>> {
  let config = options.initial ?? (await options.load());
  let restarting: Promise<void> | null = null;
  let last: RestartOutcome | null = null;
  const lastRestart = (): RestartOutcome | null => last;
  const record = (applied: boolean, message: string): void =>
    void (last = { at: new Date().toISOString(), applied, message });

  /** Before stopping anything: a new sidecar port must be free (the running core's own port is, once it stops). */
  const refusal = async (next: Config): Promise<RestartFailedError | null> => {
    const { host, port } = next.sidecar;
    if (port === 0 || port === listeningPort(core)) return null;
    const problem = await probeSidecarPort(host, port);
    if (problem === null) return null;
    const why = problem === 'EADDRINUSE' ? 'another program is using it' : `it cannot be used here: ${problem}`;
    return new RestartFailedError(
      `the saved sidecar port ${port} (on ${host}) is not free: ${why}; nothing was restarted and the core keeps running with its settings on ${core.sidecarUrl}`,
      { cause: problem },
    );
  };

  const restart = (): void => {
    restarting ??= (async () => {
      const next = await options.load();
      const refused = await refusal(next);
      if (refused) throw refused;
      const previous = config;
      await core.stop();
      try {
        core = await options.start(next, restart, lastRestart);
        config = next;
      } catch (err) {
        // startCore closed what the failed start had opened: back to the last settings that worked.
        try {
          core = await options.start(previous, restart, lastRestart);
        } catch (again) {
          const lost = new RestartFailedError(
            `the saved settings did not start (${reason(err)}), nor did the previous ones (${reason(again)}): no core is running`,
            { cause: again, lost: true },
          );
          record(false, lost.message);
          if (options.onLost) options.onLost(lost);
          else options.onFailed?.(lost);
          return;
        }
        throw new RestartFailedError(
          `the saved settings did not start (${reason(err)}); the core runs again with the previous settings on ${core.sidecarUrl}`,
          { cause: err, restored: true },
        );
      }
      record(true, `restarted with the saved settings on ${core.sidecarUrl}`);
      options.onRestarted?.(core, next);
    })()
      .catch((err: unknown) => {
        record(
          false,
          err instanceof ConfigError ? `the saved settings were not applied: ${err.problems.join('; ')}` : reason(err),
        );
        options.onFailed?.(err);
      })
      .finally(() => (restarting = null));
  };
  let core = await options.start(config, restart, lastRestart);
  return {
    get core() {
      return core;
    },
    get config() {
      return config;
    },
    restart,
    settled: async () => {
      await restarting;
    },
  };
}
