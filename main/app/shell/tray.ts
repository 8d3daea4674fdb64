// The tray, first up and last down: it shows "starting", then the sidecar (or why it failed), the
// call and the talk state. Its menu actions reach the dispatcher through a late-bound port (why: the
// tray exists before the core, the client and the updater the actions need; until they are bound,
// only Quit works, which is all a shell whose core did not start can offer from the menu).
import { app } from 'electron';
import type { Capability } from '../../core/lifecycle.ts';
import { AppTray } from '../tray.ts';
import type { TrayAction } from '../tray-menu.ts';
import type { Shell } from './context.ts';

export class TrayActionPort {
  private run: ((action: TrayAction) => Promise<void>) | null = null;
  private click: (() => void) | null = null;

  bind(run: (action: TrayAction) => Promise<void>, click: () => void): void {
    this.run = run;
    this.click = click;
  }

  /** Back to Quit only (the dispatcher has stopped). */
  unbind(): void {
    this.run = null;
    this.click = null;
  }

  action(action: TrayAction): void {
    if (this.run) void this.run(action);
    else if (action === 'quit') app.quit();
  }

  clicked(): void {
    this.click?.();
  }
}

export const trayCapability: Capability<{ shell: Shell; actions: TrayActionPort }, { render(): void }> = {
  name: 'tray',
  start({ shell, actions }) {
    const tray = new AppTray(
      shell.resourcesDir,
      (action) => actions.action(action),
      () => actions.clicked(),
    );
    const render = () => tray.render(shell.state);
    render();
    return { api: { render }, stop: () => tray.destroy() };
  },
};
