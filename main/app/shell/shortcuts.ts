// The global shortcuts (screenshot, mute): registered once, clashes shown in the tray and the log,
// all unregistered at quit.
import { globalShortcut } from 'electron';
import type { Capability } from '../../core/lifecycle.ts';
import { applyShortcut } from '../shortcut.ts';
import type { ShortcutBinding } from '../shortcuts.ts';
import type { Shell } from './context.ts';
import type { ShellActions } from './actions.ts';

export const shortcutsCapability: Capability<{ shell: Shell; actions: ShellActions; render(): void }, void> = {
  name: 'shortcuts',
  start({ shell, actions, render }) {
    const { state, logger } = shell;
    const registered = (b: ShortcutBinding, run: () => void): string | null => {
      if (b.invalid) return null;
      const outcome = applyShortcut(globalShortcut, b.accelerator, null, run);
      if (outcome.error) {
        logger.warn({ reason: outcome.error }, `${b.label} shortcut not registered`);
        state.shortcutWarnings = [...(state.shortcutWarnings ?? []), `${b.label}: ${outcome.error}`];
      }
      return outcome.active;
    };
    state.shortcut = registered(shell.binding('screenshot'), () => void actions.pushScreenshot());
    state.muteShortcut = registered(shell.binding('mute'), () => void actions.run('toggle-mute'));
    if (state.shortcutWarnings?.length) logger.warn({ warnings: state.shortcutWarnings }, 'key bindings to look at');
    render();
    return { api: undefined, stop: () => globalShortcut.unregisterAll() };
  },
};
