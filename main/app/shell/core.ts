// The core in the Electron main process, and the client the shell talks to it with (like any other
// client: the sidecar), and the desktop API the dashboard page calls (ipc.ts).
import { app, shell as electronShell, type BrowserWindow } from 'electron';
import { VERSION_LABEL } from '../../core/api-types.ts';
import { startCore, type CoreHandle } from '../../core/core.ts';
import type { Capability } from '../../core/lifecycle.ts';
import { registerIpcHandlers } from '../ipc.ts';
import { logsFolder } from '../logging.ts';
import { capturePrimaryScreen } from '../screenshot.ts';
import { SidecarClient } from '../sidecar-client.ts';
import type { Shell } from './context.ts';

export const coreCapability: Capability<{ shell: Shell; render(): void }, CoreHandle> = {
  name: 'core',
  async start({ shell, render }) {
    const { config, logger, settings } = shell;
    // "Restart now" on the page (POST /restart): relaunch, quitting through the usual shutdown.
    const core = await startCore({
      config,
      logger,
      settingsStore: settings,
      environment: process.env,
      restart: () => (app.relaunch(), app.quit()),
    });
    shell.state.sidecar = 'listening';
    render();
    return { api: core, stop: () => core.stop() };
  },
};

export const clientCapability: Capability<
  { shell: Shell; core: CoreHandle; window: () => BrowserWindow | null },
  SidecarClient
> = {
  name: 'sidecar client',
  start({ shell, core, window }) {
    const unregister = registerIpcHandlers({
      logger: shell.logger,
      dashboardWindow: window,
      sidecarUrl: () => core.sidecarUrl,
      handlers: {
        'lvb:capture-screenshot': () => capturePrimaryScreen(),
        'lvb:app-version': async () => `${app.getVersion()} (${VERSION_LABEL})`,
        'lvb:open-logs-folder': async () => {
          const error = await electronShell.openPath(logsFolder());
          return error ? { ok: false, error } : { ok: true };
        },
      },
    });
    return { api: new SidecarClient({ baseUrl: core.sidecarUrl, token: core.token }), stop: unregister };
  },
};
