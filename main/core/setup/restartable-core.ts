// "Restart now" for a shell that runs the core in its own process (headless, the simulated call):
// load the configuration again (saved settings on top of the environment) and start a new core in
// place of the old one. A configuration the loader refuses keeps the running core and says why.
import type { Config } from '../config/index.ts';
import type { CoreHandle } from '../core.ts';

export interface RestartableCoreOptions {
  /** The configuration of the first start, when the caller loaded it already. */
  initial?: Config;
  /** Loads the configuration (again at each restart); may throw ConfigError. */
  load(): Promise<Config>;
  /** Starts a core for `config`, wiring `restart` into it (CoreOptions.restart). */
  start(config: Config, restart: () => void): Promise<CoreHandle>;
  /** After a restart: the new core (print its URL). */
  onRestarted?(core: CoreHandle, config: Config): void;
  /** A restart that did not happen (the saved settings do not load) or failed. */
  onFailed?(err: unknown): void;
}

export interface RestartableCore {
  /** The core now running (a new object after each restart). */
  readonly core: CoreHandle;
  readonly config: Config;
  restart(): void;
  /** Resolves when no restart is in progress. */
  settled(): Promise<void>;
}

export async function startRestartableCore(options: RestartableCoreOptions): Promise<RestartableCore> {
  let config = options.initial ?? (await options.load());
  let restarting: Promise<void> | null = null;
  const restart = (): void => {
    restarting ??= (async () => {
      const next = await options.load();
      await core.stop();
      config = next;
      core = await options.start(next, restart);
      options.onRestarted?.(core, next);
    })()
      .catch((err: unknown) => options.onFailed?.(err))
      .finally(() => (restarting = null));
  };
  let core = await options.start(config, restart);
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
