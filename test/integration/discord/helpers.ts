// Signals, correlation and waiting helpers for the Discord loopback tests.
import pino from 'pino';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PlaybackSource } from '../../../main/core/ports.ts';
import {
  createDiscordVoice,
  type DiscordVoiceAdapter,
  type DiscordVoiceOptions,
} from '../../../main/core/voice/index.ts';
import { startFakeDiscord, type FakeDiscord, type FakeDiscordOptions } from '../../../main/fakes/discord/index.ts';

export const RATE = 48_000;

export const quietLogger = () => pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/** A linear chirp (non-periodic, so only the right alignment correlates), stereo interleaved. */
export function chirp(seconds: number, f0: number, f1: number, amplitude = 12_000): Int16Array {
  const n = Math.round(seconds * RATE);
  const out = new Int16Array(n * 2);
  const k = (f1 - f0) / seconds;
  for (let i = 0; i < n; i++) {
    const t = i / RATE;
    const fade = Math.min(1, i / 480, (n - i) / 480);
    const v = Math.round(amplitude * fade * Math.sin(2 * Math.PI * (f0 * t + (k * t * t) / 2)));
    out[2 * i] = v;
    out[2 * i + 1] = v;
  }
  return out;
}

export function left(pcm: Int16Array): Float64Array {
  const out = new Float64Array(pcm.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = pcm[2 * i];
  return out;
}

function onset(x: Float64Array, threshold: number): number {
  for (let i = 0; i < x.length; i++) if (Math.abs(x[i]) > threshold) return i;
  return -1;
}

/**
 * Best normalised cross-correlation between the reference and the received left channels,
 * searching lags around the onset difference (the Opus codec delays the signal a few ms).
 */
export function bestCorrelation(
  reference: Int16Array,
  received: Int16Array,
  searchRadius = 1500,
): { correlation: number; lag: number } {
  const ref = left(reference);
  const rec = left(received);
  const refOnset = onset(ref, 2000);
  const recOnset = onset(rec, 2000);
  if (refOnset < 0 || recOnset < 0) return { correlation: 0, lag: 0 };
  let best = { correlation: -1, lag: 0 };
  const center = recOnset - refOnset;
  for (let lag = center - searchRadius; lag <= center + searchRadius; lag++) {
    let dot = 0;
    let e1 = 0;
    let e2 = 0;
    for (let i = 0; i < ref.length; i++) {
      const j = i + lag;
      if (j < 0 || j >= rec.length) continue;
      dot += ref[i] * rec[j];
      e1 += ref[i] * ref[i];
      e2 += rec[j] * rec[j];
    }
    const c = e1 > 0 && e2 > 0 ? dot / Math.sqrt(e1 * e2) : 0;
    if (c > best.correlation) best = { correlation: c, lag };
  }
  return best;
}

export function rms(pcm: Int16Array): number {
  let sum = 0;
  for (const v of pcm) sum += v * v;
  return pcm.length ? Math.sqrt(sum / pcm.length) : 0;
}

/**
 * A PlaybackSource that plays `pcm` once, then silence forever. `pcm` is stereo with L = R (the
 * signals above); the source hands out its left channel, as the bot's frames are mono.
 */
export function onceSource(pcm: Int16Array): PlaybackSource & { frames: number } {
  let offset = 0; // in samples per channel
  const samples = pcm.length >> 1;
  const source = {
    frames: 0,
    readFrame(out: Int16Array) {
      source.frames++;
      out.fill(0);
      for (let i = 0; i < out.length && offset + i < samples; i++) out[i] = pcm[2 * (offset + i)]!;
      offset += out.length;
    },
  };
  return source;
}

export async function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Collects copies of the `pcm` frames per speaker (the adapter reuses its frame buffers). */
export class PcmCollector {
  readonly frames = new Map<string, Int16Array[]>();
  readonly listener = (speakerId: string, frame: Int16Array) => {
    let list = this.frames.get(speakerId);
    if (!list) this.frames.set(speakerId, (list = []));
    list.push(frame.slice());
  };
  count(speakerId: string): number {
    return this.frames.get(speakerId)?.length ?? 0;
  }
  /**
   * The speaker's (mono, 960-sample) frames joined and spread to L = R: the fake client's stereo
   * format, so bestCorrelation compares them with what it sent.
   */
  pcm(speakerId: string): Int16Array {
    const list = this.frames.get(speakerId) ?? [];
    const out = new Int16Array(list.length * 1920);
    list.forEach((f, i) => {
      for (let k = 0; k < f.length; k++) out[i * 1920 + 2 * k] = out[i * 1920 + 2 * k + 1] = f[k]!;
    });
    return out;
  }
  clear(): void {
    this.frames.clear();
  }
}

/** Quick back-off so fault tests do not wait for the product defaults. */
export const FAST_RECOVERY = {
  rejoin: { baseDelayMs: 50, maxDelayMs: 200 },
  disconnectGraceMs: 300,
  readyTimeoutMs: 5000,
};

/**
 * One fake Discord and one adapter per test: `start()` makes both (not joined yet), with the
 * adapter's states and PCM collected; `stop()` (in afterEach) tears down whatever was started.
 */
export function fakeCallFixture() {
  let fake: FakeDiscord | undefined;
  let voice: DiscordVoiceAdapter | undefined;
  return {
    /** `voiceOptions` may depend on the fake (user ids are made at start). */
    async start(
      fakeOptions: FakeDiscordOptions = {},
      voiceOptions: Partial<DiscordVoiceOptions> | ((fake: FakeDiscord) => Partial<DiscordVoiceOptions>) = {},
    ) {
      const f = await startFakeDiscord(fakeOptions);
      const extra = typeof voiceOptions === 'function' ? voiceOptions(f) : voiceOptions;
      const v = createDiscordVoice({
        token: f.botToken,
        ownerId: f.owner.id,
        apiBaseUrl: f.apiBaseUrl,
        logger: quietLogger(),
        ...FAST_RECOVERY,
        ...extra,
      });
      const states: string[] = [];
      v.on('state', (state, reason) => states.push(reason ? `${state}:${reason}` : state));
      const collector = new PcmCollector();
      v.on('pcm', collector.listener);
      await voice?.destroy();
      await fake?.close();
      fake = f;
      voice = v;
      return { fake: f, voice: v, states, collector };
    },
    async stop() {
      await voice?.destroy();
      await fake?.close();
      voice = undefined;
      fake = undefined;
    },
  };
}
