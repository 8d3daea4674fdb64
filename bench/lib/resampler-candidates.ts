// The resamplers the audio benchmark compares, behind one streaming shape: `open(input)` prepares a
// run over a whole signal cut into 20 ms frames, `step(i)` processes frame i into `output` and returns
// how many values it wrote. Frame views are cut up front so the harness itself allocates nothing.
// ffmpeg/soxr runs as a separate process over the whole signal instead (`runWhole`).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import libsamplerate from '@alexanderolsen/libsamplerate-js';

// A CommonJS (UMD) package: named ESM imports are not available at run time.
const { create: createSrc, ConverterType } = libsamplerate;
type ConverterTypeValue = (typeof ConverterType)[keyof typeof ConverterType];
export const SRC_SINC_BEST = ConverterType.SRC_SINC_BEST_QUALITY;
export const SRC_SINC_FASTEST = ConverterType.SRC_SINC_FASTEST;
import { Downsampler48kTo16k, Upsampler24kTo48k } from '../../main/core/audio/index.ts';

export interface FrameRun {
  frames: number;
  output: Int16Array;
  step(frame: number): number;
  close(): void;
}

export interface Candidate {
  name: string;
  /** Streaming run over `input` in 20 ms frames (absent for process-based candidates). */
  open?(input: Int16Array): Promise<FrameRun>;
  /** Whole-signal run (process-based candidates). */
  runWhole?(input: Int16Array): Int16Array;
  /** CPU seconds the process-based candidate spent on `input` (its own measurement). */
  cpuSeconds?(input: Int16Array): number;
  /** Why this candidate could not run here, if it cannot. */
  unavailable?: string;
  note?: string;
}

const DOWN_IN_FRAME = 960; // 20 ms of 48 kHz mono (what the decoder gives the bridge)
const UP_IN_FRAME = 480; // 20 ms of 24 kHz mono

function cut(input: Int16Array, size: number): Int16Array[] {
  const frames: Int16Array[] = [];
  for (let i = 0; i + size <= input.length; i += size) frames.push(input.subarray(i, i + size));
  return frames;
}

function copyInto(dst: Int16Array, src: Int16Array): number {
  dst.set(src);
  return src.length;
}

// ---------------------------------------------------------------------------------------------
// 48 kHz -> 16 kHz (mono, as every stage inside the bridge)

export function ourDownsampler(): Candidate {
  return {
    name: 'ours (polyphase equiripple FIR, 193 taps)',
    async open(input) {
      const frames = cut(input, DOWN_IN_FRAME);
      const ds = new Downsampler48kTo16k();
      const output = new Int16Array(400);
      return {
        frames: frames.length,
        output,
        step: (i) => copyInto(output, ds.process(frames[i]!)),
        close: () => undefined,
      };
    },
  };
}

/** The Python anchor: mean of each group of 3, astype(int16) (truncation), per frame (its L/R mean is moot on mono). */
export function anchorDownsampler(): Candidate {
  return {
    name: 'anchor (boxcar of 3)',
    note: 'JS port of the numpy code; allocates per frame like numpy does',
    async open(input) {
      const frames = cut(input, DOWN_IN_FRAME);
      const output = new Int16Array(400);
      const step = (i: number): number => {
        const frame = frames[i]!;
        const mono = Float64Array.from(frame);
        const out = new Int16Array(mono.length / 3);
        for (let k = 0; k < out.length; k++)
          out[k] = Math.trunc((mono[3 * k]! + mono[3 * k + 1]! + mono[3 * k + 2]!) / 3);
        return copyInto(output, out);
      };
      return { frames: frames.length, output, step, close: () => undefined };
    },
  };
}

function converterName(type: ConverterTypeValue): string {
  return type === ConverterType.SRC_SINC_BEST_QUALITY
    ? 'SINC_BEST'
    : type === ConverterType.SRC_SINC_MEDIUM_QUALITY
      ? 'SINC_MEDIUM'
      : 'SINC_FASTEST';
}

/** libsamplerate (WASM) on the same mono input; float in [-1, 1] at its edges. */
export function libsamplerateDownsampler(type: ConverterTypeValue): Candidate {
  return {
    name: `libsamplerate-js ${converterName(type)}`,
    async open(input) {
      const frames = cut(input, DOWN_IN_FRAME);
      const src = await createSrc(1, 48_000, 16_000, { converterType: type });
      const floatIn = new Float32Array(DOWN_IN_FRAME);
      const floatOut = new Float32Array(1024);
      const written = { frames: 0 };
      const output = new Int16Array(1024);
      const step = (i: number): number => {
        const frame = frames[i]!;
        for (let k = 0; k < floatIn.length; k++) floatIn[k] = frame[k]! / 32768;
        src.full(floatIn, floatOut, written);
        for (let k = 0; k < written.frames; k++)
          output[k] = Math.max(-32768, Math.min(32767, Math.round(floatOut[k]! * 32768)));
        return written.frames;
      };
      return { frames: frames.length, output, step, close: () => src.destroy() };
    },
  };
}

