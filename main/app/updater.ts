// Auto-update through electron-updater from a generic feed, only when one is configured
// (update-feed.ts); loaded lazily so a run without a feed never loads it. Status goes to the tray.
import type { Logger } from 'pino';
import type { UpdateStatus } from './update-feed.ts';

export interface Updater {
  /** Quit, install the downloaded update and restart. */
  install(): void;
}

const SIX_HOURS_MS = 6 * 3600 * 1000;

export async function startUpdater(options: {
  feedUrl: string;
  logger: Logger;
  onStatus: (status: UpdateStatus) => void;
}): Promise<Updater> {
  const { autoUpdater } = (await import('electron-updater')).default;
  autoUpdater.logger = null;
  autoUpdater.autoDownload = true;
  autoUpdater.autoInstallOnAppQuit = true;
  autoUpdater.setFeedURL({ provider: 'generic', url: options.feedUrl });
  let version = '';
  autoUpdater.on('checking-for-update', () => options.onStatus({ state: 'checking' }));
  autoUpdater.on('update-not-available', () => options.onStatus({ state: 'current' }));
  autoUpdater.on('update-available', (info) => {
    version = info.version;
    options.onStatus({ state: 'downloading', version });
  });
  autoUpdater.on('download-progress', (progress) =>
    options.onStatus({ state: 'downloading', version, percent: progress.percent }),
  );
  autoUpdater.on('update-downloaded', (info) => options.onStatus({ state: 'ready', version: info.version }));
  autoUpdater.on('error', (err) => {
    options.logger.warn({ err }, 'update check failed');
    options.onStatus({ state: 'error', message: 'the last check failed (see the log)' });
  });
  const check = () => void autoUpdater.checkForUpdates().catch(() => undefined); // reported through 'error'
  check();
  setInterval(check, SIX_HOURS_MS).unref();
  return { install: () => autoUpdater.quitAndInstall() };
}
