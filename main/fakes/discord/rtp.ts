// RTP framing and the two transport encryption modes Discord still offers (`aead_*_rtpsize`),
// written from the public voice docs (voice-connections.mdx "Transport Encryption", "Voice Packet
// Structure"), independently of @discordjs/voice's own implementation.
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';

export const ENCRYPTION_MODES = ['aead_aes256_gcm_rtpsize', 'aead_xchacha20_poly1305_rtpsize'] as const;
export type EncryptionMode = (typeof ENCRYPTION_MODES)[number];

export const OPUS_PAYLOAD_TYPE = 0x78;
/** Opus "silence" frame clients send (5 of them) before pausing. */
export const OPUS_SILENCE_FRAME = Buffer.from([0xf8, 0xff, 0xfe]);
const TAG_BYTES = 16;
const NONCE_SUFFIX_BYTES = 4;

export interface RtpHeaderFields {
  sequence: number;
  timestamp: number;
  ssrc: number;
  /** Optional one-word 0xBEDE header extension (its body is encrypted with the payload). */
  extensionWords?: number;
  /** RTP padding (RFC 3550 §5.1): this many bytes after the payload, the last holding the count; sets the P bit. */
  paddingBytes?: number;
}

export interface ParsedRtp {
  sequence: number;
  timestamp: number;
  ssrc: number;
  payloadType: number;
  /** Decrypted payload (Opus), with extension body and padding removed. */
  payload: Buffer;
  nonce: number;
}

function nonceBytes(mode: EncryptionMode, counter: number): Buffer {
  const nonce = Buffer.alloc(mode === 'aead_aes256_gcm_rtpsize' ? 12 : 24);
  nonce.writeUInt32BE(counter >>> 0, 0);
  return nonce;
}

function seal(mode: EncryptionMode, key: Uint8Array, nonceCounter: number, aad: Buffer, plain: Buffer): Buffer {
  const nonce = nonceBytes(mode, nonceCounter);
  if (mode === 'aead_aes256_gcm_rtpsize') {
    const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad);
    return Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  }
  return Buffer.from(xchacha20poly1305(key, nonce, aad).encrypt(plain));
}

function open(mode: EncryptionMode, key: Uint8Array, nonceCounter: number, aad: Buffer, sealed: Buffer): Buffer {
  const nonce = nonceBytes(mode, nonceCounter);
  if (mode === 'aead_aes256_gcm_rtpsize') {
    const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad);
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]);
  }
  return Buffer.from(xchacha20poly1305(key, nonce, aad).decrypt(sealed));
}

/** Build an encrypted RTP packet: header (AAD) ‖ ciphertext ‖ tag ‖ u32 BE nonce counter. */
export function encryptRtp(
  mode: EncryptionMode,
  key: Uint8Array,
  nonceCounter: number,
  fields: RtpHeaderFields,
  opus: Buffer,
): Buffer {
  const words = fields.extensionWords ?? 0;
  const padding = Math.min(Math.max(fields.paddingBytes ?? 0, 0), 255);
  const header = Buffer.alloc(12 + (words > 0 ? 4 : 0));
  header[0] = 0x80 | (padding > 0 ? 0x20 : 0) | (words > 0 ? 0x10 : 0);
  header[1] = OPUS_PAYLOAD_TYPE;
  header.writeUInt16BE(fields.sequence & 0xffff, 2);
  header.writeUInt32BE(fields.timestamp >>> 0, 4);
  header.writeUInt32BE(fields.ssrc >>> 0, 8);
  if (words > 0) {
    header.writeUInt16BE(0xbede, 12);
    header.writeUInt16BE(words, 14);
  }
  const parts = [Buffer.alloc(words * 4), opus];
  if (padding > 0) {
    const pad = Buffer.alloc(padding);
    pad[padding - 1] = padding;
    parts.push(pad);
  }
  const plain = words > 0 || padding > 0 ? Buffer.concat(parts) : opus;
  const sealed = seal(mode, key, nonceCounter, header, plain);
  const suffix = Buffer.alloc(NONCE_SUFFIX_BYTES);
  suffix.writeUInt32BE(nonceCounter >>> 0, 0);
  return Buffer.concat([header, sealed, suffix]);
}

/** Parse and decrypt an RTP packet sent by a client. Throws on a bad tag. */
export function decryptRtp(mode: EncryptionMode, key: Uint8Array, packet: Buffer): ParsedRtp {
  if (packet.length < 12 + TAG_BYTES + NONCE_SUFFIX_BYTES) throw new Error('RTP packet too short');
  const csrcCount = packet[0] & 0x0f;
  const hasExtension = (packet[0] & 0x10) !== 0;
  const hasPadding = (packet[0] & 0x20) !== 0;
  let headerLength = 12 + 4 * csrcCount;
  let extensionWords = 0;
  if (hasExtension) {
    extensionWords = packet.readUInt16BE(headerLength + 2);
    headerLength += 4;
  }
  const nonce = packet.readUInt32BE(packet.length - NONCE_SUFFIX_BYTES);
  const sealed = packet.subarray(headerLength, packet.length - NONCE_SUFFIX_BYTES);
  let payload = open(mode, key, nonce, packet.subarray(0, headerLength), sealed);
  if (hasPadding && payload.length > 0) payload = payload.subarray(0, payload.length - payload[payload.length - 1]);
  payload = payload.subarray(extensionWords * 4);
  return {
    sequence: packet.readUInt16BE(2),
    timestamp: packet.readUInt32BE(4),
    ssrc: packet.readUInt32BE(8),
    payloadType: packet[1] & 0x7f,
    payload,
    nonce,
  };
}
