// Electron main process: the composition root of the desktop shell, a list of capabilities
// (main/app/shell/*) in dependency order on the core's lifecycle contract (main/core/lifecycle.ts):
// single-instance lock first, then config, the tray, the core (in-process), and only once our own
// sidecar listens the dashboard, the event stream, the keys and the updater. ONE stop list: quitting
// stops them newest first (the core within its budget, the tray last); a start that fails after the
// core stops what had started. A core that does not start leaves the tray up with the reason and a
// window offering Retry, the logs, or Quit.
import path from 'node:path';
import { app, dialog, shell as electronShell } from 'electron';
import { ConfigError, loadConfig } from '../core/config/index.ts';
import { SHUTDOWN_BUDGET_MS } from '../core/core.ts';
import { Lifecycle } from '../core/lifecycle.ts';
import { HIDDEN_ARG } from './autostart.ts';
import { createElectronSettingsStore } from './electron-settings.ts';
import { createAppLogger, logsFolder } from './logging.ts';
import { actionsCapability } from './shell/actions.ts';
import { createShell, type Shell } from './shell/context.ts';
import { clientCapability, coreCapability } from './shell/core.ts';
import { dashboardCapability } from './shell/dashboard.ts';
import { eventsCapability } from './shell/events.ts';
import { quitCapability } from './shell/quit.ts';
import { shortcutsCapability } from './shell/shortcuts.ts';
import { talkKeysCapability } from './shell/talk-keys.ts';
import { TrayActionPort, trayCapability } from './shell/tray.ts';
import { updaterCapability } from './shell/updater.ts';
import { describeStartFailure } from './start-failure.ts';

const APP_ID = 'com.livevoicebridge.app';

// A separate profile (tests, a second account): set before the lock, which is per profile folder.
if (process.env.LVB_USER_DATA_DIR) app.setPath('userData', path.resolve(process.env.LVB_USER_DATA_DIR));

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.setAppUserModelId(APP_ID);
  app
    .whenReady()
    .then(start)
    .catch((err: unknown) => fail('startup failed', err));
}

function fail(title: string, err: unknown): void {
  dialog.showErrorBox(`Live Voice Bridge: ${title}`, err instanceof Error ? err.message : String(err));
  app.exit(1);
}

/** The shell's context: settings first (they feed the config), then the config and the logger. */
async function loadShell(): Promise<Shell | null> {
  // Settings are read before the config, so they log through a first logger without known secrets;
  // the pattern redactor still applies in createLogger.
  const settings = createElectronSettingsStore(createAppLogger({ level: 'warn', secrets: [] }));
  try {
    const config = loadConfig({ env: process.env, settings: await settings.configValues() });
    return createShell({
      config,
      settings,
      logger: createAppLogger({ level: config.logLevel, secrets: config.secretValues }),
    });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    fail('configuration problem', err);
    return null;
  }
}

async function start(): Promise<void> {
  const shell = await loadShell();
  if (!shell) return;
  const life = new Lifecycle({ budgetMs: SHUTDOWN_BUDGET_MS + 1000, log: shell.logger });
  const port = new TrayActionPort();
  const { render } = await life.start(trayCapability, { shell, actions: port });
  const { quitting } = await life.start(quitCapability, { stopAll: () => life.stop() });
  const core = await life
    .start(coreCapability, { shell, render })
    .catch((err: unknown) => void startFailed(shell, render, err));
  if (!core) return;
  try {
    const dashboard = await life.start(dashboardCapability, { shell, core, quitting });
    const client = await life.start(clientCapability, { shell, core, window: dashboard.window });
    const { sync: syncTalkKeys } = await life.start(talkKeysCapability, { shell, client, render });
    await life.start(eventsCapability, { shell, client, render, syncTalkKeys, window: dashboard.window });
    const { updater } = await life.start(updaterCapability, { shell, render });
    const actions = await life.start(actionsCapability, {
      shell,
      client,
      render,
      showDashboard: dashboard.show,
      syncTalkKeys,
      updater,
      port,
    });
    await life.start(shortcutsCapability, { shell, actions, render });
    if (!process.argv.includes(HIDDEN_ARG)) dashboard.show();
  } catch (err) {
    await life.stop();
    throw err;
  }
}

/** The core did not start: the tray says why, and a small window gives the cause, the fix and a way on (retry, the logs, or quit). */
async function startFailed(shell: Shell, render: () => void, err: unknown): Promise<void> {
  const failure = describeStartFailure(err, { port: shell.config.sidecar.port, logsFolder: logsFolder() });
  Object.assign(shell.state, { sidecar: 'failed', problem: failure.short });
  render();
  shell.logger.error({ err }, 'core failed to start');
  const choice = await dialog.showMessageBox({
    type: 'error',
    title: `Live Voice Bridge: ${failure.title}`,
    message: failure.cause,
    detail: failure.fix,
    buttons: ['Retry', 'Open logs folder', 'Quit'],
    defaultId: 0,
    cancelId: 2,
    noLink: true,
  });
  if (choice.response === 0) {
    app.relaunch();
    app.exit(0);
  } else if (choice.response === 1) {
    await electronShell.openPath(logsFolder());
  } else {
    app.quit();
  }
}
