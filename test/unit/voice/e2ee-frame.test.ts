// The receive side's check for DAVE frames the bot could not decrypt (main/core/voice/e2ee-frame.ts).
import { describe, expect, it } from 'vitest';
import { isUndecryptedE2eeFrame } from '../../../main/core/voice/e2ee-frame.ts';
import { loadOpus } from '../../../main/core/voice/opus.ts';
import { sealedForOthers } from '../../../main/fakes/discord/dave/group.ts';
import { seededRandom } from '../../../main/fakes/shared/pcm.ts';

describe('isUndecryptedE2eeFrame', () => {
  it('recognizes the DAVE frame layout: a 15-byte Opus frame sealed is 27 bytes ending 0c fa fa', () => {
    const opus = Buffer.alloc(15, 0x42);
    const sealed = Buffer.concat([
      Buffer.alloc(15, 0x99),
      Buffer.alloc(8, 0x17),
      Buffer.from([0x05, 0x0c, 0xfa, 0xfa]),
    ]);
    expect(sealed.length).toBe(27);
    expect(isUndecryptedE2eeFrame(sealed)).toBe(true);
    expect(isUndecryptedE2eeFrame(opus)).toBe(false);
    // Multi-byte nonces (the fake's sealing, ULEB128) too.
    for (const nonce of [1, 127, 128, 300_000, 2 ** 32 - 1])
      expect(isUndecryptedE2eeFrame(sealedForOthers(opus, nonce))).toBe(true);
  });

  it('passes the Opus silence frame and frames whose trailer does not fit', () => {
    expect(isUndecryptedE2eeFrame(Buffer.from([0xf8, 0xff, 0xfe]))).toBe(false);
    expect(isUndecryptedE2eeFrame(Buffer.from([0xfa, 0xfa]))).toBe(false);
    const tooSmallSize = Buffer.concat([Buffer.alloc(20, 1), Buffer.from([0x05, 0xfa, 0xfa])]);
    const sizeBeyondFrame = Buffer.concat([Buffer.alloc(20, 1), Buffer.from([0xff, 0xfa, 0xfa])]);
    expect(isUndecryptedE2eeFrame(tooSmallSize)).toBe(false);
    expect(isUndecryptedE2eeFrame(sizeBeyondFrame)).toBe(false);
  });

  it('does not mistake real Opus packets for sealed ones (10 minutes of coded noise and tones)', () => {
    const encoder = loadOpus().createMonoEncoder();
    const random = seededRandom(7);
    const frame = new Int16Array(960);
    const bytes = Buffer.from(frame.buffer);
    let flagged = 0;
    for (let f = 0; f < 30_000; f++) {
      for (let i = 0; i < frame.length; i++)
        frame[i] = Math.round((f % 2 ? 8000 * Math.sin((i * ((f % 50) + 1)) / 40) : 0) + (random() - 0.5) * 6000);
      if (isUndecryptedE2eeFrame(encoder.encode(bytes))) flagged++;
    }
    encoder.destroy();
    expect(flagged).toBe(0);
  });
});
