// Discord's E2EE (DAVE) media frame: Opus ciphertext ‖ 8-byte truncated GCM tag ‖ ULEB128 nonce ‖
// ULEB128 unencrypted ranges (none for Opus) ‖ u8 supplemental size ‖ 0xFAFA (Discord's voice docs,
// "Audio Frame E2EE"; research/protocols.md). @discordjs/voice hands a received frame on as it came
// while the bot's own DAVE session is not ready (it is joining the group the others already talk
// in, or rebuilding it after op 31): decoded as Opus, that ciphertext is noise, often loud, which
// the model would hear as speech.

const MAGIC_BYTE = 0xfa;
/** The smallest trailer: tag (8) + a one-byte nonce + the size byte + the magic (2). */
const MIN_SUPPLEMENTAL_BYTES = 8 + 1 + 1 + 2;

/**
 * Whether `packet` (what the receive stream delivered) is still an E2EE frame. A decrypted Opus
 * frame matches only by chance: its last two bytes must both be 0xFA and the one before them a
 * size that fits, about one packet in 200,000 (a 20 ms drop-out per hour of speech).
 */
export function isUndecryptedE2eeFrame(packet: Uint8Array): boolean {
  const n = packet.length;
  if (n <= MIN_SUPPLEMENTAL_BYTES || packet[n - 1] !== MAGIC_BYTE || packet[n - 2] !== MAGIC_BYTE) return false;
  const supplemental = packet[n - 3]!;
  return supplemental >= MIN_SUPPLEMENTAL_BYTES && supplemental < n;
}
