// Headless settings: a `conf` JSON file (atomic writes, JSON Schema on every write) in a folder the
// caller picks, usually `<agent home>/voice-users`. The Electron shell uses electron-store, which is
// the same `conf` underneath, through the same `settingsStoreSchema()`.
import { chmodSync, existsSync, renameSync } from 'node:fs';
import path from 'node:path';
import Conf from 'conf';
import type { Logger } from 'pino';
import { settingsValuesJsonSchema } from './schema.ts';
import type { SecretVault } from './secret-policy.ts';
import { KeyValueSettingsStore, type SettingsBacking } from './store.ts';
import { ensurePrivateDir } from '../private-dir.ts';

export const SETTINGS_FILE_NAME = 'settings';

/** Per-key JSON Schema for the settings file (conf/electron-store `schema` option). */
export function settingsStoreSchema(): Record<string, Record<string, unknown>> {
  return {
    values: { type: 'object', properties: settingsValuesJsonSchema() },
    secrets: { type: 'object', additionalProperties: { type: 'string' } },
    secretBackend: { type: 'string' },
    desktop: { type: 'object' },
  };
}

/** The subset of a conf instance the store uses, so electron-store instances fit too. */
export interface ConfLike {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
  delete(key: string): void;
  readonly path: string;
}

export function backingFromConf(store: ConfLike): SettingsBacking {
  return {
    get: (key) => store.get(key),
    set: (key, value) => store.set(key, value),
    delete: (key) => store.delete(key),
  };
}

/** `2026-11-27T15-45-06Z`: a time that sorts and is safe in a file name everywhere. */
export function fileTimeStamp(date = new Date()): string {
  return date
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-');
}

/**
 * Open a conf-style store; if the file on disk is damaged (not JSON) or breaks its schema (hand
 * edit, older version), keep it as `<file>.corrupt-<time>` and start from an empty store instead of
 * refusing to start, with a warning naming the copy (on stderr when there is no logger yet).
 */
export function openConfTolerantly<T extends ConfLike>(open: () => T, file: string, logger?: Logger): T {
  try {
    return open();
  } catch (err) {
    const aside = `${file}.corrupt-${fileTimeStamp()}`;
    try {
      renameSync(file, aside);
    } catch {
      throw new Error(`cannot read the settings file ${file}: ${(err as Error).message}`, { cause: err });
    }
    const message = `settings file ${file} was damaged; kept it as ${aside} and started with defaults`;
    if (logger) logger.warn({ file, keptAs: aside, reason: (err as Error).message }, message);
    else process.stderr.write(`warning: ${message} (${(err as Error).message})\n`);
    return open();
  }
}

export interface ConfSettingsStoreOptions {
  /** Folder of `settings.json`. */
  dir: string;
  vault?: SecretVault;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
}

export function createConfSettingsStore(options: ConfSettingsStoreOptions): KeyValueSettingsStore {
  // Before conf creates it with the default mode (0755).
  ensurePrivateDir(options.dir);
  const open = () =>
    new Conf<Record<string, unknown>>({
      projectName: 'live-voice-bridge',
      cwd: options.dir,
      configName: SETTINGS_FILE_NAME,
      schema: settingsStoreSchema(),
      // Settings written by a newer or older version are validated by zod on read, not migrated.
      projectVersion: undefined,
      // Owner-only: headless secrets (private-file vault) live in this file.
      configFileMode: 0o600,
    });
  const file = path.join(options.dir, `${SETTINGS_FILE_NAME}.json`);
  // A file written by an older version with the default mode is narrowed before any secret lands in it.
  if (existsSync(file)) chmodSync(file, 0o600);
  const conf = openConfTolerantly(open as () => ConfLike & Conf<Record<string, unknown>>, file, options.logger);
  return new KeyValueSettingsStore({
    backing: backingFromConf(conf),
    vault: options.vault,
    env: options.env,
    onRejected: (keys) => options.logger?.warn({ keys }, 'ignored invalid settings'),
  });
}
