// `live-voice-bridge` / `live-voice-bridge headless`: the core and the sidecar in this process. Loaded
// only for this command (cli.ts imports it on demand): the client commands never pay for the core.
import path from 'node:path';
import { ConfigError, loadConfig } from '../core/config/index.ts';
import { createLogger } from '../core/log/logger.ts';
import { SHUTDOWN_BUDGET_MS } from '../core/core.ts';
import { Lifecycle } from '../core/lifecycle.ts';
import { handleShutdownSignals } from '../core/shutdown-signals.ts';
import { installLastResortHandlers } from '../core/process-guard.ts';
import { createConfSettingsStore } from '../core/settings/conf-store.ts';
import { privateFileVault } from '../core/setup/private-file-vault.ts';
import { redactText } from '../core/tools/helpers/index.ts';
import { terminalLogFormat } from '../core/log/terminal-format.ts';
import { headlessCoreCapability } from './headless-core.ts';
import { unconfiguredParagraph } from './terminal.ts';

function loadCliConfig() {
  return loadConfig({ env: process.env, envFile: path.resolve('.env') });
}

/** Runs until a signal; a configuration the loader refuses is printed and exits 2 (bad configuration). */
export async function runHeadlessCommand(): Promise<number> {
  try {
    return await runHeadless();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`live-voice-bridge: ${err.message}\n`);
    return 2;
  }
}

async function runHeadless(): Promise<number> {
  // Settings saved from the dashboard live under the agent home, which the environment names:
  // read the environment once to find them, then load again with them on top.
  const envConfig = loadCliConfig();
  // No keychain here: secrets typed on /setup go to the settings file, owner-only (0600).
  const settingsStore = createConfSettingsStore({ dir: envConfig.paths.voiceUsers, vault: privateFileVault() });
  const load = async () =>
    loadConfig({
      env: process.env,
      envFile: path.resolve('.env'),
      settings: await settingsStore.configValues(),
      settingsFile: path.join(envConfig.paths.voiceUsers, 'settings.json'),
    });
  const config = await load();
  const logger = createLogger({
    level: config.logLevel,
    secrets: config.secretValues,
    redactText,
    ...terminalLogFormat(config.logFormat, process.stderr, process.env),
  });
  installLastResortHandlers(logger);
  // The shell's lifecycle: one capability (the restartable core), one stop list (lifecycle.ts).
  const life = new Lifecycle({ budgetMs: SHUTDOWN_BUDGET_MS, log: logger });
  // Neither the saved settings nor the previous ones start after a restart: nothing runs, so exit 1.
  let exitLost: (code: number) => void = (code) => void (process.exitCode = code);
  const running = await life.start(headlessCoreCapability, {
    initial: config,
    load,
    logger,
    settingsStore,
    onLost: () => exitLost(1),
  });
  process.stdout.write(
    `Live Voice Bridge sidecar on ${running.core.sidecarUrl} — dashboard: ${running.core.loginUrl()}\n`,
  );
  const unconfigured = unconfiguredParagraph(running.core.missing, path.resolve('.env'));
  if (unconfigured) process.stdout.write(`\n${unconfigured}\n\n`);
  return await new Promise<number>((resolve) => {
    exitLost = resolve;
    // Ours alone: no library may re-raise the signal or exit on our behalf (see shutdown-signals.ts).
    handleShutdownSignals((signal) => {
      logger.info({ signal }, 'shutting down');
      // The stop list bounds itself (SHUTDOWN_BUDGET_MS); this is the net under it.
      setTimeout(() => {
        logger.error('shutdown did not finish in time; exiting');
        resolve(0);
      }, SHUTDOWN_BUDGET_MS + 1000).unref();
      void life.stop().then(() => resolve(0));
    });
  });
}
