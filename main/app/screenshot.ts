// One-click screenshot: the primary display through desktopCapturer (macOS asks for Screen
// Recording consent the first time; a refusal gives an empty image, which we report as such).
import { desktopCapturer, screen } from 'electron';
import type { CaptureResult } from '../../preload/desktop-api.ts';
import { captureSizeFor } from './capture-size.ts';

export async function capturePrimaryScreen(): Promise<CaptureResult> {
  try {
    const display = screen.getPrimaryDisplay();
    const sources = await desktopCapturer.getSources({
      types: ['screen'],
      thumbnailSize: captureSizeFor(display.size, display.scaleFactor),
    });
    const source = sources.find((s) => s.display_id === String(display.id)) ?? sources[0];
    if (!source || source.thumbnail.isEmpty()) {
      return {
        ok: false,
        error:
          'no screen image was available (on macOS, allow Screen Recording for Live Voice Bridge in System Settings › Privacy & Security)',
      };
    }
    const { width, height } = source.thumbnail.getSize();
    return { ok: true, mime: 'image/png', data: new Uint8Array(source.thumbnail.toPNG()), width, height };
  } catch (err) {
    return { ok: false, error: `screen capture failed: ${err instanceof Error ? err.message : String(err)}` };
  }
}
