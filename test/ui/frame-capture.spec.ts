// The dashboard's "Capture screen" path end to end (the browser's screen picker, and the desktop
// app's preload capture), and a WebP picked from disk: each reaches the model as a frame, which the
// core counts in /health (image_frames_sent). The screen itself is stood in for: a canvas stream for
// getDisplayMedia (headless Chromium has no screen to pick), a PNG for the preload.
import sharp from 'sharp';
import { expect, test, type Page } from '@playwright/test';
import { control, login, samplePng } from './fixtures.ts';

test.describe.configure({ mode: 'serial' });

async function framesSent(page: Page): Promise<number> {
  const token = (await control<{ token: string }>('/token')).token;
  const health = (await (
    await page.request.get('/health', { headers: { authorization: `Bearer ${token}` } })
  ).json()) as { metrics: { image_frames_sent?: number } };
  return health.metrics.image_frames_sent ?? 0;
}

async function joined(page: Page): Promise<void> {
  await login(page);
  if ((await page.locator('#call-state').textContent()) !== 'connected')
    await page.getByRole('button', { name: 'Join voice' }).click();
  await expect(page.locator('#call-state')).toHaveText('connected');
}

async function leave(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Leave voice' }).click();
  await expect(page.locator('#call-state')).toHaveText('stopped');
}

test('browser: Capture screen takes a frame from the screen picker and the model receives it', async ({ page }) => {
  await page.addInitScript(() => {
    // The "screen": a 1280×720 canvas, drawn once, streamed as the picked display.
    navigator.mediaDevices.getDisplayMedia = async () => {
      const canvas = document.createElement('canvas');
      canvas.width = 1280;
      canvas.height = 720;
      const draw = canvas.getContext('2d')!;
      const paint = () => {
        draw.fillStyle = '#204080';
        draw.fillRect(0, 0, 1280, 720);
        draw.fillStyle = '#ffcc00';
        draw.fillRect(100, 100, 400, 200);
      };
      paint();
      const stream = canvas.captureStream(10);
      // Keep frames coming so the video element has one to show.
      const timer = setInterval(paint, 50);
      stream.getVideoTracks()[0]!.addEventListener('ended', () => clearInterval(timer));
      return stream;
    };
  });
  await joined(page);
  const before = await framesSent(page);
  await page.getByRole('button', { name: 'Capture screen' }).click();
  await expect(page.locator('#frame-answer')).toContainText('Server answer: sent', { timeout: 20_000 });
  await expect(page.locator('#frame-status')).toHaveText('The model received the image.');
  await expect.poll(() => framesSent(page)).toBe(before + 1);
  await leave(page);
});

test('desktop: Capture screen uses the preload capture; a WebP picked from disk is sent too', async ({ page }) => {
  const png = (await samplePng()).toString('base64');
  await page.addInitScript((b64: string) => {
    const data = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    (window as unknown as { liveVoiceBridgeDesktop: unknown }).liveVoiceBridgeDesktop = {
      captureScreenshot: async () => ({ ok: true, mime: 'image/png', data, width: 64, height: 48 }),
      appVersion: async () => '0.3.5',
      openLogsFolder: async () => ({ ok: true }),
    };
  }, png);
  await joined(page);
  const before = await framesSent(page);
  await page.getByRole('button', { name: 'Capture screen' }).click();
  await expect(page.locator('#frame-answer')).toContainText('Server answer: sent', { timeout: 20_000 });
  await expect.poll(() => framesSent(page)).toBe(before + 1);
  // Frames go to the model at most once a second (the newest wins): wait for the next slot.
  await page.waitForTimeout(1500);
  const webp = await sharp({ create: { width: 320, height: 180, channels: 3, background: '#884422' } })
    .webp()
    .toBuffer();
  await page.locator('#frame-file').setInputFiles({ name: 'shot.webp', mimeType: 'image/webp', buffer: webp });
  await expect(page.locator('#frame-answer')).toContainText('Server answer: sent', { timeout: 20_000 });
  await expect.poll(() => framesSent(page)).toBe(before + 2);
  await leave(page);
});
