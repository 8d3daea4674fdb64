// node bench/opus-complexity.ts: what the bot's voice encoder complexity (VOICE_ENCODER_COMPLEXITY in
// main/core/voice/opus.ts) costs and buys. 6 s of a speech-like signal (a gliding glottal buzz
// through three formant resonators, every fourth 250 ms segment noise) coded by @discordjs/opus at
// 48 kHz mono, as the bot codes its voice: per complexity and bitrate, the SNR of the decoded signal
// (best alignment over the codec delay) and the CPU time per 20 ms frame (best of three passes over
// the signal, a fresh encoder each). SNR is a crude proxy for
// a perceptual codec; it is used here only to compare complexities with each other. Prints only.
import { createRequire } from 'node:module';
import { OPUS_SET_COMPLEXITY_REQUEST, VOICE_ENCODER_COMPLEXITY, type NativeEncoder } from '../main/core/voice/opus.ts';

const require = createRequire(import.meta.url);
const { OpusEncoder } = require('@discordjs/opus') as {
  OpusEncoder: new (rate: number, channels: number) => NativeEncoder & { setBitrate(bps: number): void };
};
const RATE = 48_000;
const FRAME = 960;
const SAMPLES = RATE * 6;

function speechLike(): Int16Array {
  let seed = 1;
  const noise = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32 - 0.5;
  const formants = [
    [700, 90],
    [1200, 110],
    [2600, 160],
  ].map(([hz, bw]) => {
    const r = Math.exp((-Math.PI * bw!) / RATE);
    return { c: 2 * r * Math.cos((2 * Math.PI * hz!) / RATE), r2: r * r, y1: 0, y2: 0 };
  });
  const x = new Float64Array(SAMPLES);
  let phase = 0;
  for (let i = 0; i < SAMPLES; i++) {
    const t = i / RATE;
    let excitation: number;
    if (Math.floor(t / 0.25) % 4 === 3) excitation = noise() * 0.3;
    else {
      phase += (130 + 40 * Math.sin(2 * Math.PI * 0.7 * t)) / RATE;
      excitation = phase >= 1 ? ((phase -= 1), 1) : 0;
    }
    let y = 0;
    for (const f of formants) {
      const v = excitation + f.c * f.y1 - f.r2 * f.y2;
      f.y2 = f.y1;
      f.y1 = v;
      y += v;
    }
    x[i] = y;
  }
  const peak = x.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  return Int16Array.from(x, (v) => Math.round((v / peak) * 20_000));
}

const pcm = speechLike();
console.log('bitrate  complexity  SNR dB  µs/frame  bytes/packet');
for (const bitrate of [32_000, 64_000]) {
  for (const complexity of [10, 8, 6, 5, 4, 3]) {
    const encoderAt = () => {
      const encoder = new OpusEncoder(RATE, 1);
      encoder.applyEncoderCTL(OPUS_SET_COMPLEXITY_REQUEST, complexity);
      encoder.setBitrate(bitrate);
      return encoder;
    };
    const frame = (f: number) => Buffer.from(pcm.buffer, f * FRAME * 2, FRAME * 2);
    const frames = SAMPLES / FRAME;
    let bestUs = Infinity;
    for (let pass = 0; pass < 3; pass++) {
      const encoder = encoderAt();
      const before = process.cpuUsage();
      for (let f = 0; f < frames; f++) encoder.encode(frame(f));
      const used = process.cpuUsage(before);
      bestUs = Math.min(bestUs, (used.user + used.system) / frames);
    }
    const encoder = encoderAt();
    const decoder = new OpusEncoder(RATE, 1);
    const out = new Int16Array(SAMPLES);
    let bytes = 0;
    for (let f = 0; f < frames; f++) {
      const packet = encoder.encode(frame(f));
      bytes += packet.length;
      const decoded = decoder.decode(packet);
      out.set(new Int16Array(decoded.buffer, decoded.byteOffset, FRAME), f * FRAME);
    }
    // The codec delays by its lookahead (6.5 ms at 48 kHz): take the best alignment near it.
    let best = -Infinity;
    for (let lag = 300; lag < 330; lag++) {
      let signal = 0;
      let error = 0;
      for (let i = RATE; i < SAMPLES - 400; i++) {
        signal += pcm[i]! ** 2;
        error += (pcm[i]! - out[i + lag]!) ** 2;
      }
      best = Math.max(best, 10 * Math.log10(signal / error));
    }
    const mark = complexity === VOICE_ENCODER_COMPLEXITY ? '  <- the product' : '';
    console.log(
      `${String(bitrate / 1000).padStart(4)} k  ${String(complexity).padStart(10)}  ${best.toFixed(2).padStart(6)}  ${bestUs.toFixed(0).padStart(8)}  ${(bytes / frames).toFixed(0).padStart(12)}${mark}`,
    );
  }
}
