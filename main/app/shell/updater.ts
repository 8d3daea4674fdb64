// Auto-update from the configured feed (off without one); its state shows in the tray, and
// "Install update" reaches it through updater().
import type { Capability } from '../../core/lifecycle.ts';
import { updateFeed } from '../update-feed.ts';
import { startUpdater, type Updater } from '../updater.ts';
import type { Shell } from './context.ts';

export const updaterCapability: Capability<{ shell: Shell; render(): void }, { updater(): Updater | null }> = {
  name: 'updater',
  start({ shell, render }) {
    const { state, logger } = shell;
    let updater: Updater | null = null;
    const feed = updateFeed(process.env, shell.prefs().updateFeedUrl);
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
    return { api: { updater: () => updater }, stop: () => undefined };
  },
};
