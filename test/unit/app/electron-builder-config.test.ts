// The installer config is checked offline with electron-builder's own schema validator (the CLI
// has no validate-only command; these internals are pinned with electron-builder 26.17.0).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const root = path.resolve(import.meta.dirname, '../../..');

type BuilderConfig = Record<string, unknown> & {
  appId: string;
  productName: string;
  asarUnpack: string[];
  electronFuses: Record<string, boolean>;
  linux: { target: string[]; icon: string };
  win: { target: string[]; icon: string };
  mac: { target: string[]; icon: string; extendInfo: Record<string, string>; entitlements: string };
  files: unknown;
};

async function loadConfig(file: string): Promise<BuilderConfig> {
  const { getConfig } = require('app-builder-lib/out/util/config/config') as { getConfig: (dir: string, file: string, extra: null) => Promise<BuilderConfig> };
  return getConfig(root, file, null);
}

async function validate(config: unknown): Promise<void> {
  const { validateConfiguration } = require('app-builder-lib/out/util/config/config') as { validateConfiguration: (c: unknown, log: unknown) => Promise<void> };
  const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };
  await validateConfiguration(config, new DebugLogger(false));
}

describe('electron-builder.yml', () => {
  it('passes electron-builder schema validation', async () => {
    const config = await loadConfig('electron-builder.yml');
    await expect(validate(config)).resolves.toBeUndefined();
  });

  it('a broken config is refused by the same validator (the check can fail)', async () => {
    const config = await loadConfig('electron-builder.yml');
    await expect(validate({ ...config, notAKey: true })).rejects.toThrow(/unknown property 'notAKey'/);
  });

  it('names the product, targets and usage strings from the issue', async () => {
    const config = await loadConfig('electron-builder.yml');
    expect(config.appId).toBe('com.livevoicebridge.app');
    expect(config.productName).toBe('Live Voice Bridge');
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.win.target).toEqual(['nsis']);
    expect(config.mac.target).toContain('dmg');
    expect(config.mac.extendInfo.NSMicrophoneUsageDescription).toMatch(/microphone/);
    expect(config.mac.extendInfo.NSScreenCaptureUsageDescription).toMatch(/screen/);
  });

  it('unpacks the native modules and hardens the fuses', async () => {
    const config = await loadConfig('electron-builder.yml');
    for (const mod of ['@discordjs/opus', '@snazzah', 'sharp']) expect(config.asarUnpack).toContain(`node_modules/${mod}/**`);
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      onlyLoadAppFromAsar: true,
      enableEmbeddedAsarIntegrityValidation: true,
      enableCookieEncryption: true,
    });
  });

  it('points at icons and entitlements that exist, and the app code electron loads', async () => {
    const config = await loadConfig('electron-builder.yml');
    for (const file of [config.linux.icon, config.win.icon, config.mac.icon, config.mac.entitlements, ...['idle', 'connecting', 'listening', 'speaking', 'muted', 'error'].map((state) => `resources/tray-${state}.png`)]) {
      expect(existsSync(path.join(root, file)), file).toBe(true);
    }
    const pkg = require(path.join(root, 'package.json')) as { main: string; dependencies: Record<string, string>; devDependencies: Record<string, string> };
    expect(pkg.main).toBe('dist/main/app/main.js');
    const files = (config.files as unknown as { filter?: string[] }[]).flatMap((f) => f.filter ?? []);
    expect(files).toEqual(expect.arrayContaining(['dist/main/**/*.js', 'dist/preload/**/*.cjs', 'dist/renderer/**/*.js']));
    // Packaged apps ship only `dependencies`: what the main process imports at run time must be there.
    expect(pkg.dependencies['electron-store']).toBeDefined();
    expect(pkg.devDependencies.electron).toBeDefined();
  });
});
