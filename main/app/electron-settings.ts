// The Electron shell's SettingsStore: electron-store (a conf subclass, atomic JSON in userData,
// validated against the same JSON Schema as headless) plus safeStorage for secrets.
import path from 'node:path';
import { app } from 'electron';
import ElectronStore from 'electron-store';
import type { Logger } from 'pino';
import {
  backingFromConf,
  openConfTolerantly,
  SETTINGS_FILE_NAME,
  settingsStoreSchema,
} from '../core/settings/conf-store.ts';
import { KeyValueSettingsStore } from '../core/settings/store.ts';
import { createSafeStorageVault } from './safe-storage-vault.ts';

export function createElectronSettingsStore(logger: Logger): KeyValueSettingsStore {
  const open = () =>
    new ElectronStore<Record<string, unknown>>({ name: SETTINGS_FILE_NAME, schema: settingsStoreSchema() });
  const store = openConfTolerantly(open, path.join(app.getPath('userData'), `${SETTINGS_FILE_NAME}.json`), logger);
  return new KeyValueSettingsStore({
    backing: backingFromConf(store),
    vault: createSafeStorageVault(),
    onRejected: (keys) => logger.warn({ keys }, 'ignored invalid settings'),
  });
}
