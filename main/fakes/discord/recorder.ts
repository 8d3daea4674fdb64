// Records what the bot plays: every RTP packet it sends (after transport decryption) and the
// Opus payloads decoded back to 48 kHz stereo s16 PCM, per SSRC (a new voice session gets a new
// SSRC) and merged in arrival order.
import { loadOpus, type OpusCodec, type OpusLibraryName } from '../../core/voice/opus.ts';
import { concatPcm } from '../shared/pcm.ts';
import type { ParsedRtp } from './rtp.ts';

export interface RecordedPacket {
  ssrc: number;
  sequence: number;
  timestamp: number;
  nonce: number;
  opusBytes: number;
  /** The 3-byte Opus silence frame F8 FF FE. */
  silence: boolean;
  receivedAt: number;
}

interface Track {
  codec: OpusCodec;
  chunks: Int16Array[];
  samples: number;
}

export interface RecorderOptions {
  /** Keep at most this many seconds of PCM per SSRC (oldest dropped); default 120. */
  maxSeconds?: number;
  opusLibrary?: OpusLibraryName;
}

export class BotAudioRecorder {
  readonly packets: RecordedPacket[] = [];
  decodeErrors = 0;
  #tracks = new Map<number, Track>();
  #merged: Int16Array[] = [];
  #maxValues: number;
  #opusLibrary: OpusLibraryName | undefined;

  constructor(options: RecorderOptions = {}) {
    this.#maxValues = Math.round((options.maxSeconds ?? 120) * 48_000 * 2);
    this.#opusLibrary = options.opusLibrary;
  }

  /** SSRCs the bot has sent from, in first-seen order. */
  get ssrcs(): number[] {
    return [...this.#tracks.keys()];
  }

  onPacket(rtp: ParsedRtp): void {
    const silence = rtp.payload.length === 3 && rtp.payload[0] === 0xf8 && rtp.payload[1] === 0xff && rtp.payload[2] === 0xfe;
    this.packets.push({ ssrc: rtp.ssrc, sequence: rtp.sequence, timestamp: rtp.timestamp, nonce: rtp.nonce, opusBytes: rtp.payload.length, silence, receivedAt: Date.now() });
    if (this.packets.length > 50 * 600) this.packets.splice(0, this.packets.length - 50 * 600);
    let track = this.#tracks.get(rtp.ssrc);
    if (!track) {
      track = { codec: loadOpus(this.#opusLibrary).create(), chunks: [], samples: 0 };
      this.#tracks.set(rtp.ssrc, track);
    }
    let pcm: Int16Array;
    try {
      const decoded = track.codec.decode(rtp.payload);
      pcm = new Int16Array(decoded.buffer.slice(decoded.byteOffset, decoded.byteOffset + decoded.byteLength));
    } catch {
      this.decodeErrors += 1;
      return;
    }
    track.chunks.push(pcm);
    track.samples += pcm.length;
    this.#merged.push(pcm);
    while (track.samples > this.#maxValues && track.chunks.length > 1) {
      const dropped = track.chunks.shift();
      track.samples -= dropped?.length ?? 0;
      if (dropped) this.#merged.splice(this.#merged.indexOf(dropped), 1);
    }
  }

  /** Decoded 48 kHz stereo interleaved PCM of one SSRC, or of everything the bot sent (merged). */
  pcm(ssrc?: number): Int16Array {
    return concatPcm(ssrc === undefined ? this.#merged : (this.#tracks.get(ssrc)?.chunks ?? []));
  }

  clear(): void {
    this.packets.length = 0;
    this.#merged = [];
    for (const track of this.#tracks.values()) {
      track.chunks = [];
      track.samples = 0;
    }
  }

  close(): void {
    for (const track of this.#tracks.values()) track.codec.destroy();
    this.#tracks.clear();
  }
}
