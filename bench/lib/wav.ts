// 16-bit PCM mono WAV, read and written: the pause corpus's file format (test/fixtures/pause-corpus).
// Only what the corpus needs; anything else in a file is refused with the reason rather than guessed.

export interface MonoPcm {
  rate: number;
  samples: Int16Array;
}

/** A RIFF/WAVE file of 16-bit PCM, mono. */
export function encodeWav({ rate, samples }: MonoPcm): Buffer {
  const data = samples.length * 2;
  const out = Buffer.alloc(44 + data);
  out.write('RIFF', 0, 'ascii');
  out.writeUInt32LE(36 + data, 4);
  out.write('WAVE', 8, 'ascii');
  out.write('fmt ', 12, 'ascii');
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20); // PCM
  out.writeUInt16LE(1, 22); // mono
  out.writeUInt32LE(rate, 24);
  out.writeUInt32LE(rate * 2, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write('data', 36, 'ascii');
  out.writeUInt32LE(data, 40);
  for (let i = 0; i < samples.length; i++) out.writeInt16LE(samples[i]!, 44 + i * 2);
  return out;
}

/**
 * Reads 16-bit PCM WAV (any number of channels: channel 0 is kept). A `data` size past the end of
 * the file (espeak-ng writing a stream) is clamped to the bytes present.
 */
export function decodeWav(file: Buffer): MonoPcm {
  if (file.length < 12 || file.toString('ascii', 0, 4) !== 'RIFF' || file.toString('ascii', 8, 12) !== 'WAVE')
    throw new Error('not a RIFF/WAVE file');
  let rate = 0;
  let channels = 0;
  for (let at = 12; at + 8 <= file.length;) {
    const id = file.toString('ascii', at, at + 4);
    const size = file.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ') {
      if (file.readUInt16LE(body) !== 1 || file.readUInt16LE(body + 14) !== 16)
        throw new Error('only 16-bit PCM WAV is read');
      channels = file.readUInt16LE(body + 2);
      rate = file.readUInt32LE(body + 4);
    } else if (id === 'data') {
      if (!rate || !channels) throw new Error('WAV data before its fmt chunk');
      const frames = Math.floor(Math.min(size, file.length - body) / (2 * channels));
      const samples = new Int16Array(frames);
      for (let i = 0; i < frames; i++) samples[i] = file.readInt16LE(body + i * 2 * channels);
      return { rate, samples };
    }
    at = body + size + (size % 2);
  }
  throw new Error('WAV file has no data chunk');
}
