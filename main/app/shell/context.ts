// What every capability of the Electron shell shares: the logger, the saved desktop preferences,
// the tray's state (rendered by the tray capability), native notifications and the key bindings.
import { homedir } from 'node:os';
import path from 'node:path';
import { app, Notification } from 'electron';
import type { Logger } from 'pino';
import type { Config } from '../../core/config/index.ts';
import type { DesktopPrefs } from '../../core/settings/schema.ts';
import type { KeyValueSettingsStore } from '../../core/settings/store.ts';
import { autostartMethod } from '../autostart.ts';
import { describeConflicts, resolveShortcuts, type ShortcutBinding } from '../shortcuts.ts';
import type { TrayState } from '../tray-menu.ts';

export interface Shell {
  logger: Logger;
  config: Config;
  settings: KeyValueSettingsStore;
  /** What the tray shows; a capability changes it, then calls render() (from the tray capability). */
  state: TrayState;
  prefs(): DesktopPrefs;
  updatePrefs(patch: Partial<DesktopPrefs>): DesktopPrefs;
  binding(id: ShortcutBinding['id']): ShortcutBinding;
  /** A quiet native notification, where the desktop has them. */
  notify(title: string, body: string): void;
  appRoot: string;
  resourcesDir: string;
}

export function createShell(options: { config: Config; logger: Logger; settings: KeyValueSettingsStore }): Shell {
  const { config, settings } = options;
  let prefs = settings.desktopPrefs();
  const bindings = resolveShortcuts(
    { screenshot: prefs.screenshotShortcut, mute: prefs.muteShortcut, talk: prefs.talkKey },
    process.env,
    process.platform,
  );
  const appRoot = app.getAppPath();
  return {
    ...options,
    state: {
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
      // Clashes are shown (tray, log), not refused: the user may have chosen the key on purpose.
      shortcutWarnings: bindings.flatMap((b) => {
        const why = b.invalid ?? describeConflicts(b.conflicts);
        return why ? [`${b.label} (${b.accelerator}): ${why}`] : [];
      }),
      update: { state: 'off' },
    },
    prefs: () => prefs,
    updatePrefs: (patch) => (prefs = settings.updateDesktopPrefs(patch)),
    binding: (id) => bindings.find((b) => b.id === id)!,
    notify: (title, body) => {
      if (Notification.isSupported()) new Notification({ title, body, silent: true }).show();
    },
    appRoot,
    resourcesDir: path.join(appRoot, 'resources'),
  };
}

export function autostart() {
  return autostartMethod({
    platform: process.platform,
    execPath: process.execPath,
    appImage: process.env.APPIMAGE,
    configHome: process.env.XDG_CONFIG_HOME || path.join(homedir(), '.config'),
    isPackaged: app.isPackaged,
  });
}
