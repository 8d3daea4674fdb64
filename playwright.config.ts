// Dashboard UI tests drive Debian's Chromium (never a downloaded browser).
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: 'test/ui',
  testMatch: '**/*.spec.ts',
  outputDir: 'test-results/playwright',
  workers: 1,
  reporter: [['list']],
  use: {
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    },
  },
});
