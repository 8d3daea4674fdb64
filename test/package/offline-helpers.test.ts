// The offline package check's own parts can fail: the trap refuses and records a download, a
// native binary left inside the archive is named, and the stub's fuse wire reads back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { filesOfHeader, packedNativeBinaries } from './asar-natives.ts';
import { startDownloadTrap } from './download-trap.ts';
import { readFuses, writeStubElectronDist } from './stub-electron.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'lvb-package-helpers-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('offline package check helpers', () => {
  it('the download trap refuses a request to the Electron mirror with a message, and records it', async () => {
    const trap = await startDownloadTrap();
    try {
      const response = await fetch(`${trap.env.ELECTRON_MIRROR}v45.4.1/electron-v45.4.1-linux-x64.zip`);
      expect(response.status).toBe(403);
      expect(await response.text()).toContain('a download was attempted and refused');
      expect(trap.attempts).toEqual(['GET /electron/v45.4.1/electron-v45.4.1-linux-x64.zip']);
    } finally {
      await trap.close();
    }
  });

  it('names a shared library or addon packed inside the archive, and lets unpacked ones and plain files pass', () => {
    const files = filesOfHeader({
      files: {
        'package.json': { size: 10 },
        node_modules: {
          files: {
            '@img': {
              files: {
                'sharp-libvips-linux-x64': { files: { lib: { files: { 'libvips-cpp.so.8.18.7': { size: 5 } } } } },
              },
            },
            sharp: { files: { 'index.js': { size: 3 } } },
            opus: { files: { 'opus.node': { size: 7, unpacked: true } } },
            link: { link: 'opus' },
          },
        },
      },
    });
    expect(files.map((f) => f.path)).toEqual([
      'package.json',
      'node_modules/@img/sharp-libvips-linux-x64/lib/libvips-cpp.so.8.18.7',
      'node_modules/sharp/index.js',
      'node_modules/opus/opus.node',
    ]);
    expect(packedNativeBinaries(files)).toEqual([
      'node_modules/@img/sharp-libvips-linux-x64/lib/libvips-cpp.so.8.18.7',
    ]);
  });

  it("the stub Electron carries Electron's default fuse wire", () => {
    const dist = writeStubElectronDist(path.join(scratch, 'stub'));
    expect(readFuses(path.join(dist, 'electron'))).toEqual({
      runAsNode: true,
      enableCookieEncryption: false,
      enableNodeOptionsEnvironmentVariable: true,
      enableNodeCliInspectArguments: true,
      enableEmbeddedAsarIntegrityValidation: false,
      onlyLoadAppFromAsar: false,
      loadBrowserProcessSpecificV8Snapshot: false,
      grantFileProtocolExtraPrivileges: true,
    });
  });
});
