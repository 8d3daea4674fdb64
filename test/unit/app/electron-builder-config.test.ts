// The installer config is checked offline with electron-builder's own schema validator
// (test/package/builder-config.ts); test/package/offline-package.test.ts builds from it.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configArgs, updateFeed } from '../../../scripts/dist.ts';
import {
  loadBuilderConfig as loadConfig,
  repoRoot as root,
  validateBuilderConfig as validate,
} from '../../package/builder-config.ts';

const require = createRequire(import.meta.url);

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
    expect(config.mac.extendInfo.NSScreenCaptureUsageDescription).toMatch(/screen/);
  });

  it('asks for no microphone: no usage string, no audio-input entitlement (voice comes from Discord)', async () => {
    const config = await loadConfig('electron-builder.yml');
    expect(Object.keys(config.mac.extendInfo).filter((key) => /Microphone|Audio/i.test(key))).toEqual([]);
    for (const file of new Set([config.mac.entitlements, config.mac.entitlementsInherit])) {
      const plist = readFileSync(path.join(root, file), 'utf8');
      expect(plist).not.toContain('com.apple.security.device.audio-input');
      expect(plist).not.toContain('com.apple.security.device.microphone');
      expect(plist).toContain('com.apple.security.network.client');
    }
  });

  it('publishes to a generic feed whose URL comes from LVB_UPDATE_FEED_URL at build time', async () => {
    const config = await loadConfig('electron-builder.yml');
    expect(config.publish).toEqual({ provider: 'generic', url: '${env.LVB_UPDATE_FEED_URL}' });
    await expect(validate(config)).resolves.toBeUndefined();
  });

  it('npm run dist builds without a feed when LVB_UPDATE_FEED_URL is unset, and refuses one that is not http(s)', async () => {
    expect(updateFeed({})).toBeNull();
    expect(updateFeed({ LVB_UPDATE_FEED_URL: '  ' })).toBeNull();
    expect(updateFeed({ LVB_UPDATE_FEED_URL: 'https://updates.example.invalid/lvb/' })).toBe(
      'https://updates.example.invalid/lvb/',
    );
    expect(() => updateFeed({ LVB_UPDATE_FEED_URL: 'updates.example.invalid' })).toThrow(
      /LVB_UPDATE_FEED_URL is not a URL/,
    );
    expect(() => updateFeed({ LVB_UPDATE_FEED_URL: 'file:///tmp/feed' })).toThrow(/must be an http\(s\) URL/);
    expect(await configArgs({ LVB_UPDATE_FEED_URL: 'https://updates.example.invalid/lvb/' }, root)).toEqual([
      '--config',
      'electron-builder.yml',
    ]);
    // Without a feed: the same config, publish null (electron-builder then writes no app-update.yml).
    const [flag, file] = await configArgs({}, root);
    expect(flag).toBe('--config');
    const derived = JSON.parse(readFileSync(file!, 'utf8')) as Record<string, unknown>;
    rmSync(path.dirname(file!), { recursive: true, force: true });
    expect(derived.publish).toBeNull();
    expect(derived).toMatchObject({
      appId: 'com.livevoicebridge.app',
      asarUnpack: (await loadConfig('electron-builder.yml')).asarUnpack,
    });
    await expect(validate(derived)).resolves.toBeUndefined();
    const pkg = require(path.join(root, 'package.json')) as { scripts: Record<string, string> };
    expect(pkg.scripts.dist).toBe('npm run build && node scripts/dist.ts');
  });

  it('unpacks the native modules and hardens the fuses', async () => {
    const config = await loadConfig('electron-builder.yml');
    for (const mod of ['@discordjs/opus', 'better-sqlite3', '@snazzah', 'sharp', '@img', 'uiohook-napi'])
      expect(config.asarUnpack).toContain(`node_modules/${mod}/**`);
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
    for (const file of [
      config.linux.icon,
      config.win.icon,
      config.mac.icon,
      config.mac.entitlements,
      ...['idle', 'connecting', 'listening', 'speaking', 'muted', 'error'].map(
        (state) => `resources/tray-${state}.png`,
      ),
    ]) {
      expect(existsSync(path.join(root, file)), file).toBe(true);
    }
    const pkg = require(path.join(root, 'package.json')) as {
      main: string;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(pkg.main).toBe('dist/main/app/main.js');
    const files = (config.files as unknown as { filter?: string[] }[]).flatMap((f) => f.filter ?? []);
    expect(files).toEqual(
      expect.arrayContaining(['dist/main/**/*.js', 'dist/preload/**/*.cjs', 'dist/renderer/**/*.js']),
    );
    // Packaged apps ship only `dependencies`: what the main process imports at run time must be there.
    expect(pkg.dependencies['electron-store']).toBeDefined();
    expect(pkg.devDependencies.electron).toBeDefined();
  });
});
