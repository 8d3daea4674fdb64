// base64 s16le on the wire (every live-model protocol we speak) ⇄ Int16Array, shared by providers.

/** base64 s16le → Int16Array, copying only when the decoded bytes are not 2-byte aligned. */
export function decodePcm(base64: string): Int16Array {
  const bytes = Buffer.from(base64, 'base64');
  const even = bytes.length & ~1;
  if (bytes.byteOffset % 2 === 0) return new Int16Array(bytes.buffer, bytes.byteOffset, even / 2);
  const copy = new Int16Array(even / 2);
  new Uint8Array(copy.buffer).set(bytes.subarray(0, even));
  return copy;
}

/** Int16Array → base64 s16le without copying the samples. */
export function encodePcm(pcm: Int16Array): string {
  return Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).toString('base64');
}
