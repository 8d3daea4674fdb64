// Each frame a caller pushes is a new image: nothing of a conversion stays in libvips' operation
// cache once it is done (sharp's default keeps up to 100 operations and 50 MB, grown frame by frame
// in the day soak, #55).
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { toModelFrame } from '../../../main/core/model/frame-converter.ts';

async function png(seed: number): Promise<Buffer> {
  const pixels = Buffer.alloc(64 * 48 * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * seed) & 0xff;
  return sharp(pixels, { raw: { width: 64, height: 48, channels: 3 } })
    .png()
    .toBuffer();
}

describe('frame conversion', () => {
  it('leaves nothing in libvips’ operation cache after a frame', async () => {
    for (let seed = 1; seed <= 5; seed++) {
      const frame = await toModelFrame(await png(seed));
      expect([frame.width, frame.height]).toEqual([64, 48]);
    }
    const cache = sharp.cache();
    expect(cache.items.current).toBe(0);
    expect(cache.memory.current).toBe(0);
  });
});
