// The audio path's own CPU cost, timed per stage over 60 s worth of 20 ms frames each way (3000 in,
// 3000 out) with continuous speech both ways (the worst case for one duplex call: the voice gate is
// open all the time and the model never pauses). Uses the bridge's real CallAudio (mixer → 16 kHz →
// level meter → voice gate; playback buffer → 48 kHz → meter), the real Opus wrapper and the
// Gemini session's real PCM decoder; the socket framing and the RTP crypto are close approximations
// (the SDK's own JSON building and @discordjs/voice's crypto are not called directly).
import { randomBytes } from 'node:crypto';
import { wiredCallAudio } from './call-audio-segment.ts';
import { CallMetrics } from '../../main/core/bridge/metrics.ts';
import { decodePcm } from '../../main/core/model/gemini/session.ts';
import { loadOpus } from '../../main/core/voice/opus.ts';
import { speechLikeSignal } from '../../main/demo/simulated-call.ts';
import { decryptRtp, encryptRtp } from '../../main/fakes/discord/index.ts';
import { pcmToBase64, tone } from '../../main/fakes/gemini/index.ts';

const FRAMES = 3000; // 60 s of 20 ms frames
const WARMUP_FRAMES = 250;
const FRAME_VALUES = 1920; // 20 ms of 48 kHz stereo: what a Discord client encodes (the wire)
const FRAME_SAMPLES = 960; // 20 ms of 48 kHz mono: every frame inside the bridge
const MODEL_CHUNK_SAMPLES = 960; // 40 ms at 24 kHz, one per two output frames (the fake's default)

export interface StageCost {
  stage: string;
  direction: 'in' | 'out';
  /** How faithful the timed code is to what runs in a call. */
  code: 'real' | 'approximation';
  frames: number;
  cpuMs: number;
  /** cpuMs as % of one core over the 60 s of audio the frames represent. */
  percentOfCore: number;
}

export interface AudioPathCost {
  frames: number;
  opusLibrary: string;
  stages: StageCost[];
  totalCpuMs: number;
  totalPercentOfCore: number;
  /** Part of the total that is our own audio code (CallAudio + Opus + PCM decode), without transport. */
  coreAudioPercentOfCore: number;
}

