// Shared steps for the dashboard tests: log in through a one-time login URL (as a person would,
// from the CLI or the tray) and ask the harness what the fake Discord received.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { expect, type Locator, type Page } from '@playwright/test';

const CONTROL = `http://127.0.0.1:${Number(process.env.LVB_UI_PORT ?? 18971) + 1}`;
export const PANEL_SHOTS = path.resolve('test-results', 'panels');
/**
 * Where the screenshots shown in docs/ go: docs/screenshots only when asked
 * (LVB_DOC_SCREENSHOTS=1), so an ordinary test run leaves the work tree clean.
 */
export const DOC_SHOTS =
  process.env.LVB_DOC_SCREENSHOTS === '1'
    ? path.resolve('docs', 'screenshots')
    : path.resolve('test-results', 'doc-screenshots');

export async function shootDoc(target: Page | Locator, name: string): Promise<void> {
  mkdirSync(DOC_SHOTS, { recursive: true });
  await target.screenshot({ path: path.join(DOC_SHOTS, `${name}.png`) });
}

export async function control<T>(route: string, base = CONTROL): Promise<T> {
  const res = await fetch(`${base}${route}`);
  if (!res.ok) throw new Error(`harness ${route}: ${res.status}`);
  return (await res.json()) as T;
}

export async function login(page: Page, base = CONTROL): Promise<void> {
  const { url } = await control<{ url: string }>('/login-url', base);
  await page.goto(url);
  await expect(page).toHaveURL(/\/$/);
  await expect(page.locator('#stream-status')).toHaveAttribute('data-link', 'live');
  // data-link turns "live" once the event stream is open and /health has confirmed the state, which
  // is also when the actions are released (renderer/main.ts). A test that acts before then finds its button disabled
  // (a focus() on it does nothing), so wait for the page to offer its actions, as a user would.
  await expect(page.locator('[data-held]')).toHaveCount(0);
}

export async function shootPanel(panel: Locator, name: string): Promise<void> {
  mkdirSync(PANEL_SHOTS, { recursive: true });
  await panel.screenshot({ path: path.join(PANEL_SHOTS, `${name}.png`) });
}

/** A small PNG made at run time (a gradient), so no binary fixture is needed. */
export async function samplePng(width = 64): Promise<Buffer> {
  const sharp = (await import('sharp')).default;
  const height = Math.round((width * 5) / 8);
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) pixels.set([(x * 255) / width, (y * 255) / height, 160], (y * width + x) * 3);
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/** A second harness (own core and fakes) a test may kill under the page; the sidecar on a free port, control on the next. */
export async function startOwnHarness(
  options: { unconfigured?: boolean; firstRun?: boolean; parkAfterS?: number } = {},
): Promise<{ control: string; process: ChildProcess }> {
  const port = await freePortPair();
  const env = {
    ...process.env,
    LVB_UI_PORT: String(port),
    LVB_UI_UNCONFIGURED: options.unconfigured ? '1' : '0',
    LVB_UI_FIRST_RUN: options.firstRun ? '1' : '0',
    ...(options.parkAfterS !== undefined ? { LVB_UI_PARK_AFTER_S: String(options.parkAfterS) } : {}),
  };
  const child = spawn(process.execPath, [path.resolve('test/ui/harness.ts')], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const base = `http://127.0.0.1:${port + 1}`;
  for (let attempt = 0; attempt < 240; attempt++) {
    if (child.exitCode !== null) throw new Error(`own harness exited with ${child.exitCode}`);
    try {
      await control('/ready', base);
      return { control: base, process: child };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  child.kill('SIGKILL');
  throw new Error('own harness did not become ready');
}

async function freePortPair(): Promise<number> {
  for (;;) {
    const port = await listenOnce(0);
    if (
      port < 65535 &&
      (await listenOnce(port + 1).then(
        () => true,
        () => false,
      ))
    )
      return port;
  }
}

function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : port));
    });
  });
}
