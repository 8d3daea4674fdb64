import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'main/**/*.test.ts'],
    exclude: ['test/ui/**', 'node_modules/**'],
    // Integration tests run real servers on loopback; two cores, so keep parallelism modest.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    env: {
      // Safety net: an accidental `import 'electron'` in plain-Node code must not try to download a binary.
      ELECTRON_OVERRIDE_DIST_PATH: '/nonexistent-electron-dist',
    },
  },
});
