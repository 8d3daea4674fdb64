// Screen captures go to the model as frames; a 4K capture costs upload time and tokens for no
// gain, so the longest edge is capped while the aspect ratio is kept.
export const MAX_CAPTURE_EDGE = 1920;

export function captureSizeFor(
  display: { width: number; height: number },
  scaleFactor: number,
  maxEdge = MAX_CAPTURE_EDGE,
): { width: number; height: number } {
  const width = Math.max(1, Math.round(display.width * scaleFactor));
  const height = Math.max(1, Math.round(display.height * scaleFactor));
  const scale = Math.min(1, maxEdge / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}
