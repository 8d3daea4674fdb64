// One Opus codec shape over the two libraries we can ship: the native @discordjs/opus (fast,
// needs a build per Node/Electron ABI) and opusscript (Emscripten, works everywhere, slower).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const OPUS_RATE = 48_000;
export const OPUS_CHANNELS = 2;
/** Samples per channel in one 20 ms frame at 48 kHz. */
export const OPUS_FRAME_SAMPLES = 960;

export type OpusLibraryName = '@discordjs/opus' | 'opusscript';

/** A stateful 48 kHz stereo Opus encoder+decoder (one per stream: Opus state is per stream). */
export interface OpusCodec {
  /** 20 ms of s16le interleaved stereo (3840 bytes) → one Opus packet. */
  encode(pcm: Buffer): Buffer;
  /** One Opus packet → s16le interleaved stereo PCM (3840 bytes for a 20 ms packet). */
  decode(packet: Buffer): Buffer;
  destroy(): void;
}

export interface OpusFactory {
  readonly library: OpusLibraryName;
  create(): OpusCodec;
}

interface NativeEncoder {
  encode(buf: Buffer): Buffer;
  decode(buf: Buffer): Buffer;
}
interface OpusScriptInstance {
  encode(buf: Buffer, frameSize: number): Buffer;
  decode(buf: Buffer): Buffer;
  delete(): void;
}
interface OpusScriptClass {
  new (rate: number, channels: number, application: number): OpusScriptInstance;
  Application: { AUDIO: number };
}

function nativeFactory(): OpusFactory {
  const { OpusEncoder } = require('@discordjs/opus') as { OpusEncoder: new (rate: number, channels: number) => NativeEncoder };
  // Probe once so a broken prebuild (wrong ABI) fails here, not mid-call.
  new OpusEncoder(OPUS_RATE, OPUS_CHANNELS);
  return {
    library: '@discordjs/opus',
    create() {
      const codec = new OpusEncoder(OPUS_RATE, OPUS_CHANNELS);
      return { encode: (pcm) => codec.encode(pcm), decode: (packet) => codec.decode(packet), destroy() {} };
    },
  };
}

function opusscriptFactory(): OpusFactory {
  const OpusScript = require('opusscript') as OpusScriptClass;
  return {
    library: 'opusscript',
    create() {
      const codec = new OpusScript(OPUS_RATE, OPUS_CHANNELS, OpusScript.Application.AUDIO);
      return {
        encode: (pcm) => Buffer.from(codec.encode(pcm, OPUS_FRAME_SAMPLES)),
        // opusscript hands back a view into its heap: copy before the next call overwrites it.
        decode: (packet) => Buffer.from(codec.decode(packet)),
        destroy: () => codec.delete(),
      };
    },
  };
}

const cache = new Map<string, OpusFactory>();

/**
 * The Opus library to use: @discordjs/opus when its native module loads, otherwise opusscript.
 * `prefer: 'opusscript'` forces the fallback (tests, or an Electron build without the addon).
 */
export function loadOpus(prefer?: OpusLibraryName): OpusFactory {
  const key = prefer ?? 'auto';
  const known = cache.get(key);
  if (known) return known;
  let factory: OpusFactory;
  if (prefer === 'opusscript') factory = opusscriptFactory();
  else {
    try {
      factory = nativeFactory();
    } catch (error) {
      if (prefer === '@discordjs/opus') throw error;
      factory = opusscriptFactory();
    }
  }
  cache.set(key, factory);
  return factory;
}
