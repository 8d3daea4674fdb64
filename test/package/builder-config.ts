// electron-builder.yml read and validated the way electron-builder itself does (the CLI has no
// validate-only command; these internals are pinned with electron-builder 26.17.0).
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
export const repoRoot = path.resolve(import.meta.dirname, '../..');

export type BuilderConfig = Record<string, unknown> & {
  appId: string;
  productName: string;
  asarUnpack: string[];
  electronFuses: Record<string, boolean>;
  linux: { target: string[]; icon: string; executableName: string };
  win: { target: string[]; icon: string };
  mac: {
    target: string[];
    icon: string;
    extendInfo: Record<string, string>;
    entitlements: string;
    entitlementsInherit: string;
  };
  publish: unknown;
  files: unknown;
};

export async function loadBuilderConfig(file = 'electron-builder.yml'): Promise<BuilderConfig> {
  const { getConfig } = require('app-builder-lib/out/util/config/config') as {
    getConfig: (dir: string, file: string, extra: null) => Promise<BuilderConfig>;
  };
  return getConfig(repoRoot, file, null);
}

export async function validateBuilderConfig(config: unknown): Promise<void> {
  const { validateConfiguration } = require('app-builder-lib/out/util/config/config') as {
    validateConfiguration: (c: unknown, log: unknown) => Promise<void>;
  };
  const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };
  await validateConfiguration(config, new DebugLogger(false));
}
