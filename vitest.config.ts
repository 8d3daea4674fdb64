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
    // electron-store imports `electron` itself; inlined, it gets the recording stub a shell test
    // installs with vi.mock (test/integration/app/shell-wiring.test.ts) instead of the npm package.
    server: { deps: { inline: ['electron-store'] } },
    env: {
      // Safety net: an accidental `import 'electron'` in plain-Node code must not try to download a binary.
      ELECTRON_OVERRIDE_DIST_PATH: '/nonexistent-electron-dist',
    },
  },
});
