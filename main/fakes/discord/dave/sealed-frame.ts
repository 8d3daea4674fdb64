// A DAVE media frame the bot cannot open: what a member's client sends while the bot is not (yet, or
// no longer) holding that member's sender key. Shared by the group (a newcomer joining an E2EE call)
// and the room faults (a silent re-key).
import { randomBytes } from 'node:crypto';

const DAVE_MAGIC = 0xfafa;

/**
 * A DAVE media frame sealed with a key the bot does not hold: random ciphertext and tag, in the
 * frame layout (ciphertext ‖ 8-byte tag ‖ ULEB128 nonce ‖ supplemental size ‖ 0xFAFA).
 */
export function sealedForOthers(opus: Buffer, nonce: number): Buffer {
  const nonceBytes: number[] = [];
  for (let n = nonce >>> 0; ; n >>>= 7) {
    if (n < 0x80) {
      nonceBytes.push(n);
      break;
    }
    nonceBytes.push((n & 0x7f) | 0x80);
  }
  const supplemental = 8 + nonceBytes.length + 1 + 2;
  const trailer = Buffer.from([...nonceBytes, supplemental, DAVE_MAGIC >> 8, DAVE_MAGIC & 0xff]);
  return Buffer.concat([randomBytes(opus.length + 8), trailer]);
}
