// Scripted fake users talking in a voice channel: PCM → 20 ms Opus packets → RTP to the bot,
// paced on a 20 ms clock, with optional (seeded, reproducible) loss, jitter and reordering. Like
// the real SFU, the fake announces a user's SSRC with op 5 before the first packet, and again on
// every new voice session of the bot. Like Discord's clients, each speaker is a DAVE member that
// E2EE-encrypts its Opus frames (dave/group.ts; while the bot is still joining the group, with a key
// the bot does not have yet: a member already in the call does not wait for it), sends silent 20 ms frames
// as the unencrypted Opus silence frame, carries a 0xBEDE header extension, and pads some packets
// (P bit), which a receiver must strip before DAVE decryption.
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import { loadOpus, OPUS_FRAME_SAMPLES, type OpusCodec } from '../../core/voice/opus.ts';
import { OPUS_SILENCE_FRAME } from './rtp.ts';
import type { SpeakerFrame } from './dave/group.ts';
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
  /** Words of the RTP header extension (0xBEDE) on every packet (default 1, as Discord's clients send; 0 = none). */
  extensionWords?: number;
  /** Share (0..1) of packets sent with the P bit and 1-32 padding bytes (default 0.15). */
  paddingShare?: number;
  /** Damage the E2EE ciphertext of the encrypted frames with these indexes (sending order): a forced run of decrypt failures. */
  corruptFrames?: { from: number; count: number };
  /** Called with the wall-clock time (Date.now()) of every packet sent (benchmarks measure deaf windows with it). */
  onSent?: (at: number) => void;
}

export interface SpeakResult {
  packetsPlanned: number;
  packetsSent: number;
  /** Of the sent packets: E2EE-encrypted for the bot, plain (silence frames, or a call without E2EE), padded. */
  e2eeFrames: number;
  passthroughFrames: number;
  /** E2EE-encrypted for a group the bot had not joined yet (it cannot decrypt them). */
  foreignE2eeFrames: number;
  paddedFrames: number;
  corruptedFrames: number;
  /**
   * The user left the bot's channel before the utterance ended, so the rest of it was never sent:
   * a client that leaves a voice channel stops sending, and the SFU relays nothing more from it.
   */
  leftMidway: boolean;
}

/** Totals over every utterance of every speaker (benchmarks read these). */
export interface SpeakerTotals {
  framesSent: number;
  e2eeFrames: number;
  passthroughFrames: number;
  foreignE2eeFrames: number;
  paddedFrames: number;
  corruptedFrames: number;
}

/** A digitally silent 20 ms frame is sent as the Opus silence frame, as Discord's clients do between words. */
const SILENT_PEAK = 0;

interface SpeakerState {
  ssrc: number;
  codec: OpusCodec;
  sequence: number;
  timestamp: number;
  announcedTo: WeakSet<VoiceSession>;
  /** Bumped each time the user leaves the bot's channel: an utterance begun before it stops. */
  leaves: number;
}

/** Frames encoded between yields to the event loop (about 2 ms of work). */
const ENCODE_BATCH_FRAMES = 8;

