// The headless shell's one capability: a core that "Restart now" on the page restarts in this
// process with the saved settings (setup/restartable-core.ts); dashboard sign-ins survive it, so the
// page reconnects by itself. Stopping waits for a restart in progress, so the core it starts is the
// one stopped (core.stop() bounds itself: SHUTDOWN_BUDGET_MS).
import type { Logger } from 'pino';
import { ConfigError, type Config } from '../core/config/index.ts';
import { startCore, type CoreHandle } from '../core/core.ts';
import type { Capability } from '../core/lifecycle.ts';
import type { SettingsStore } from '../core/settings/store.ts';
import { startRestartableCore, type RestartableCore } from '../core/setup/restartable-core.ts';
import { DashboardSessions } from '../core/sidecar/sessions.ts';

export interface HeadlessCoreDeps {
  initial: Config;
  load: () => Promise<Config>;
  logger: Logger;
  settingsStore: SettingsStore;
  /** Neither the saved settings nor the previous ones start after a restart: nothing runs. */
  onLost: () => void;
}

export const headlessCoreCapability: Capability<HeadlessCoreDeps, RestartableCore<CoreHandle>> = {
  name: 'core',
  async start({ initial, load, logger, settingsStore, onLost }) {
    const sessions = new DashboardSessions();
    const running = await startRestartableCore({
      initial,
      load,
      start: (next, restart, lastRestart) =>
        startCore({ config: next, logger, settingsStore, environment: process.env, restart, lastRestart, sessions }),
      onRestarted: (next) => process.stdout.write(`Restarted with the saved settings: sidecar on ${next.sidecarUrl}\n`),
      onFailed: (err) =>
        logger.error(
          { problems: err instanceof ConfigError ? err.problems : [err instanceof Error ? err.message : String(err)] },
          'restart: the saved settings were not applied; the core runs with the previous ones',
        ),
      onLost: (err) => {
        logger.fatal({ problems: [err.message] }, 'restart: no core could be started; exiting');
        onLost();
      },
    });
    return { api: running, stop: () => running.settled().then(() => running.core.stop()) };
  },
};
