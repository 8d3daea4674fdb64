// Scripted fake users talking in a voice channel: PCM → 20 ms Opus packets → RTP to the bot,
// paced on a 20 ms clock, with optional (seeded, reproducible) loss, jitter and reordering. Like
// the real SFU, the fake announces a user's SSRC with op 5 before the first packet, and again on
// every new voice session of the bot.
import { setTimeout as sleep } from 'node:timers/promises';
import { loadOpus, OPUS_FRAME_SAMPLES, type OpusCodec } from '../../core/voice/opus.ts';
import { OPUS_SILENCE_FRAME } from './rtp.ts';
import type { FakeVoiceServer, VoiceSession } from './voice-server.ts';
import { seededRandom } from '../shared/pcm.ts';

export { seededRandom };

export interface SpeakOptions {
  /** Probability (0..1) that a packet is never sent. */
  loss?: number;
  /** Each packet is delayed by a random 0..jitterMs on top of its 20 ms slot. */
  jitterMs?: number;
  /** Probability (0..1) that a packet swaps places with the next one. */
  reorder?: number;
  /** PRNG seed for loss/jitter/reorder (default 1): the same seed gives the same pattern. */
  seed?: number;
  /** Send the 5 Opus silence frames a real client sends before pausing (default true). */
  silenceTail?: boolean;
  /** Add a one-word RTP header extension (0xBEDE) to every packet, as real clients do. */
  extensionWords?: number;
}

export interface SpeakResult {
  packetsPlanned: number;
  packetsSent: number;
}

interface SpeakerState {
  ssrc: number;
  codec: OpusCodec;
  sequence: number;
  timestamp: number;
  announcedTo: WeakSet<VoiceSession>;
}

export class FakeSpeakers {
  #speakers = new Map<string, SpeakerState>();
  #nextSsrc = 50_001;
  #voice: FakeVoiceServer;
  #botSession: () => VoiceSession | undefined;

  constructor(voice: FakeVoiceServer, botSession: () => VoiceSession | undefined) {
    this.#voice = voice;
    this.#botSession = botSession;
  }

  ssrcOf(userId: string): number {
    return this.#state(userId).ssrc;
  }

  #state(userId: string): SpeakerState {
    let state = this.#speakers.get(userId);
    if (!state) {
      state = { ssrc: this.#nextSsrc++, codec: loadOpus().create(), sequence: 1000, timestamp: 48_000, announcedTo: new WeakSet() };
      this.#speakers.set(userId, state);
    }
    return state;
  }

  /** Encode `pcm` (48 kHz stereo interleaved) and stream it to the bot in real time. */
  async speak(userId: string, pcm: Int16Array, options: SpeakOptions = {}): Promise<SpeakResult> {
    const state = this.#state(userId);
    const random = seededRandom(options.seed ?? 1);
    const frameValues = OPUS_FRAME_SAMPLES * 2;
    const packets: { sequence: number; timestamp: number; opus: Buffer; at: number }[] = [];
    const frame = Buffer.alloc(frameValues * 2);
    for (let offset = 0; offset < pcm.length; offset += frameValues) {
      frame.fill(0);
      const slice = pcm.subarray(offset, Math.min(offset + frameValues, pcm.length));
      Buffer.from(slice.buffer, slice.byteOffset, slice.byteLength).copy(frame);
      packets.push({ sequence: state.sequence, timestamp: state.timestamp, opus: state.codec.encode(frame), at: 0 });
      state.sequence = (state.sequence + 1) & 0xffff;
      state.timestamp = (state.timestamp + OPUS_FRAME_SAMPLES) >>> 0;
    }
    if (options.silenceTail ?? true) {
      for (let i = 0; i < 5; i++) {
        packets.push({ sequence: state.sequence, timestamp: state.timestamp, opus: OPUS_SILENCE_FRAME, at: 0 });
        state.sequence = (state.sequence + 1) & 0xffff;
        state.timestamp = (state.timestamp + OPUS_FRAME_SAMPLES) >>> 0;
      }
    }
    const planned = packets.length;
    const schedule = packets.filter(() => random() >= (options.loss ?? 0));
    for (let i = 0; i + 1 < schedule.length; i++) {
      if (random() < (options.reorder ?? 0)) {
        [schedule[i], schedule[i + 1]] = [schedule[i + 1], schedule[i]];
        i++;
      }
    }
    schedule.forEach((p, i) => (p.at = i * 20 + random() * (options.jitterMs ?? 0)));
    schedule.sort((a, b) => a.at - b.at);

    let sent = 0;
    const start = performance.now();
    for (const packet of schedule) {
      const session = this.#botSession();
      if (session && !state.announcedTo.has(session)) {
        // The SSRC → user mapping must reach the bot before the audio does (op 5 over TLS/TCP).
        this.#voice.sendJson(session, 5, { user_id: userId, ssrc: state.ssrc, speaking: 1 });
        state.announcedTo.add(session);
        await sleep(100);
      }
      const wait = start + packet.at - performance.now();
      if (wait > 1) await sleep(wait);
      const current = this.#botSession();
      if (!current) continue;
      this.#voice.sendRtpToBot(current, { ssrc: state.ssrc, sequence: packet.sequence, timestamp: packet.timestamp, extensionWords: options.extensionWords }, packet.opus);
      sent++;
    }
    return { packetsPlanned: planned, packetsSent: sent };
  }

  close(): void {
    for (const state of this.#speakers.values()) state.codec.destroy();
    this.#speakers.clear();
  }
}
