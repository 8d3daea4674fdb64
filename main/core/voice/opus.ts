// One Opus codec shape over the two libraries we can ship: the native @discordjs/opus (fast,
// needs a build per Node/Electron ABI) and opusscript (Emscripten, works everywhere, slower).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const OPUS_RATE = 48_000;
export const OPUS_CHANNELS = 2;
/** Samples per channel in one 20 ms frame at 48 kHz. */
export const OPUS_FRAME_SAMPLES = 960;
/** libopus's OPUS_SET_COMPLEXITY request (opus_defines.h). */
export const OPUS_SET_COMPLEXITY_REQUEST = 4010;
/**
 * libopus's OPUS_RESET_STATE request (opus_defines.h): the state of a fresh encoder, its settings
 * (complexity) kept. It takes no argument; both bindings pass one, which libopus does not read.
 */
export const OPUS_RESET_STATE = 4028;
/**
 * Encoder complexity for the bot's voice (libopus default: 10). 5 is WebRTC's setting on mobile:
 * on a speech-like signal it measured within 0.2 dB SNR of 10 at 32 and 64 kbit/s (4 lost 1.3-1.9 dB)
 * for a quarter to a third less CPU per frame (`node bench/opus-complexity.ts`; docs/audio.md).
 */
export const VOICE_ENCODER_COMPLEXITY = 5;
/** The Opus silence frame Discord's clients send before pausing and never E2EE-encrypt (voice-connections.mdx "Voice Data Interpolation"). */
export const OPUS_SILENCE_FRAME = Buffer.from([0xf8, 0xff, 0xfe]);

export type OpusLibraryName = '@discordjs/opus' | 'opusscript';

/** Which codec calls will use and why: logged at start-up and reported by /health before any call. */
export interface OpusChoice {
  /** native: the @discordjs/opus addon; wasm: opusscript (Emscripten), several times slower per frame. */
  impl: 'native' | 'wasm';
  library: OpusLibraryName;
  /** Why this one; for a fallback, the native loader's error. */
  reason: string;
}

/** A stateful 48 kHz stereo Opus encoder+decoder (one per stream: Opus state is per stream). */
export interface OpusCodec {
  /** 20 ms of s16le interleaved stereo (3840 bytes) → one Opus packet. */
  encode(pcm: Buffer): Buffer;
  /** One Opus packet → s16le interleaved stereo PCM (3840 bytes for a 20 ms packet). */
  decode(packet: Buffer): Buffer;
  destroy(): void;
}

/**
 * A 48 kHz **mono** Opus encoder for what the bot says. The model speaks mono, so a stereo encoder
 * spends its time and bits on two identical channels: mono costs about 40 % less CPU per frame
 * (92 vs 146 µs measured) and half the bytes. Opus receivers decode any packet at any channel
 * count (RFC 7587: the SDP's "opus/48000/2" is always 2; a mono packet decodes to both channels),
 * which is how Discord clients play it; Songbird's `MixMode::Mono` sends the same.
 */
export interface OpusMonoEncoder {
  /** 20 ms of s16le mono (960 samples, 1920 bytes) → one Opus packet. */
  encode(pcm: Buffer): Buffer;
  /**
   * Forget the stream so far: the next packet is what a new encoder would make of it. One encoder
   * serves a connection's replies this way; @discordjs/opus frees an encoder (55 kB of native
   * memory V8 is not told of) only when a major GC finalizes its wrapper, so one per reply piled up
   * in glibc's heap between GCs (heaptrack, the day soak of 2026-12-03: 10 live after 10 minutes).
   */
  reset(): void;
  destroy(): void;
}

/**
 * A 48 kHz **mono** Opus decoder for what a speaker says. Everything a speaker's audio feeds (the
 * model's 16 kHz input, the voice gate, barge-in) is mono, so decoding both channels only for them
 * to be averaged is work thrown away: libopus downmixes a stereo packet inside the decoder to
 * (L + R) / 2 (CELT before its inverse MDCT, so one transform instead of two; SILK outputs its mid
 * channel), the same average the 16 kHz downsampler took, within rounding.
 */
export interface OpusMonoDecoder {
  /** One Opus packet (mono or stereo) → s16le mono PCM (1920 bytes for a 20 ms packet). */
  decode(packet: Buffer): Buffer;
  destroy(): void;
}

export interface OpusFactory {
  readonly library: OpusLibraryName;
  readonly choice: OpusChoice;
  create(): OpusCodec;
  createMonoEncoder(): OpusMonoEncoder;
  createMonoDecoder(): OpusMonoDecoder;
}

/** What `require('@discordjs/opus')` hands back (the part we use). */
export interface NativeOpusModule {
  OpusEncoder: new (rate: number, channels: number) => NativeEncoder;
}

