// Records what the bot plays: every RTP packet it sends (after transport decryption) and the
// Opus payloads decoded back to 48 kHz stereo s16 PCM, per SSRC (a new voice session gets a new
// SSRC) and merged in arrival order. Under DAVE the PCM is what a member of the call hears: a fake
// listener (a member of the bot's MLS group) opens each E2EE frame; a frame it cannot open, or a
// plain frame while its group runs E2EE, is not heard (counted, no PCM).
import { loadOpus, type OpusCodec, type OpusLibraryName } from '../../core/voice/opus.ts';
import { concatPcm } from '../shared/pcm.ts';
import type { DaveGroup } from './dave/group.ts';
import type { ParsedRtp } from './rtp.ts';

export interface RecordedPacket {
  ssrc: number;
  sequence: number;
  timestamp: number;
  nonce: number;
  opusBytes: number;
  /** The 3-byte Opus silence frame F8 FF FE. */
  silence: boolean;
  /** The payload was a DAVE E2EE frame (…‖ 0xFAFA). */
  e2ee: boolean;
  /** The listener could play it (decrypted, silence, or plain while no E2EE is in force). */
  heard: boolean;
  /** Channels coded in the Opus packet (its TOC byte's stereo bit, RFC 6716 §3.1); null when not heard. */
  opusChannels: 1 | 2 | null;
  receivedAt: number;
}

/** What the DAVE listener saw of the bot's frames. */
export interface ListenerCounts {
  /** Non-silence frames the bot sent. */
  framesSent: number;
  /** E2EE frames the listener decrypted. */
  decrypted: number;
  /** E2EE frames the listener could not decrypt. */
  undecryptable: number;
  /** Plain (unencrypted, non-silence) frames. */
  plain: number;
  /** Plain frames sent while the group was ready at v1: audio that left the bot unencrypted. */
  plainWhileGroupReady: number;
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
  readonly listener: ListenerCounts = {
    framesSent: 0,
    decrypted: 0,
    undecryptable: 0,
    plain: 0,
    plainWhileGroupReady: 0,
  };
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

  onPacket(rtp: ParsedRtp, dave: DaveGroup | null = null): void {
    const silence =
      rtp.payload.length === 3 && rtp.payload[0] === 0xf8 && rtp.payload[1] === 0xff && rtp.payload[2] === 0xfe;
    let opus: Buffer | null = rtp.payload;
    let e2ee = false;
    if (dave && !silence) {
      const frame = dave.openBotFrame(rtp.payload);
      e2ee = frame.kind === 'e2ee' || frame.kind === 'undecryptable';
      opus = frame.opus;
      this.listener.framesSent += 1;
      if (frame.kind === 'e2ee') this.listener.decrypted += 1;
      else if (frame.kind === 'undecryptable') this.listener.undecryptable += 1;
      else if (frame.kind === 'plain') {
        this.listener.plain += 1;
        if (frame.groupReady) this.listener.plainWhileGroupReady += 1;
      }
    } else if (!silence) {
      // No DAVE group (v0): every frame is plain and heard.
      this.listener.framesSent += 1;
      this.listener.plain += 1;
    }
    this.packets.push({
      ssrc: rtp.ssrc,
      sequence: rtp.sequence,
      timestamp: rtp.timestamp,
      nonce: rtp.nonce,
      opusBytes: rtp.payload.length,
      silence,
      e2ee,
      heard: opus !== null,
      opusChannels: opus && opus.length > 0 ? ((opus[0]! & 0x04) !== 0 ? 2 : 1) : null,
      receivedAt: Date.now(),
    });
    if (this.packets.length > 50 * 600) this.packets.splice(0, this.packets.length - 50 * 600);
    let track = this.#tracks.get(rtp.ssrc);
    if (!track) {
      track = { codec: loadOpus(this.#opusLibrary).create(), chunks: [], samples: 0 };
      this.#tracks.set(rtp.ssrc, track);
    }
    let pcm: Int16Array;
    try {
      if (!opus) return;
      const decoded = track.codec.decode(opus);
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