export class FakeSpeakers {
  readonly totals: SpeakerTotals = {
    framesSent: 0,
    e2eeFrames: 0,
    passthroughFrames: 0,
    foreignE2eeFrames: 0,
    paddedFrames: 0,
    corruptedFrames: 0,
  };
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
      state = {
        ssrc: this.#nextSsrc++,
        codec: loadOpus().create(),
        sequence: 1000,
        timestamp: 48_000,
        announcedTo: new WeakSet(),
        leaves: 0,
      };
      this.#speakers.set(userId, state);
    }
    return state;
  }

  /** Encode `pcm` (48 kHz stereo interleaved) and stream it to the bot in real time. */
  async speak(userId: string, pcm: Int16Array, options: SpeakOptions = {}): Promise<SpeakResult> {
    const state = this.#state(userId);
    const leavesAtStart = state.leaves; // the caller checked the user is in the channel now
    const random = seededRandom(options.seed ?? 1);
    const frameValues = OPUS_FRAME_SAMPLES * 2;
    // The whole utterance is encoded before the first packet goes out (as before), but in batches
    // that yield to the event loop: encoding it in one go blocked this process ~0.3 ms per frame,
    // so with several speakers starting together the others' packets went out late, in bursts a
    // real client never sends (10 speakers: 23 % of frames never reached the core).
    const packets: { sequence: number; timestamp: number; opus: Buffer; at: number }[] = [];
    const frame = Buffer.alloc(frameValues * 2);
    for (let offset = 0; offset < pcm.length; offset += frameValues) {
      frame.fill(0);
      const slice = pcm.subarray(offset, Math.min(offset + frameValues, pcm.length));
      Buffer.from(slice.buffer, slice.byteOffset, slice.byteLength).copy(frame);
      const opus = peak(slice) <= SILENT_PEAK ? OPUS_SILENCE_FRAME : state.codec.encode(frame);
      packets.push({ sequence: state.sequence, timestamp: state.timestamp, opus, at: 0 });
      state.sequence = (state.sequence + 1) & 0xffff;
      state.timestamp = (state.timestamp + OPUS_FRAME_SAMPLES) >>> 0;
      if (packets.length % ENCODE_BATCH_FRAMES === 0) await setImmediate();
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
    const paddingShare = options.paddingShare ?? 0.15;
    const extensionWords = options.extensionWords ?? 1;
    const corrupt = options.corruptFrames;
    const result: SpeakResult = {
      packetsPlanned: planned,
      packetsSent: 0,
      e2eeFrames: 0,
      passthroughFrames: 0,
      foreignE2eeFrames: 0,
      paddedFrames: 0,
      corruptedFrames: 0,
      leftMidway: false,
    };

    // A user already in the call talks at once, whether or not the bot has joined its E2EE group
    // yet: what the bot cannot decrypt then is sealed for the others (dave/group.ts encryptFrom).
    let sent = 0;
    const announce = async (): Promise<void> => {
      const session = this.#botSession();
      if (!session || state.announcedTo.has(session)) return;
      // The SSRC → user mapping must reach the bot before the audio does (op 5 over TLS/TCP).
      this.#voice.sendJson(session, 5, { user_id: userId, ssrc: state.ssrc, speaking: 1 });
      state.announcedTo.add(session);
      await sleep(100);
    };
    // Announce first, then start the 20 ms clock: otherwise the first five packets go out at once.
    await announce();
    const start = performance.now();
    for (const packet of schedule) {
      // A new voice session of the bot (reconnect) hears the mapping again; a user who left is not announced.
      if (state.leaves === leavesAtStart) await announce();
      const wait = start + packet.at - performance.now();
      if (wait > 1) await sleep(wait);
      if (state.leaves !== leavesAtStart) {
        result.leftMidway = true;
        break;
      }
      let current = this.#botSession();
      if (!current) continue;
      for (let held = 0; current?.dave?.rekeying && held < 50; held++) {
        await sleep(2);
        current = this.#botSession();
      }
      if (!current) continue;
      // Encrypted at send time: the group (epoch, version) may change in the middle of an utterance.
      const rekeyed =
        !packet.opus.equals(OPUS_SILENCE_FRAME) && this.#voice.faults.room.silentlyRekeyed(userId, current.dave);
      const frame: SpeakerFrame = rekeyed
        ? { payload: this.#voice.faults.room.seal(packet.opus), kind: 'foreign' }
        : current.dave
          ? current.dave.encryptFrom(userId, packet.opus)
          : { payload: packet.opus, kind: 'plain' };
      if (frame.kind === 'foreign') result.foreignE2eeFrames++;
      else if (frame.kind === 'e2ee') {
        if (corrupt && result.e2eeFrames >= corrupt.from && result.e2eeFrames < corrupt.from + corrupt.count) {
          frame.payload[0] ^= 0xff;
          result.corruptedFrames++;
        }
        result.e2eeFrames++;
      } else result.passthroughFrames++;
      const paddingBytes = random() < paddingShare ? 1 + Math.floor(random() * 32) : 0;
      if (paddingBytes > 0) result.paddedFrames++;
      this.#voice.sendRtpToBot(
        current,
        { ssrc: state.ssrc, sequence: packet.sequence, timestamp: packet.timestamp, extensionWords, paddingBytes },
        frame.payload,
      );
      options.onSent?.(Date.now());
      sent++;
    }
    result.packetsSent = sent;
    this.totals.framesSent += sent;
    this.totals.e2eeFrames += result.e2eeFrames;
    this.totals.passthroughFrames += result.passthroughFrames;
    this.totals.foreignE2eeFrames += result.foreignE2eeFrames;
    this.totals.paddedFrames += result.paddedFrames;
    this.totals.corruptedFrames += result.corruptedFrames;
    return result;
  }

  /**
   * The user left the channel: the bot's voice client forgot their SSRC (op 13), so, as Discord
   * does, their next utterance is announced again (op 5) before its audio; an utterance they were
   * in the middle of stops there (before, its rest went on as frames sealed outside the group, and
   * the 120-minute run of e03aac2 counted a visitor's phrase cut by leaving as one the bridge lost).
   */
  forget(userId: string): void {
    const state = this.#speakers.get(userId);
    if (!state) return;
    state.announcedTo = new WeakSet();
    state.leaves++;
  }

  close(): void {
    for (const state of this.#speakers.values()) state.codec.destroy();
    this.#speakers.clear();
  }
}

function peak(pcm: Int16Array): number {
  let max = 0;
  for (const v of pcm) if (Math.abs(v) > max) max = Math.abs(v);
  return max;
}
