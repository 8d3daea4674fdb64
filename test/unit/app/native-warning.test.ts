// The dashboard's warning line for a WASM Opus fallback or a missing native piece (from /health).
import { expect, it } from 'vitest';
import type { HealthReport } from '../../../main/core/api-types.ts';
import { nativeWarning } from '../../../renderer/format.ts';

const allNative: Pick<HealthReport, 'audio' | 'native'> = {
  audio: { opus: { impl: 'native', library: '@discordjs/opus', reason: 'the native @discordjs/opus addon loaded' } },
  native: { sharp: { available: true, reason: 'sharp installed' }, davey: { available: true, reason: 'davey loaded' } },
};

it('says nothing when every native piece is there', () => {
  expect(nativeWarning(allNative)).toBeNull();
});

it('names the WASM fallback with the loader error, and each missing piece', () => {
  const warning = nativeWarning({
    audio: {
      opus: {
        impl: 'wasm',
        library: 'opusscript',
        reason: 'the native @discordjs/opus addon failed to load: invalid ELF header',
      },
    },
    native: {
      sharp: allNative.native.sharp,
      davey: { available: false, reason: 'DAVE (end-to-end encrypted) voice channels cannot be joined: not found' },
    },
  });
  expect(warning).toContain(
    'Audio uses the slow WASM Opus codec: the native @discordjs/opus addon failed to load: invalid ELF header.',
  );
  expect(warning).toContain(
    'davey is missing: DAVE (end-to-end encrypted) voice channels cannot be joined: not found.',
  );
  expect(warning).not.toContain('sharp is missing');
});

it('says what fixes it: the Node the core runs on, the launchers that use the .tools Node, the rebuild', () => {
  const warning = nativeWarning({
    ...allNative,
    node: 'v20.20.2',
    audio: {
      opus: {
        impl: 'wasm',
        library: 'opusscript',
        reason: 'the native @discordjs/opus addon failed to load: NODE_MODULE_VERSION 127',
      },
    },
  });
  expect(warning).toContain('The core runs on Node v20.20.2. Restart it with npm run headless or ./scripts/demo.sh');
  expect(warning).toContain('source scripts/use-node22.sh && npm rebuild @discordjs/opus sharp @snazzah/davey');
  expect(warning).not.toContain('Reinstall with');
});
