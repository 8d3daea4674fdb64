// Per-speaker receive: subscribe to each allowed speaker's Opus stream, decode to 48 kHz mono (libopus
// downmixes in the decoder: the call's audio is mono from here on, docs/audio.md "Mono inside") and
// hand on 20 ms frames, and resubscribe when a stream dies (@discordjs/voice destroys a subscription
// on any transport or DAVE decrypt error, VoiceReceiver.ts:196-207), however often it dies.
import { EndBehaviorType, type AudioReceiveStream, type VoiceReceiver } from '@discordjs/voice';
import type { Logger } from 'pino';
import { FRAME_SAMPLES_48K } from '../ports.ts';
import { isUndecryptedE2eeFrame } from './e2ee-frame.ts';
import { OPUS_SILENCE_FRAME, type OpusFactory, type OpusMonoDecoder } from './opus.ts';
import type { SpeakerHealth } from './speaker-health.ts';

/** 20 ms of decoded mono s16le. */
const MONO_FRAME_BYTES = FRAME_SAMPLES_48K * 2;
/** Resubscribes allowed per speaker per second: a stream that dies at once every time is not retried in a loop. */
const MAX_RESUBSCRIBES_PER_SECOND = 5;

export interface ReceiveSink {
  pcm(speakerId: string, frame: Int16Array): void;
  speakingStart(speakerId: string): void;
  speakingEnd(speakerId: string): void;
}

interface Speaker {
  codec: OpusMonoDecoder;
  /** The decoder's 20 ms of mono, copied here (aligned, reused for every frame of this speaker: listeners must copy what they keep). */
  frame: Int16Array;
  frameBytes: Buffer;
  stream: AudioReceiveStream | null;
  resubscribes: number[];
  retryTimer: NodeJS.Timeout | null;
  decodeErrors: number;
}

