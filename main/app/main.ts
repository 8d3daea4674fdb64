// Electron main process: the composition root of the desktop shell. Order matters:
// single-instance lock first, then config and the core (in-process), and only once our own
// sidecar listens does the dashboard window load its one-time login URL.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { app, dialog, globalShortcut, Notification, shell } from 'electron';
import type { BrowserWindow } from 'electron';
import type { Logger } from 'pino';
import { VERSION_LABEL } from '../core/api-types.ts';
import { ConfigError, loadConfig } from '../core/config/index.ts';
import { startCore, type CoreHandle } from '../core/core.ts';
import { autostartMethod, HIDDEN_ARG } from './autostart.ts';
import { DeliveryWatcher } from './delivery-watch.ts';
import { createElectronSettingsStore } from './electron-settings.ts';
import { registerIpcHandlers } from './ipc.ts';
import { createAppLogger, logsFolder } from './logging.ts';
import { capturePrimaryScreen } from './screenshot.ts';
import { applyShortcut } from './shortcut.ts';
import { describeConflicts, resolveShortcuts, type ShortcutBinding } from './shortcuts.ts';
import { SidecarClient } from './sidecar-client.ts';
import { describeStartFailure } from './start-failure.ts';
import { spawnTalkKeyProcess } from './talk-key-process.ts';
import { startTalkKeys, type TalkKeys } from './talk-keys.ts';
import { updateFeed } from './update-feed.ts';
import { startUpdater, type Updater } from './updater.ts';
import { AppTray } from './tray.ts';
import type { TrayAction, TrayState } from './tray-menu.ts';
import { closeAction, shouldNotifyNatively } from './window-policy.ts';
import { createDashboardWindow } from './window.ts';

const APP_ID = 'com.livevoicebridge.app';
const appRoot = app.getAppPath();
const resourcesDir = path.join(appRoot, 'resources');
const preloadPath = path.join(appRoot, 'dist', 'preload', 'preload.cjs');

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

