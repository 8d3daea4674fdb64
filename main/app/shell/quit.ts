// Quitting: Electron's will-quit is held (preventDefault) until the shell's lifecycle has stopped
// (the core within its budget, the tray last), then the app quits again and this time goes.
// `before-quit` marks the quit so closing the dashboard window really closes it.
import { app } from 'electron';
import type { Capability } from '../../core/lifecycle.ts';

export const quitCapability: Capability<{ stopAll: () => Promise<void> }, { quitting(): boolean }> = {
  name: 'quit',
  start({ stopAll }) {
    let quitting = false;
    let stopped = false;
    app.on('before-quit', () => {
      quitting = true;
    });
    app.on('will-quit', (event) => {
      if (stopped) return;
      stopped = true;
      event.preventDefault();
      void stopAll().finally(() => app.quit());
    });
    // A tray app keeps running with no window open.
    app.on('window-all-closed', () => undefined);
    return { api: { quitting: () => quitting }, stop: () => undefined };
  },
};
