// Smoke test of the desktop shell with Playwright's _electron. It runs only where an Electron
// binary exists (none can be downloaded on our build machines) and says so when it cannot run.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { _electron as electron, expect, test } from '@playwright/test';
import { electronBinary } from './electron-binary.ts';

const binary = electronBinary();

test('desktop shell: sandboxed window shows the dashboard, narrow preload API only', async () => {
  if (!binary) {
    console.log('skipped: no Electron binary (node_modules/electron has no dist/ and none can be downloaded here)');
    test.skip(true, 'skipped: no Electron binary');
    return;
  }
  const root = path.resolve(import.meta.dirname, '../..');
  if (
    !existsSync(path.join(root, 'dist/main/app/main.js')) ||
    !existsSync(path.join(root, 'dist/preload/preload.cjs'))
  ) {
    execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  }
  const profile = mkdtempSync(path.join(tmpdir(), 'lvb-electron-'));
  const app = await electron.launch({
    executablePath: binary,
    args: [root],
    cwd: root,
    env: {
      ...process.env,
      LVB_USER_DATA_DIR: path.join(profile, 'user-data'),
      HERMES_HOME: path.join(profile, 'home'),
      DISCORD_VOICE_LIVE_PORT: '18981',
    },
  });
  try {
    const page = await app.firstWindow();
    await expect(page).toHaveTitle('Live Voice Bridge');
    await expect(page.locator('#stream-status')).toHaveAttribute('data-link', 'live');
    expect(new URL(page.url()).origin).toBe('http://127.0.0.1:18981');

    const surface = await page.evaluate(() => ({
      api: Object.keys((window as unknown as { liveVoiceBridgeDesktop?: object }).liveVoiceBridgeDesktop ?? {}).sort(),
      require: typeof (window as unknown as { require?: unknown }).require,
      process: typeof (window as unknown as { process?: unknown }).process,
      popup: window.open('https://example.com/') === null,
    }));
    expect(surface).toEqual({
      api: ['appVersion', 'captureScreenshot', 'openLogsFolder'],
      require: 'undefined',
      process: 'undefined',
      popup: true,
    });
    expect(
      await page.evaluate(() =>
        (
          window as unknown as { liveVoiceBridgeDesktop: { appVersion(): Promise<string> } }
        ).liveVoiceBridgeDesktop.appVersion(),
      ),
    ).toMatch(/^\d+\.\d+\.\d+/);
    await expect(page.locator('#open-logs')).toBeVisible();

    // Navigation away from our sidecar is refused by will-navigate.
    await page.evaluate(() => {
      location.href = 'https://example.com/';
    });
    await page.waitForTimeout(500);
    expect(new URL(page.url()).origin).toBe('http://127.0.0.1:18981');
    expect(await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length)).toBe(1);
  } finally {
    await app.close();
    rmSync(profile, { recursive: true, force: true });
  }
});
