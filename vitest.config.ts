import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that spend minutes waiting in real time rather than computing: the CI-only soaks (the day
 * soak's 10.5 minutes, test/soak/soak-day-ci.test.ts; about 9.5 minutes of simulated calls,
 * test/soak/soak-ci.test.ts) and fresh clone (about 7 minutes,
 * mostly the npm registry), the 90 s model outage, and the idle store core (1-4 minutes waiting for
 * V8's memory reducer to settle, then a 30 s window). Vitest runs a fresh clone's files largest
 * first (it has no durations cached yet), which put these small files last: in the CI run of
 * 2026-11-28 the soaks ran alone for their last 9.5 minutes while the other worker had nothing left.
 * Started first, they overlap the rest of the suite.
 */
const WAIT_IN_REAL_TIME = [
  'test/soak/soak-day-ci.test.ts',
  'test/soak/soak-ci.test.ts',
  'test/quick-start/fresh-clone.test.ts',
  'test/integration/bridge/model-outage.test.ts',
  'test/sidecar/store-idle-wakeups.test.ts',
];

class RealTimeFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const index = WAIT_IN_REAL_TIME.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
      return index < 0 ? WAIT_IN_REAL_TIME.length : index;
    };
    // Array sort is stable: the rest keeps the order vitest chose.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'main/**/*.test.ts'],
    exclude: ['test/ui/**', 'node_modules/**'],
    // Integration tests run real servers on loopback and many of them wait in real time (a call's
    // seconds, a reconnect's back-off), so three workers keep two cores busy: the suite without the
    // CI-only files took 387 s with three and 560 s with two (2026-11-28, same machine, all passed).
    // In CI the two soak files and the fresh clone take three of them for their first 7-10.5 minutes
    // (WAIT_IN_REAL_TIME), waiting far more than computing: a fourth worker keeps the rest going
    // meanwhile (with three, the rest of the suite would stand still for those minutes).
    pool: 'forks',
    maxWorkers: process.env.CI === 'true' ? 4 : 3,
    sequence: { sequencer: RealTimeFilesFirst },
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