/** libopus decoding Discord's packets straight to 16 kHz mono (encoded at 64 kb/s, not timed). */
export function opusDirect16k(): Candidate {
  const opus = loadOpus();
  if (typeof opus === 'string') return { name: 'opus decode at 16k mono', unavailable: opus };
  return {
    name: 'opus decode at 16k mono',
    note: 'codec in the loop: input is Opus-encoded at 64 kb/s first; throughput = decode only',
    async open(input) {
      const packets = opusEncode48k(opus, input);
      const decoder = new opus.OpusEncoder(16_000, 1);
      const output = new Int16Array(640);
      const step = (i: number): number => {
        const pcm = decoder.decode(packets[i]!);
        const n = pcm.length / 2;
        for (let k = 0; k < n; k++) output[k] = pcm.readInt16LE(2 * k);
        return n;
      };
      return { frames: packets.length, output, step, close: () => undefined };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// 24 kHz -> 48 kHz (mono: the bot's voice is coded as mono Opus)

export function ourUpsampler(): Candidate {
  return {
    name: 'ours (polyphase equiripple FIR, 99 taps)',
    async open(input) {
      const frames = cut(input, UP_IN_FRAME);
      const us = new Upsampler24kTo48k();
      const output = new Int16Array(2 * UP_IN_FRAME);
      return {
        frames: frames.length,
        output,
        step: (i) => copyInto(output, us.process(frames[i]!)),
        close: () => undefined,
      };
    },
  };
}

/**
 * The Python anchor: np.repeat to interleaved stereo, then np.interp over the interleaved array, per
 * chunk; its left channel is taken (the right one differs from it: the anchor's L != R).
 */
export function anchorUpsampler(): Candidate {
  return {
    name: 'anchor (linear, interleaved)',
    note: 'JS port of the numpy code, per 20 ms chunk; allocates per chunk like numpy does',
    async open(input) {
      const frames = cut(input, UP_IN_FRAME);
      const output = new Int16Array(2 * UP_IN_FRAME);
      const step = (i: number): number => {
        const raw = frames[i]!;
        const stereo = new Float64Array(2 * raw.length);
        for (let k = 0; k < raw.length; k++) stereo[2 * k] = stereo[2 * k + 1] = raw[k]!;
        const m = stereo.length;
        const out = new Int16Array(2 * m);
        for (let k = 0; k < 2 * m; k++) {
          const pos = (k * (m - 1)) / (2 * m - 1); // np.linspace(0, m - 1, 2m)
          const j = Math.min(Math.floor(pos), m - 2);
          const frac = pos - j;
          out[k] = Math.trunc(stereo[j]! + frac * (stereo[j + 1]! - stereo[j]!));
        }
        for (let k = 0; k < m; k++) output[k] = out[2 * k]!;
        return m;
      };
      return { frames: frames.length, output, step, close: () => undefined };
    },
  };
}

export function libsamplerateUpsampler(type: ConverterTypeValue): Candidate {
  return {
    name: `libsamplerate-js ${converterName(type)}`,
    async open(input) {
      const frames = cut(input, UP_IN_FRAME);
      const src = await createSrc(1, 24_000, 48_000, { converterType: type });
      const floatIn = new Float32Array(UP_IN_FRAME);
      const floatOut = new Float32Array(4096);
      const written = { frames: 0 };
      const output = new Int16Array(8192);
      const step = (i: number): number => {
        const frame = frames[i]!;
        for (let k = 0; k < floatIn.length; k++) floatIn[k] = frame[k]! / 32768;
        src.full(floatIn, floatOut, written);
        for (let k = 0; k < written.frames; k++)
          output[k] = Math.max(-32768, Math.min(32767, Math.round(floatOut[k]! * 32768)));
        return written.frames;
      };
      return { frames: frames.length, output, step, close: () => src.destroy() };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// ffmpeg's soxr (very high quality, 28-bit precision): the reference

export function ffmpegAvailable(): string | null {
  const probe = spawnSync('ffmpeg', ['-hide_banner', '-version'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0) return 'ffmpeg not found (apt-get install ffmpeg)';
  const filters = spawnSync('ffmpeg', ['-hide_banner', '-h', 'filter=aresample'], { encoding: 'utf8' });
  return filters.stdout.includes('soxr') ? null : 'ffmpeg was built without libsoxr';
}

function runFfmpeg(args: string[], input: Int16Array, benchmark = false): { output: Int16Array; stderr: string } {
  const res = spawnSync(
    'ffmpeg',
    [
      '-hide_banner',
      '-nostats',
      '-loglevel',
      benchmark ? 'info' : 'error',
      ...(benchmark ? ['-benchmark'] : []),
      '-threads',
      '1',
      ...args,
    ],
    {
      input: Buffer.from(input.buffer, input.byteOffset, input.byteLength),
      maxBuffer: 1 << 30,
    },
  );
  if (res.status !== 0) throw new Error(`ffmpeg failed: ${res.stderr.toString()}`);
  const out = res.stdout;
  return {
    output: new Int16Array(out.buffer.slice(out.byteOffset, out.byteOffset + (out.byteLength & ~1))),
    stderr: res.stderr.toString(),
  };
}

/**
 * ffmpeg's own `-benchmark` line (`bench: utime=… stime=…`): the CPU time of its transcode loop
 * (reading the pipe, the filter graph with soxr, writing), without process start-up.
 */
function ffmpegCpuSeconds(args: string[], input: Int16Array): number {
  const { stderr } = runFfmpeg(args, input, true);
  const m = /bench: utime=([\d.]+)s stime=([\d.]+)s/.exec(stderr);
  if (m === null) throw new Error(`ffmpeg -benchmark printed no CPU time: ${stderr.slice(-300)}`);
  return Number(m[1]) + Number(m[2]);
}

function soxrCandidate(args: string[]): Candidate {
  return {
    name: 'ffmpeg soxr VHQ',
    note: 'separate process over the whole signal; speed from ffmpeg -benchmark CPU time (transcode loop incl. pipe I/O, no start-up)',
    runWhole: (input) => runFfmpeg(args, input).output,
    cpuSeconds: (input) => ffmpegCpuSeconds(args, input),
  };
}

export function soxrDownsampler(unavailable: string | null): Candidate {
  if (unavailable !== null) return { name: 'ffmpeg soxr VHQ', unavailable };
  return soxrCandidate([
    '-f',
    's16le',
    '-ar',
    '48000',
    '-ac',
    '1',
    '-i',
    'pipe:0',
    '-af',
    'aresample=16000:resampler=soxr:precision=28',
    '-f',
    's16le',
    '-ac',
    '1',
    'pipe:1',
  ]);
}

export function soxrUpsampler(unavailable: string | null): Candidate {
  if (unavailable !== null) return { name: 'ffmpeg soxr VHQ', unavailable };
  return soxrCandidate([
    '-f',
    's16le',
    '-ar',
    '24000',
    '-ac',
    '1',
    '-i',
    'pipe:0',
    '-af',
    'aresample=48000:resampler=soxr:precision=28',
    '-f',
    's16le',
    '-ac',
    '1',
    'pipe:1',
  ]);
}

// ---------------------------------------------------------------------------------------------
// Opus helpers

interface OpusCodec {
  encode(pcm: Buffer): Buffer;
  decode(packet: Buffer): Buffer;
  setBitrate(bitrate: number): void;
}
interface OpusModule {
  OpusEncoder: new (rate: number, channels: number) => OpusCodec;
}

function loadOpus(): OpusModule | string {
  try {
    return createRequire(import.meta.url)('@discordjs/opus') as OpusModule;
  } catch (err) {
    return `@discordjs/opus did not load: ${(err as Error).message}`;
  }
}

/** Mono 48 kHz input coded as a Discord client's stereo packets (L = R), 64 kb/s. */
function opusEncode48k(opus: OpusModule, input: Int16Array): Buffer[] {
  const stereo = new Int16Array(2 * input.length);
  for (let i = 0; i < input.length; i++) stereo[2 * i] = stereo[2 * i + 1] = input[i]!;
  const encoder = new opus.OpusEncoder(48_000, 2);
  encoder.setBitrate(64_000);
  return cut(stereo, 2 * DOWN_IN_FRAME).map((frame) =>
    encoder.encode(Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength)),
  );
}

/** Opus at 64 kb/s decoded at 48 kHz mono (as receive.ts decodes): the input the other downsamplers would really get. */
export function opusRoundTrip48k(input: Int16Array): Int16Array | null {
  const opus = loadOpus();
  if (typeof opus === 'string') return null;
  const decoder = new opus.OpusEncoder(48_000, 1);
  const parts = opusEncode48k(opus, input).map((p) => decoder.decode(p));
  const all = Buffer.concat(parts);
  return new Int16Array(all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength));
}
