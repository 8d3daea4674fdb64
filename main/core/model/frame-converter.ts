// Frames for the model: whatever image the caller has (JPEG, PNG or WebP) becomes a JPEG whose long
// side is at most 768 px, the "standard resolution" the Live API tiles at (protocols.md §1.7).
// Anything bigger only costs upload time and tokens.
import type SharpFactory from 'sharp';
import { CodedError } from '../contracts/coded-error.ts';

// sharp (libvips) takes ~250 ms to load; it is needed only when the first frame arrives, so it is
// loaded then, keeping the sidecar's start-up fast.
let sharpLoading: Promise<typeof SharpFactory> | undefined;
function loadSharp(): Promise<typeof SharpFactory> {
  sharpLoading ??= import('sharp').then((m) => {
    // Off: libvips' operation cache (by default 100 operations, 50 MB; sharp's `cache` docs) keeps
    // what each conversion made, for a repeat of the same operation on the same input. Every frame
    // is a new image, so it never hits, and it grew with every frame pushed: +0.78 MB of libvips'
    // allocations in the 10 minutes of the short day soak (heaptrack, 2026-12-03; #55).
    m.default.cache(false);
    return m.default;
  });
  return sharpLoading;
}

export const MAX_FRAME_SIDE = 768;
/**
 * The largest input decoded here (a bound against decoding huge images; over HTTP /frame stops at
 * 8 MiB first). Unrelated to the service's 7 MB cap on an inline image: what is sent is the
 * converted JPEG, ≤ 768 px on its long side, tens of KB.
 */
export const MAX_FRAME_INPUT_BYTES = 20 * 1024 * 1024;
const JPEG_QUALITY = 80;

export type FrameErrorCode = 'invalid_image' | 'image_too_large';

/** Bad input from the caller (the sidecar turns this into a 400/413). */
export class FrameError extends CodedError<FrameErrorCode> {}

export type ImageKind = 'jpeg' | 'png' | 'webp';

/** Magic-byte sniffing: cheap, synchronous, and independent of a file name or claimed type. */
export function sniffImageKind(image: Uint8Array): ImageKind | null {
  if (image.length >= 3 && image[0] === 0xff && image[1] === 0xd8 && image[2] === 0xff) return 'jpeg';
  if (image.length >= 8 && image[0] === 0x89 && image[1] === 0x50 && image[2] === 0x4e && image[3] === 0x47)
    return 'png';
  if (
    image.length >= 12 &&
    image[0] === 0x52 &&
    image[1] === 0x49 &&
    image[2] === 0x46 &&
    image[3] === 0x46 &&
    image[8] === 0x57 &&
    image[9] === 0x45 &&
    image[10] === 0x42 &&
    image[11] === 0x50
  ) {
    return 'webp';
  }
  return null;
}

/** Throws FrameError unless `image` is a JPEG, PNG or WebP of acceptable size. */
export function assertSupportedImage(image: Uint8Array): ImageKind {
  if (image.length > MAX_FRAME_INPUT_BYTES) {
    throw new FrameError('image_too_large', `image is ${image.length} bytes; the limit is ${MAX_FRAME_INPUT_BYTES}`);
  }
  const kind = sniffImageKind(image);
  if (!kind) throw new FrameError('invalid_image', 'expected JPEG, PNG or WebP image bytes');
  return kind;
}

export interface ModelFrame {
  jpeg: Buffer;
  width: number;
  height: number;
}

export async function toModelFrame(image: Buffer, maxSide = MAX_FRAME_SIDE): Promise<ModelFrame> {
  assertSupportedImage(image);
  try {
    const sharp = await loadSharp();
    const { data, info } = await sharp(image, { failOn: 'error', limitInputPixels: 64_000_000 })
      .rotate() // honour EXIF orientation before measuring the long side
      .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' }) // JPEG has no alpha: transparent PNG/WebP areas become white, not black
      .jpeg({ quality: JPEG_QUALITY, mozjpeg: false })
      .toBuffer({ resolveWithObject: true });
    return { jpeg: data, width: info.width, height: info.height };
  } catch (err) {
    throw new FrameError(
      'invalid_image',
      `could not decode the image: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}