async function start(): Promise<void> {
  // Settings are read before the config (they feed it), so they log through a first logger
  // without known secrets; the pattern redactor still applies in createLogger.
  const bootLogger = createAppLogger({ level: 'warn', secrets: [] });
  const settings = createElectronSettingsStore(bootLogger);
  let prefs = settings.desktopPrefs();

  let config;
  try {
    config = loadConfig({ env: process.env, settings: await settings.configValues() });
  } catch (err) {
    if (err instanceof ConfigError) return fail('configuration problem', err);
    throw err;
  }
  const logger: Logger = createAppLogger({ level: config.logLevel, secrets: config.secretValues });

  const state: TrayState = {
    bridge: 'unknown',
    sidecar: 'starting',
    notificationsPaused: prefs.notificationsPaused,
    startAtLogin: prefs.startAtLogin,
    startAtLoginSupported: autostart().kind !== 'unsupported',
    shortcut: null,
    port: config.sidecar.port,
    talk: null,
    modelSpeaking: false,
    muteShortcut: null,
    talkKeys: null,
    shortcutWarnings: [],
    update: { state: 'off' },
  };
  const bindings = resolveShortcuts({ screenshot: prefs.screenshotShortcut, mute: prefs.muteShortcut, talk: prefs.talkKey }, process.env, process.platform);
  const binding = (id: ShortcutBinding['id']) => bindings.find((b) => b.id === id)!;
  // Clashes are shown (tray, log), not refused: the user may have chosen the key on purpose.
  state.shortcutWarnings = bindings.flatMap((b) => {
    const why = b.invalid ?? describeConflicts(b.conflicts);
    return why ? [`${b.label} (${b.accelerator}): ${why}`] : [];
  });
  let quitting = false;
  let window: BrowserWindow | null = null;
  let core: CoreHandle | null = null;
  let client: SidecarClient | null = null;
  const tray = new AppTray(resourcesDir, (action) => void onTrayAction(action), () => showDashboard());
  const render = () => tray.render(state);
  render();

  const notify = (title: string, body: string) => {
    if (Notification.isSupported()) new Notification({ title, body, silent: true }).show();
  };

  // macOS: clicking the dock icon with no window open shows the dashboard again.
  app.on('activate', () => (core ? showDashboard() : undefined));

  try {
    // "Restart now" on the page (POST /restart): relaunch, quitting through the usual shutdown.
    core = await startCore({ config, logger, settingsStore: settings, environment: process.env, restart: () => (app.relaunch(), app.quit()) });
  } catch (err) {
    const failure = describeStartFailure(err, { port: config.sidecar.port, logsFolder: logsFolder() });
    state.sidecar = 'failed';
    state.problem = failure.short;
    render();
    logger.error({ err }, 'core failed to start');
    void showStartFailure(failure);
    return;
  }
  const running = core;
  client = new SidecarClient({ baseUrl: running.sidecarUrl, token: running.token });
  state.sidecar = 'listening';
  render();

  registerIpcHandlers({
    logger,
    dashboardWindow: () => window,
    sidecarUrl: () => running.sidecarUrl,
    handlers: {
      'lvb:capture-screenshot': () => capturePrimaryScreen(),
      'lvb:app-version': async () => `${app.getVersion()} (${VERSION_LABEL})`,
      'lvb:open-logs-folder': async () => {
        const error = await shell.openPath(logsFolder());
        return error ? { ok: false, error } : { ok: true };
      },
    },
  });

  // During a call, /health every 5 s: the tooltip says when someone cannot be decrypted (DAVE).
  let decryptionTimer: NodeJS.Timeout | null = null;
  const watchDecryption = (): void => {
    if (state.bridge !== 'connected') {
      if (decryptionTimer) clearInterval(decryptionTimer);
      decryptionTimer = null;
      if (state.undecryptable?.length) state.undecryptable = [];
      return;
    }
    decryptionTimer ??= setInterval(() => {
      void client?.undecryptableSpeakers().then((ids) => {
        if (ids.join() === (state.undecryptable ?? []).join()) return;
        state.undecryptable = ids;
        render();
      }, () => undefined);
    }, 5000);
  };

  // The tray follows /events like any other client.
  const events = new AbortController();
  const deliveries = new DeliveryWatcher();
  void client.followEvents(
    (event) => {
      if (event.type === 'state') {
        state.bridge = event.data.state;
        state.problem = event.data.reason;
        watchDecryption();
        render();
      } else if (event.type === 'talk') {
        state.talk = event.data;
        void syncTalkKeys();
        render();
      } else if (event.type === 'levels') {
        // 10 a second during a call: re-render only when the icon would change.
        const speaking = event.data.output.rms > 0;
        if (speaking !== state.modelSpeaking) {
          state.modelSpeaking = speaking;
          render();
        }
      } else if (event.type === 'schedule') {
        for (const entry of deliveries.observe(event.data.changed)) {
          const visible = window !== null && !window.isDestroyed() && window.isVisible() && !window.isMinimized();
          if (shouldNotifyNatively({ windowVisible: visible, paused: state.notificationsPaused, alreadyNotified: false })) notify(entry.title ?? 'Notification delivered', entry.text);
        }
      }
    },
    events.signal,
    (up) => {
      if (!up) logger.warn('lost the sidecar event stream; retrying');
    },
  );

  const registered = (b: ShortcutBinding, run: () => void): string | null => {
    if (b.invalid) return null;
    const outcome = applyShortcut(globalShortcut, b.accelerator, null, run);
    if (outcome.error) {
      logger.warn({ reason: outcome.error }, `${b.label} shortcut not registered`);
      state.shortcutWarnings = [...(state.shortcutWarnings ?? []), `${b.label}: ${outcome.error}`];
    }
    return outcome.active;
  };
  state.shortcut = registered(binding('screenshot'), () => void pushScreenshot());
  state.muteShortcut = registered(binding('mute'), () => void onTrayAction('toggle-mute'));
  if (state.shortcutWarnings?.length) logger.warn({ warnings: state.shortcutWarnings }, 'key bindings to look at');
  render();

  // The global hold key runs only while push-to-talk mode is on (no keyboard hook otherwise).
  let talkKeys: TalkKeys | null = null;
  let talkKeysStarting = false;
  async function syncTalkKeys(): Promise<void> {
    const wanted = state.talk?.ptt.enabled === true;
    if (!wanted && talkKeys) {
      talkKeys.stop();
      talkKeys = null;
      state.talkKeys = null;
      return render();
    }
    if (!wanted || talkKeys || talkKeysStarting) return;
    talkKeysStarting = true;
    const keys = await startTalkKeys({
      accelerator: binding('talk').accelerator,
      platform: process.platform,
      env: process.env,
      spawn: () => spawnTalkKeyProcess(path.join(appRoot, 'dist', 'main', 'app', 'talk-key-worker.js')),
      onHold: (held) => void client?.ptt({ held }).catch((err: unknown) => logger.warn({ err }, 'push-to-talk key not applied')),
      onLost: (reason) => {
        logger.warn({ reason }, 'push-to-talk keys stopped');
        talkKeys = null;
        state.talkKeys = { available: false, reason };
        render();
      },
    });
    talkKeysStarting = false;
    if (!keys.status.available) logger.warn({ reason: keys.status.reason }, 'push-to-talk keys off');
    // Push-to-talk may have been switched off while the hook was loading.
    if (state.talk?.ptt.enabled !== true) keys.stop();
    else talkKeys = keys;
    state.talkKeys = keys.status;
    render();
  }

  let updater: Updater | null = null;
  const feed = updateFeed(process.env, prefs.updateFeedUrl);
  if (feed.url !== null) {
    startUpdater({ feedUrl: feed.url, logger, onStatus: (status) => ((state.update = status), render()) }).then(
      (started) => (updater = started),
      (err: unknown) => {
        logger.warn({ err }, 'auto-update could not start');
        state.update = { state: 'error', message: 'could not start (see the log)' };
        render();
      },
    );
  } else {
    state.update = { state: 'off', ...(feed.problem ? { problem: feed.problem } : {}) };
    render();
  }

  function showDashboard(): void {
    if (!window || window.isDestroyed()) {
      window = createDashboardWindow({ preloadPath, iconPath: path.join(resourcesDir, 'icon.png'), sidecarUrl: running.sidecarUrl, logger });
      window.on('close', (event) => {
        const action = closeAction({ quitting, shownTrayNotice: prefs.shownTrayNotice });
        if (action === 'close') return;
        event.preventDefault();
        window?.hide();
        if (action === 'hide-with-notice') {
          prefs = settings.updateDesktopPrefs({ shownTrayNotice: true });
          notify('Live Voice Bridge is still running', 'It lives in the tray now; use the tray icon to open the dashboard or quit.');
        }
      });
      // A fresh one-time login URL: the nonce becomes an HttpOnly session cookie for this window.
      void window.loadURL(running.loginUrl());
      return;
    }
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
  }

  async function pushScreenshot(): Promise<void> {
    const shot = await capturePrimaryScreen();
    if (!shot.ok) return notify('Screenshot not sent', shot.error);
    try {
      await client!.pushFrame(shot.data, shot.mime);
      notify('Screenshot sent', `${shot.width}×${shot.height} frame pushed to the model.`);
    } catch (err) {
      notify('Screenshot not sent', err instanceof Error ? err.message : String(err));
    }
  }

  async function onTrayAction(action: TrayAction): Promise<void> {
    try {
      switch (action) {
        case 'join':
          await client!.join();
          return;
        case 'leave':
          await client!.leave();
          return;
        case 'push-screenshot':
          return await pushScreenshot();
        case 'stop-talking':
          await client!.interrupt();
          return;
        case 'toggle-mute':
          state.talk = await client!.mute(!(state.talk?.muted ?? false));
          return render();
        case 'toggle-ptt':
          state.talk = await client!.ptt({ enabled: !(state.talk?.ptt.enabled ?? false) });
          void syncTalkKeys();
          return render();
        case 'install-update':
          updater?.install();
          return;
        case 'open-dashboard':
          return showDashboard();
        case 'toggle-notifications':
          prefs = settings.updateDesktopPrefs({ notificationsPaused: !prefs.notificationsPaused });
          state.notificationsPaused = prefs.notificationsPaused;
          return render();
        case 'toggle-start-at-login':
          setStartAtLogin(!prefs.startAtLogin);
          prefs = settings.updateDesktopPrefs({ startAtLogin: !prefs.startAtLogin });
          state.startAtLogin = prefs.startAtLogin;
          return render();
        case 'quit':
          app.quit();
          return;
      }
    } catch (err) {
      notify('Live Voice Bridge', err instanceof Error ? err.message : String(err));
    }
  }

  app.on('second-instance', () => showDashboard());
  // A tray app keeps running with no window open.
  app.on('window-all-closed', () => undefined);
  app.on('before-quit', () => {
    quitting = true;
  });
  app.on('will-quit', (event) => {
    globalShortcut.unregisterAll();
    talkKeys?.stop();
    if (!core) return;
    event.preventDefault();
    events.abort();
    if (decryptionTimer) clearInterval(decryptionTimer);
    const stopping = core;
    core = null;
    stopping.stop().finally(() => {
      tray.destroy();
      app.quit();
    });
  });

  if (!process.argv.includes(HIDDEN_ARG)) showDashboard();
}

/** The start failure in a small window: the cause, the fix, and a way on (retry, the logs, or quit). */
async function showStartFailure(failure: { title: string; cause: string; fix: string }): Promise<void> {
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
    await shell.openPath(logsFolder());
  } else {
    app.quit();
  }
}

function autostart() {
  return autostartMethod({
    platform: process.platform,
    execPath: process.execPath,
    appImage: process.env.APPIMAGE,
    configHome: process.env.XDG_CONFIG_HOME || path.join(homedir(), '.config'),
    isPackaged: app.isPackaged,
  });
}

function setStartAtLogin(enabled: boolean): void {
  const method = autostart();
  if (method.kind === 'login-item') app.setLoginItemSettings({ openAtLogin: enabled, args: [HIDDEN_ARG] });
  else if (method.kind === 'xdg') {
    if (enabled) {
      mkdirSync(path.dirname(method.file), { recursive: true });
      writeFileSync(method.file, method.contents, { mode: 0o644 });
    } else rmSync(method.file, { force: true });
  }
}
