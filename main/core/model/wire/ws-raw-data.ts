// A WebSocket message as bytes, without a copy. `ws` hands a message over as a Buffer (the usual
// case), a list of Buffers (fragments) or an ArrayBuffer (binaryType 'arraybuffer'). Buffer.from()
// on a Buffer copies it, which for the model sockets meant one extra copy of every audio message
// (a few KiB, 25-50 a second while the model talks) before it was decoded.
import type { RawData } from 'ws';

export function rawDataBytes(raw: RawData): Buffer {
  if (Buffer.isBuffer(raw)) return raw;
  if (Array.isArray(raw)) return Buffer.concat(raw);
  return Buffer.from(raw);
}