export interface NativeEncoder {
  encode(buf: Buffer): Buffer;
  decode(buf: Buffer): Buffer;
  applyEncoderCTL(ctl: number, value: number): void;
}
interface OpusScriptInstance {
  encode(buf: Buffer, frameSize: number): Buffer;
  decode(buf: Buffer): Buffer;
  encoderCTL(ctl: number, arg: number): void;
  delete(): void;
}
interface OpusScriptClass {
  new (rate: number, channels: number, application: number): OpusScriptInstance;
  Application: { AUDIO: number };
}

function nativeFactory(loadNative: () => NativeOpusModule): OpusFactory {
  const { OpusEncoder } = loadNative();
  // Probe once so a broken prebuild (wrong ABI) fails here, not mid-call.
  new OpusEncoder(OPUS_RATE, OPUS_CHANNELS);
  return {
    library: '@discordjs/opus',
    choice: { impl: 'native', library: '@discordjs/opus', reason: 'the native @discordjs/opus addon loaded' },
    create() {
      const codec = new OpusEncoder(OPUS_RATE, OPUS_CHANNELS);
      return { encode: (pcm) => codec.encode(pcm), decode: (packet) => codec.decode(packet), destroy() {} };
    },
    createMonoEncoder() {
      const encoder = new OpusEncoder(OPUS_RATE, 1);
      encoder.applyEncoderCTL(OPUS_SET_COMPLEXITY_REQUEST, VOICE_ENCODER_COMPLEXITY);
      return {
        encode: (pcm) => encoder.encode(pcm),
        reset: () => encoder.applyEncoderCTL(OPUS_RESET_STATE, 0),
        destroy() {},
      };
    },
    createMonoDecoder() {
      const decoder = new OpusEncoder(OPUS_RATE, 1);
      return { decode: (packet) => decoder.decode(packet), destroy() {} };
    },
  };
}

function opusscriptFactory(reason: string): OpusFactory {
  const OpusScript = require('opusscript') as OpusScriptClass;
  return {
    library: 'opusscript',
    choice: { impl: 'wasm', library: 'opusscript', reason },
    create() {
      const codec = new OpusScript(OPUS_RATE, OPUS_CHANNELS, OpusScript.Application.AUDIO);
      return {
        encode: (pcm) => Buffer.from(codec.encode(pcm, OPUS_FRAME_SAMPLES)),
        // opusscript hands back a view into its heap: copy before the next call overwrites it.
        decode: (packet) => Buffer.from(codec.decode(packet)),
        destroy: () => codec.delete(),
      };
    },
    createMonoEncoder() {
      const encoder = new OpusScript(OPUS_RATE, 1, OpusScript.Application.AUDIO);
      encoder.encoderCTL(OPUS_SET_COMPLEXITY_REQUEST, VOICE_ENCODER_COMPLEXITY);
      return {
        encode: (pcm) => Buffer.from(encoder.encode(pcm, OPUS_FRAME_SAMPLES)),
        reset: () => encoder.encoderCTL(OPUS_RESET_STATE, 0),
        destroy: () => encoder.delete(),
      };
    },
    createMonoDecoder() {
      const decoder = new OpusScript(OPUS_RATE, 1, OpusScript.Application.AUDIO);
      // A view into opusscript's heap: copied before the next call overwrites it.
      return { decode: (packet) => Buffer.from(decoder.decode(packet)), destroy: () => decoder.delete() };
    },
  };
}

export interface SelectOpusOptions {
  /** Force one library (tests, or an Electron build without the addon). */
  prefer?: OpusLibraryName;
  /** How the native addon is loaded; tests pass one that throws to see the fallback. */
  loadNative?: () => NativeOpusModule;
}

const requireNative = () => require('@discordjs/opus') as NativeOpusModule;

/** The first line of a loader error: enough to name the cause (wrong ABI, missing file) in one log line. */
function loaderMessage(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.trim();
}

/**
 * Choose the Opus library: @discordjs/opus when its native module loads, otherwise opusscript, with
 * the reason recorded in `choice` (never a silent fallback).
 */
export function selectOpus(options: SelectOpusOptions = {}): OpusFactory {
  if (options.prefer === 'opusscript') return opusscriptFactory('opusscript was requested');
  try {
    return nativeFactory(options.loadNative ?? requireNative);
  } catch (error) {
    if (options.prefer === '@discordjs/opus') throw error;
    return opusscriptFactory(`the native @discordjs/opus addon failed to load: ${loaderMessage(error)}`);
  }
}

const cache = new Map<string, OpusFactory>();

/** `selectOpus` once per process (per preference): every stream shares the choice. */
export function loadOpus(prefer?: OpusLibraryName): OpusFactory {
  const key = prefer ?? 'auto';
  let factory = cache.get(key);
  if (!factory) {
    factory = selectOpus({ prefer });
    cache.set(key, factory);
  }
  return factory;
}
