// A parked call still sees your screen (issue 53): after the quiet period the model parks while the
// call stays in Discord; the page's Capture then wakes it and the model receives the image. Before
// the fix POST /frame answered 409 no_call on a parked call ("There is no live call. Join voice
// first."). Its own harness, parking after 1 s of quiet (LVB_UI_PARK_AFTER_S).
import { expect, test } from '@playwright/test';
import { control, login, startOwnHarness } from './fixtures.ts';

test('Capture on a parked call wakes the model and the model receives the image', async ({ page }) => {
  await page.addInitScript(() => {
    // The "screen": a canvas streamed as the picked display (headless Chromium has no screen to pick).
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
      const timer = setInterval(paint, 50);
      stream.getVideoTracks()[0]!.addEventListener('ended', () => clearInterval(timer));
      return stream;
    };
  });
  const own = await startOwnHarness({ parkAfterS: 1 });
  try {
    const { sidecarUrl } = await control<{ sidecarUrl: string }>('/ready', own.control);
    const { token } = await control<{ token: string }>('/token', own.control);
    const framesSent = async (): Promise<number> => {
      const health = (await (
        await page.request.get(`${sidecarUrl}/health`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as { metrics: { image_frames_sent?: number } };
      return health.metrics.image_frames_sent ?? 0;
    };
    await login(page, own.control);
    await page.getByRole('button', { name: 'Join voice' }).click();
    await expect(page.locator('#call-state')).toHaveText('parked', { timeout: 30_000 });
    await page.getByRole('button', { name: 'Capture screen' }).click();
    await expect(page.locator('#frame-answer')).toContainText('Server answer: sent', { timeout: 20_000 });
    await expect(page.locator('#frame-status')).toHaveText('The model received the image.');
    await expect.poll(framesSent).toBe(1);
  } finally {
    own.process.kill('SIGTERM');
  }
});
