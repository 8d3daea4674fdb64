// The dashboard window: created on demand (tray click, "Open dashboard", a second launch, the macOS
// dock), each time logged in with a fresh one-time URL; closing it hides it to the tray (with a
// one-time notice) unless the app is quitting.
import path from 'node:path';
import { app, type BrowserWindow } from 'electron';
import type { CoreHandle } from '../../core/core.ts';
import type { Capability } from '../../core/lifecycle.ts';
import { closeAction } from '../window-policy.ts';
import { createDashboardWindow } from '../window.ts';
import type { Shell } from './context.ts';

export interface DashboardApi {
  show(): void;
  /** The window, while one exists (IPC checks the sender against it). */
  window(): BrowserWindow | null;
}

export const dashboardCapability: Capability<
  { shell: Shell; core: CoreHandle; quitting: () => boolean },
  DashboardApi
> = {
  name: 'dashboard',
  start({ shell, core, quitting }) {
    let window: BrowserWindow | null = null;
    const preloadPath = path.join(shell.appRoot, 'dist', 'preload', 'preload.cjs');
    const show = (): void => {
      if (window && !window.isDestroyed()) {
        if (window.isMinimized()) window.restore();
        window.show();
        window.focus();
        return;
      }
      const created = createDashboardWindow({
        preloadPath,
        iconPath: path.join(shell.resourcesDir, 'icon.png'),
        sidecarUrl: core.sidecarUrl,
        logger: shell.logger,
      });
      window = created;
      created.on('close', (event) => {
        const action = closeAction({ quitting: quitting(), shownTrayNotice: shell.prefs().shownTrayNotice });
        if (action === 'close') return;
        event.preventDefault();
        created.hide();
        if (action === 'hide-with-notice') {
          shell.updatePrefs({ shownTrayNotice: true });
          shell.notify(
            'Live Voice Bridge is still running',
            'It lives in the tray now; use the tray icon to open the dashboard or quit.',
          );
        }
      });
      // A fresh one-time login URL: the nonce becomes an HttpOnly session cookie for this window.
      void created.loadURL(core.loginUrl());
    };
    app.on('second-instance', show);
    // macOS: clicking the dock icon with no window open shows the dashboard again.
    app.on('activate', show);
    return {
      api: { show, window: () => window },
      stop: () => {
        app.off('second-instance', show);
        app.off('activate', show);
      },
    };
  },
};
