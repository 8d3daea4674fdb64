// UI tests: the dashboard in Debian's Chromium (Playwright cannot download its own browser here)
// against a headless core running on the loopback fakes (test/ui/harness.ts).
import { defineConfig } from '@playwright/test';

const SIDECAR_PORT = Number(process.env.LVB_UI_PORT ?? 18971);
const CHROMIUM = process.env.LVB_CHROMIUM ?? '/usr/bin/chromium';

export default defineConfig({
  testDir: 'test/ui',
  testMatch: '**/*.spec.ts',
  outputDir: 'test-results/playwright',
  // One core, one call: the tests share it and run in order.
  workers: 1,
  fullyParallel: false,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${SIDECAR_PORT}`,
    viewport: { width: 1280, height: 900 },
    colorScheme: 'dark',
    launchOptions: {
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    },
    trace: 'retain-on-failure',
  },
  webServer: {
    command: 'node test/ui/harness.ts',
    url: `http://127.0.0.1:${SIDECAR_PORT + 1}/ready`,
    env: { LVB_UI_PORT: String(SIDECAR_PORT) },
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
