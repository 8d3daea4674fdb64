// A speaker's packets are decoded once each, by a mono decoder: libopus downmixes inside the decoder
// (one inverse transform instead of two), and everything the frame feeds is mono anyway. The frame
// handed on is 48 kHz mono (960 samples, docs/audio.md "Mono inside"), the (L + R) / 2 of a stereo
// decode of the same packet. A speaker who is not allowed costs no decoder and no decode.
// (docs/performance.md, #44)
import { EventEmitter } from 'node:events';
import type { VoiceReceiver } from '@discordjs/voice';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadOpus, OPUS_SILENCE_FRAME, type OpusFactory, type OpusLibraryName } from '../../../main/core/voice/opus.ts';
import { SpeakerReceiver } from '../../../main/core/voice/receive.ts';

const FRAME = 960;

/** The part of @discordjs/voice's VoiceReceiver that SpeakerReceiver uses. */
class FakeReceiver {
  readonly speaking = Object.assign(new EventEmitter(), {
    users: new Map<string, number>(),
    onPacket: (_userId: string) => undefined,
  });
  readonly streams = new Map<string, EventEmitter & { destroy(): void }>();
  subscribe(userId: string): EventEmitter {
    const stream = Object.assign(new EventEmitter(), { destroy: () => stream.emit('close') });
    this.streams.set(userId, stream);
    return stream;
  }
  /** A packet as the library delivers it: speaking start on the first of a burst, then the stream. */
  packet(userId: string, opus: Buffer): void {
    if (!this.speaking.users.has(userId)) {
      this.speaking.users.set(userId, Date.now());
      this.speaking.emit('start', userId);
    }
    this.streams.get(userId)?.emit('data', opus);
  }
}

/** The real codecs, with every decoder made and every decode counted by channel count. */
function countingOpus(library: OpusLibraryName): {
  factory: OpusFactory;
  counts: { stereoCodecs: number; monoDecoders: number; monoDecodes: number };
} {
  const real = loadOpus(library);
  const counts = { stereoCodecs: 0, monoDecoders: 0, monoDecodes: 0 };
  const factory: OpusFactory = {
    library: real.library,
    choice: real.choice,
    create: () => {
      counts.stereoCodecs += 1;
      return real.create();
    },
    createMonoEncoder: () => real.createMonoEncoder(),
    createMonoDecoder: () => {
      counts.monoDecoders += 1;
      const decoder = real.createMonoDecoder();
      return {
        decode: (packet) => {
          counts.monoDecodes += 1;
          return decoder.decode(packet);
        },
        destroy: () => decoder.destroy(),
      };
    },
  };
  return { factory, counts };
}

/** 20 ms stereo frames whose channels differ (a tone left, another right), Opus-encoded in stereo. */
function stereoPackets(frames: number): Buffer[] {
  const encoder = loadOpus('@discordjs/opus').create();
  const packets: Buffer[] = [];
  for (let f = 0; f < frames; f++) {
    const pcm = new Int16Array(FRAME * 2);
    for (let i = 0; i < FRAME; i++) {
      const t = (f * FRAME + i) / 48_000;
      pcm[2 * i] = Math.round(8000 * Math.sin(2 * Math.PI * 440 * t));
      pcm[2 * i + 1] = Math.round(5000 * Math.sin(2 * Math.PI * 1250 * t));
    }
    packets.push(encoder.encode(Buffer.from(pcm.buffer)));
  }
  return packets;
}

/** A receive path that takes only the owner's audio, counting its Opus work and keeping each frame handed on. */
function ownerOnlyReceiver(library: OpusLibraryName) {
  const receiver = new FakeReceiver();
  const { factory, counts } = countingOpus(library);
  const frames: Int16Array[] = [];
  const speakers = new SpeakerReceiver(receiver as unknown as VoiceReceiver, {
    isAllowed: (id) => id === 'owner',
    opus: factory,
    sink: {
      pcm: (_id, frame) => frames.push(frame.slice()),
      speakingStart: () => undefined,
      speakingEnd: () => undefined,
    },
    logger: pino({ level: 'silent' }),
  });
  return { receiver, counts, frames, speakers };
}

describe.each(['@discordjs/opus', 'opusscript'] as const)('speaker receive decodes mono (%s)', (library) => {
  it('decodes each packet once with a mono decoder and hands on 960 mono samples = the stereo decode averaged', () => {
    const { receiver, counts, frames, speakers } = ownerOnlyReceiver(library);
    const packets = stereoPackets(25);
    for (const packet of packets) receiver.packet('owner', packet);
    speakers.close();

    expect(counts).toEqual({ stereoCodecs: 0, monoDecoders: 1, monoDecodes: packets.length });
    expect(frames).toHaveLength(packets.length);
    const reference = loadOpus(library).create();
    let maxError = 0;
    let energy = 0;
    for (const [f, packet] of packets.entries()) {
      const stereo = reference.decode(packet);
      const lr = new Int16Array(stereo.buffer.slice(stereo.byteOffset, stereo.byteOffset + stereo.byteLength));
      const frame = frames[f]!;
      expect(frame).toHaveLength(FRAME);
      for (let i = 0; i < FRAME; i++) {
        maxError = Math.max(maxError, Math.abs(frame[i]! - (lr[2 * i]! + lr[2 * i + 1]!) / 2));
        energy += frame[i]! ** 2;
      }
    }
    reference.destroy();
    expect(energy).toBeGreaterThan(0);
    expect(maxError).toBeLessThanOrEqual(1);
  });

  it('a speaker who is not allowed costs no decoder and no decode', () => {
    const { receiver, counts, frames, speakers } = ownerOnlyReceiver(library);
    for (const packet of stereoPackets(10)) receiver.packet('stranger', packet);
    speakers.close();
    expect(counts).toEqual({ stereoCodecs: 0, monoDecoders: 0, monoDecodes: 0 });
    expect(frames).toHaveLength(0);
  });

  it('the silence frames that end a talk spurt are handed on as silence, never through the decoder', () => {
    const { receiver, counts, frames, speakers } = ownerOnlyReceiver(library);
    const packets = stereoPackets(5);
    for (const packet of packets) receiver.packet('owner', packet);
    // A client's five silence frames (never coded by its encoder: decoding them would put the
    // decoder out of step with it, docs/audio.md "Barge-in latency").
    for (let i = 0; i < 5; i++) receiver.packet('owner', Buffer.from(OPUS_SILENCE_FRAME));
    speakers.close();
    expect(counts.monoDecodes).toBe(packets.length);
    expect(frames).toHaveLength(packets.length + 5);
    expect(frames.slice(packets.length).every((f) => f.every((v) => v === 0))).toBe(true);
  });
});