export class SpeakerReceiver {
  #receiver: VoiceReceiver;
  #isAllowed: (userId: string) => boolean;
  #opus: OpusFactory;
  #sink: ReceiveSink;
  #log: Logger;
  #speakers = new Map<string, Speaker>();
  #undecryptedFrames = 0;
  #closed = false;
  #onStart = (userId: string) => {
    if (!this.#isAllowed(userId)) {
      // No longer allowed (Settings changed mid-call): end the stream kept from when they were.
      this.#speakers.get(userId)?.stream?.destroy();
      return;
    }
    this.#subscribe(userId);
    this.#sink.speakingStart(userId);
  };
  #onEnd = (userId: string) => {
    // Also for someone removed from the allowed speakers mid-utterance (their stream still runs):
    // a start that was reported always gets its end, so the room never shows them speaking forever.
    if (this.#isAllowed(userId) || this.#speakers.get(userId)?.stream) this.#sink.speakingEnd(userId);
  };

  #onStreamError: (error: Error) => void;
  #health: SpeakerHealth | null;
  #libraryOnPacket: ((userId: string) => void) | null = null;

  constructor(
    receiver: VoiceReceiver,
    options: {
      isAllowed: (userId: string) => boolean;
      opus: OpusFactory;
      sink: ReceiveSink;
      logger: Logger;
      onStreamError?: (error: Error) => void;
      health?: SpeakerHealth;
    },
  ) {
    this.#receiver = receiver;
    this.#health = options.health ?? null;
    const health = this.#health;
    if (health) {
      // The speaking map sees every packet of a known SSRC before decryption: counted per speaker,
      // so a speaker whose packets arrive while nothing decrypts is noticed (speaker-health.ts).
      const speaking = receiver.speaking;
      const onPacket = speaking.onPacket.bind(speaking);
      this.#libraryOnPacket = onPacket;
      speaking.onPacket = (userId: string) => {
        if (options.isAllowed(userId)) health.onPacket(userId);
        else health.onUnwatchedPacket();
        onPacket(userId);
      };
    }
    this.#onStreamError = options.onStreamError ?? (() => {});
    this.#isAllowed = options.isAllowed;
    this.#opus = options.opus;
    this.#sink = options.sink;
    this.#log = options.logger;
    // `start` fires on the first packet of a burst, before the receiver looks for a subscription,
    // so subscribing here still delivers that first packet.
    receiver.speaking.on('start', this.#onStart);
    receiver.speaking.on('end', this.#onEnd);
  }

  /** Decode errors per speaker (corrupt packets are skipped, never fatal). */
  decodeErrors(userId: string): number {
    return this.#speakers.get(userId)?.decodeErrors ?? 0;
  }

  /** E2EE frames delivered before the bot could decrypt them (dropped, never decoded), all speakers. */
  get undecryptedFrames(): number {
    return this.#undecryptedFrames;
  }

  /** End `userId`'s stream and open a new one (the cheapest step against a deaf speaker). */
  resubscribe(userId: string): void {
    const speaker = this.#speakers.get(userId);
    if (speaker?.stream)
      speaker.stream.destroy(); // its close handler resubscribes while they speak
    else this.#subscribe(userId);
  }

  close(): void {
    this.#closed = true;
    if (this.#libraryOnPacket) this.#receiver.speaking.onPacket = this.#libraryOnPacket;
    this.#health?.close();
    this.#receiver.speaking.off('start', this.#onStart);
    this.#receiver.speaking.off('end', this.#onEnd);
    for (const speaker of this.#speakers.values()) {
      if (speaker.retryTimer) clearTimeout(speaker.retryTimer);
      speaker.stream?.destroy();
      speaker.codec.destroy();
    }
    this.#speakers.clear();
  }

  #speaker(userId: string): Speaker {
    let speaker = this.#speakers.get(userId);
    if (!speaker) {
      const frame = new Int16Array(FRAME_SAMPLES_48K);
      speaker = {
        codec: this.#opus.createMonoDecoder(),
        frame,
        frameBytes: Buffer.from(frame.buffer),
        stream: null,
        resubscribes: [],
        retryTimer: null,
        decodeErrors: 0,
      };
      this.#speakers.set(userId, speaker);
    }
    return speaker;
  }

  #subscribe(userId: string): void {
    const speaker = this.#speaker(userId);
    if (this.#closed || speaker.stream) return;
    // Manual end: one long-lived stream per speaker; speaking start/end come from the SpeakingMap.
    const stream = this.#receiver.subscribe(userId, { end: { behavior: EndBehaviorType.Manual } });
    speaker.stream = stream;
    stream.on('data', (packet: Buffer) => this.#decode(userId, speaker, packet));
    stream.on('error', (error: Error) => {
      this.#log.warn({ err: error, userId }, 'voice receive stream failed; resubscribing');
      this.#onStreamError(error);
    });
    stream.on('close', () => {
      if (speaker.stream === stream) speaker.stream = null;
      this.#resubscribeIfSpeaking(userId, speaker);
    });
  }

  #resubscribeIfSpeaking(userId: string, speaker: Speaker): void {
    if (this.#closed || !this.#isAllowed(userId)) return;
    const now = Date.now();
    speaker.resubscribes = speaker.resubscribes.filter((t) => now - t < 1000);
    // Not speaking: the next speaking `start` resubscribes.
    if (!this.#receiver.speaking.users.has(userId)) return;
    if (speaker.resubscribes.length >= MAX_RESUBSCRIBES_PER_SECOND) {
      // A stream that dies at once every time (a run of DAVE decrypt failures) is retried when the
      // window frees up, never given up on: the failures end when the session is rebuilt.
      if (speaker.retryTimer) return;
      speaker.retryTimer = setTimeout(
        () => {
          speaker.retryTimer = null;
          this.#resubscribeIfSpeaking(userId, speaker);
        },
        1000 - (now - speaker.resubscribes[0]),
      );
      return;
    }
    speaker.resubscribes.push(now);
    setImmediate(() => this.#subscribe(userId));
  }

  #decode(userId: string, speaker: Speaker, packet: Buffer): void {
    // Ciphertext the bot cannot open yet is a gap in what it hears, like a lost packet.
    if (isUndecryptedE2eeFrame(packet)) {
      this.#undecryptedFrames += 1;
      return;
    }
    this.#health?.onHeard(userId);
    // The silence frame a client sends before pausing was never coded by its encoder: decoding it
    // would reset the decoder's band energies while the sender's encoder keeps its own, so the next
    // talk spurt's first 60-80 ms decoded 10-30 dB too quiet (docs/audio.md "Barge-in latency").
    if (OPUS_SILENCE_FRAME.equals(packet)) {
      speaker.frame.fill(0);
      this.#sink.pcm(userId, speaker.frame);
      return;
    }
    let pcm: Buffer;
    try {
      pcm = speaker.codec.decode(packet);
    } catch {
      speaker.decodeErrors += 1;
      return;
    }
    // Discord sends 20 ms packets; a longer one is delivered as several 20 ms frames.
    for (let offset = 0; offset + MONO_FRAME_BYTES <= pcm.length; offset += MONO_FRAME_BYTES) {
      pcm.copy(speaker.frameBytes, 0, offset, offset + MONO_FRAME_BYTES);
      this.#sink.pcm(userId, speaker.frame);
    }
  }
}
