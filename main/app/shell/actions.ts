// What the tray menu and the global shortcuts do: each action goes to the core through the sidecar
// client (as the dashboard's buttons do) or changes a desktop preference. A failure is a native
// notification, never a crash. Binds the tray's action port once everything it needs runs.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { app } from 'electron';
import type { Capability } from '../../core/lifecycle.ts';
import { HIDDEN_ARG } from '../autostart.ts';
import { capturePrimaryScreen } from '../screenshot.ts';
import type { SidecarClient } from '../sidecar-client.ts';
import type { TrayAction } from '../tray-menu.ts';
import type { Updater } from '../updater.ts';
import { autostart, type Shell } from './context.ts';
import type { TrayActionPort } from './tray.ts';

export interface ActionsDeps {
  shell: Shell;
  client: SidecarClient;
  render(): void;
  showDashboard(): void;
  syncTalkKeys(): Promise<void>;
  updater(): Updater | null;
  port: TrayActionPort;
}

export interface ShellActions {
  run(action: TrayAction): Promise<void>;
  pushScreenshot(): Promise<void>;
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

export const actionsCapability: Capability<ActionsDeps, ShellActions> = {
  name: 'tray actions',
  start({ shell, client, render, showDashboard, syncTalkKeys, updater, port }) {
    const { state, notify } = shell;
    async function pushScreenshot(): Promise<void> {
      const shot = await capturePrimaryScreen();
      if (!shot.ok) return notify('Screenshot not sent', shot.error);
      try {
        await client.pushFrame(shot.data, shot.mime);
        notify('Screenshot sent', `${shot.width}×${shot.height} frame pushed to the model.`);
      } catch (err) {
        notify('Screenshot not sent', err instanceof Error ? err.message : String(err));
      }
    }
    async function act(action: TrayAction): Promise<void> {
      switch (action) {
        case 'join':
          return void (await client.join());
        case 'leave':
          return void (await client.leave());
        case 'push-screenshot':
          return await pushScreenshot();
        case 'stop-talking':
          return void (await client.interrupt());
        case 'toggle-mute':
          state.talk = await client.mute(!(state.talk?.muted ?? false));
          return render();
        case 'toggle-ptt':
          state.talk = await client.ptt({ enabled: !(state.talk?.ptt.enabled ?? false) });
          void syncTalkKeys();
          return render();
        case 'install-update':
          return updater()?.install();
        case 'open-dashboard':
          return showDashboard();
        case 'toggle-notifications':
          state.notificationsPaused = shell.updatePrefs({
            notificationsPaused: !shell.prefs().notificationsPaused,
          }).notificationsPaused;
          return render();
        case 'toggle-start-at-login':
          setStartAtLogin(!shell.prefs().startAtLogin);
          state.startAtLogin = shell.updatePrefs({ startAtLogin: !shell.prefs().startAtLogin }).startAtLogin;
          return render();
        case 'quit':
          return app.quit();
      }
    }
    const run = async (action: TrayAction): Promise<void> => {
      try {
        await act(action);
      } catch (err) {
        notify('Live Voice Bridge', err instanceof Error ? err.message : String(err));
      }
    };
    port.bind(run, showDashboard);
    return { api: { run, pushScreenshot }, stop: () => port.unbind() };
  },
};
