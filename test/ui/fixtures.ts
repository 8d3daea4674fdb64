// Shared steps for the dashboard tests: log in through a one-time login URL (as a person would,
// from the CLI or the tray) and ask the harness what the fake Discord received.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect, type Locator, type Page } from '@playwright/test';

const CONTROL = `http://127.0.0.1:${Number(process.env.LVB_UI_PORT ?? 18971) + 1}`;
export const PANEL_SHOTS = path.resolve('test-results', 'panels');

export async function control<T>(route: string): Promise<T> {
  const res = await fetch(`${CONTROL}${route}`);
  if (!res.ok) throw new Error(`harness ${route}: ${res.status}`);
  return (await res.json()) as T;
}

export async function login(page: Page): Promise<void> {
  const { url } = await control<{ url: string }>('/login-url');
  await page.goto(url);
  await expect(page).toHaveURL(/\/$/);
  await expect(page.locator('#stream-status')).toHaveText('live');
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
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) pixels.set([(x * 255) / width, (y * 255) / height, 160], (y * width + x) * 3);
  return sharp(pixels, { raw: { width, height, channels: 3 } }).png().toBuffer();
}