function cpuMsOf(fn: () => void): number {
  const before = process.cpuUsage();
  fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** Everything the stages consume, built before any timing. */
function inputs(frames: number) {
  const speech = speechLikeSignal((frames * 20) / 1000 + 0.1);
  const encoder = loadOpus().create();
  const packets: Buffer[] = [];
  const frameBytes = Buffer.alloc(FRAME_VALUES * 2);
  for (let i = 0; i < frames; i++) {
    Buffer.from(speech.buffer, i * FRAME_VALUES * 2, FRAME_VALUES * 2).copy(frameBytes);
    packets.push(encoder.encode(frameBytes));
  }
  const reply = tone(frames * 20 + 40);
  const modelMessages: string[] = [];
  for (let i = 0; i < frames / 2; i++) {
    const chunk = reply.subarray(i * MODEL_CHUNK_SAMPLES, (i + 1) * MODEL_CHUNK_SAMPLES);
    modelMessages.push(
      JSON.stringify({
        serverContent: {
          modelTurn: { parts: [{ inlineData: { mimeType: 'audio/pcm;rate=24000', data: pcmToBase64(chunk) } }] },
        },
      }),
    );
  }
  return { packets, modelMessages };
}

function measure(frames: number): { stages: StageCost[]; opusLibrary: string } {
  const opus = loadOpus();
  const { packets, modelMessages } = inputs(frames);
  const stages: StageCost[] = [];
  const add = (stage: string, direction: 'in' | 'out', code: 'real' | 'approximation', cpuMs: number) =>
    stages.push({ stage, direction, code, frames, cpuMs, percentOfCore: (100 * cpuMs) / (frames * 20) });

  // In: Opus → 48 kHz mono frames (one decoder per speaker, as receive.ts keeps).
  const decoder = opus.createMonoDecoder();
  const frameViews: Int16Array[] = Array.from({ length: frames }, () => new Int16Array(FRAME_SAMPLES));
  const frameViewBytes = frameViews.map((view) => Buffer.from(view.buffer));
  add(
    'Opus decode',
    'in',
    'real',
    cpuMsOf(() => {
      for (let i = 0; i < frames; i++) decoder.decode(packets[i]!).copy(frameViewBytes[i]!);
    }),
  );

  // In: mixer → 16 kHz mono → meter → voice gate → fixed chunks (what CallAudio does per packet).
  const chunks: Int16Array[] = [];
  const inMetrics = new CallMetrics();
  const callIn = wiredCallAudio({
    inputChunkMs: 20,
    metrics: inMetrics,
    onSpeech: (c) => chunks.push(c.slice()),
    onSpeechEnd: () => undefined,
    now: () => performance.now(),
  });
  // The copies in onSpeech above are the bench's, not the bridge's: time a run that keeps nothing.
  const callInTimed = wiredCallAudio({
    inputChunkMs: 20,
    metrics: new CallMetrics(),
    onSpeech: () => undefined,
    onSpeechEnd: () => undefined,
    now: () => performance.now(),
  });
  add(
    'mix + 16 kHz + gate (CallAudio in)',
    'in',
    'real',
    cpuMsOf(() => {
      for (let i = 0; i < frames; i++) callInTimed.pushSpeakerFrame('owner', frameViews[i]!);
    }),
  );
  for (let i = 0; i < frames; i++) callIn.pushSpeakerFrame('owner', frameViews[i]!);

  // In: chunk → base64 → the realtimeInput JSON the SDK writes to the socket.
  add(
    'model socket framing (base64 + JSON)',
    'in',
    'approximation',
    cpuMsOf(() => {
      for (const c of chunks) {
        const data = Buffer.from(c.buffer, c.byteOffset, c.byteLength).toString('base64');
        JSON.stringify({ realtimeInput: { audio: { data, mimeType: 'audio/pcm;rate=16000' } } });
      }
    }),
  );

  // Out: the server message → JSON → 24 kHz PCM (the session's own decoder).
  const modelPcm: Int16Array[] = [];
  add(
    'model message parse + PCM decode',
    'out',
    'approximation',
    cpuMsOf(() => {
      for (const m of modelMessages) {
        const parsed = JSON.parse(m) as { serverContent: { modelTurn: { parts: { inlineData: { data: string } }[] } } };
        modelPcm.push(decodePcm(parsed.serverContent.modelTurn.parts[0]!.inlineData.data));
      }
    }),
  );

  // Out: jitter/playback buffer → 48 kHz mono frames pulled every 20 ms.
  const callOut = wiredCallAudio({
    inputChunkMs: 20,
    metrics: new CallMetrics(),
    onSpeech: () => undefined,
    onSpeechEnd: () => undefined,
    now: () => performance.now(),
  });
  const played = new Int16Array(frames * FRAME_SAMPLES);
  const out = new Int16Array(FRAME_SAMPLES);
  add(
    'playback buffer + 48 kHz (CallAudio out)',
    'out',
    'real',
    cpuMsOf(() => {
      for (let i = 0; i < frames; i++) {
        if (i % 2 === 0 && modelPcm[i / 2]) callOut.pushModelAudio(modelPcm[i / 2]!);
        callOut.playbackSource.readFrame(out);
        played.set(out, i * FRAME_SAMPLES);
      }
    }),
  );

  // Out: 48 kHz mono → Opus (the player's mono encoder, main/core/voice/playback.ts).
  const encoder = opus.createMonoEncoder();
  const encoded: Buffer[] = new Array<Buffer>(frames);
  const frame = new Int16Array(FRAME_SAMPLES);
  const frameBytes = Buffer.from(frame.buffer);
  add(
    'Opus encode (mono)',
    'out',
    'real',
    cpuMsOf(() => {
      for (let i = 0; i < frames; i++) {
        frame.set(played.subarray(i * FRAME_SAMPLES, (i + 1) * FRAME_SAMPLES));
        encoded[i] = encoder.encode(frameBytes);
      }
    }),
  );

  // Both ways: RTP transport encryption (aead_aes256_gcm_rtpsize), one packet per frame each way.
  const key = randomBytes(32);
  const sealed = encoded.map((p, i) =>
    encryptRtp('aead_aes256_gcm_rtpsize', key, i, { sequence: i, timestamp: i * 960, ssrc: 1 }, p),
  );
  add(
    'RTP decrypt (aes-256-gcm)',
    'in',
    'approximation',
    cpuMsOf(() => {
      for (const s of sealed) decryptRtp('aead_aes256_gcm_rtpsize', key, s);
    }),
  );
  add(
    'RTP encrypt (aes-256-gcm)',
    'out',
    'approximation',
    cpuMsOf(() => {
      for (let i = 0; i < frames; i++)
        encryptRtp('aead_aes256_gcm_rtpsize', key, i, { sequence: i, timestamp: i * 960, ssrc: 1 }, encoded[i]!);
    }),
  );
  decoder.destroy();
  encoder.destroy();
  return { stages, opusLibrary: opus.library };
}

/** Times every stage over `frames` frames (after a short untimed warm-up so JIT compilation is not billed). */
export function measureAudioPath(frames = FRAMES): AudioPathCost {
  measure(WARMUP_FRAMES);
  const { stages, opusLibrary } = measure(frames);
  const totalCpuMs = stages.reduce((n, s) => n + s.cpuMs, 0);
  const coreAudio = stages.filter((s) => s.code === 'real').reduce((n, s) => n + s.cpuMs, 0);
  return {
    frames,
    opusLibrary,
    stages,
    totalCpuMs,
    totalPercentOfCore: (100 * totalCpuMs) / (frames * 20),
    coreAudioPercentOfCore: (100 * coreAudio) / (frames * 20),
  };
}
