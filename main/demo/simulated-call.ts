// A whole call with no accounts: the fake Discord and the fake Gemini on loopback, and a real core
// (the same startCore, settings store and sidecar as `npm run headless`) pointed at them. Used by
// `npm run demo`, the latency benchmark and tests; runs under plain `node`, not only vitest.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { loadConfig, type Config } from '../core/config/index.ts';
import { startCore, type CoreHandle } from '../core/core.ts';
import { createLogger, silentLogger } from '../core/log/logger.ts';
import { createConfSettingsStore } from '../core/settings/conf-store.ts';
import { redactText } from '../core/tools/helpers/index.ts';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.ts';
import { KNOWN_LIVE_MODELS, startFakeGemini, type AutoReplyOptions, type FakeGemini } from '../fakes/gemini/index.ts';
import { KNOWN_REALTIME_MODELS, startFakeOpenAIRealtime, type FakeOpenAIRealtime } from '../fakes/openai/index.ts';
import type { LiveProviderName } from '../core/config/index.ts';

export interface SimulatedCallOptions {
  /** Sidecar port; 0 picks a free one. Default 0. */
  port?: number;
  /** The fake model answers speech and injected text by itself (default: a short reply with transcripts). */
  autoReply?: AutoReplyOptions | false;
  /** RMS of user audio that makes the fake model stop its reply (barge-in). Default the fake's own. */
  bargeInRms?: number | null;
  /** Log to stderr at this level; default silent. */
  logLevel?: string;
  /** Live model provider of the core (DISCORD_VOICE_LIVE_PROVIDER). Default gemini. Both fakes always run. */
  provider?: LiveProviderName;
  /** Extra environment for the core (e.g. webhook URL). */
  env?: Record<string, string>;
}

export interface SimulatedCall {
  discord: FakeDiscord;
  gemini: FakeGemini;
  /** The fake OpenAI Realtime service (always running, so a call can switch to it). */
  openai: FakeOpenAIRealtime;
  core: CoreHandle;
  config: Config;
  /** Authorization header for the sidecar. */
  auth: { authorization: string };
  /** The owner says something (a speech-like signal) of the given length. */
  ownerSpeaks(seconds: number): Promise<void>;
  close(): Promise<void>;
}

export const DEMO_MODEL_REPLY = 'Hi! I can hear you clearly. This whole call is simulated on your machine.';

/**
 * A speech-like test signal at 48 kHz stereo: a voiced harmonic series (≈ 140 Hz fundamental with a
 * slow pitch glide) shaped by a syllable envelope of about 4 Hz, loud enough to open the voice gate.
 */
export function speechLikeSignal(seconds: number, amplitude = 6000): Int16Array {
  const frames = Math.round(48_000 * seconds);
  const pcm = new Int16Array(frames * 2);
  let phase = 0;
  for (let i = 0; i < frames; i++) {
    const t = i / 48_000;
    const f0 = 140 + 25 * Math.sin(2 * Math.PI * 0.7 * t);
    phase += (2 * Math.PI * f0) / 48_000;
    const syllables = 0.55 + 0.45 * Math.sin(2 * Math.PI * 4 * t);
    const edges = Math.min(1, t / 0.02, (seconds - t) / 0.02);
    let v = 0;
    for (let h = 1; h <= 8; h++) v += Math.sin(h * phase) / h;
    pcm[2 * i] = pcm[2 * i + 1] = Math.round(amplitude * 0.5 * syllables * edges * v);
  }
  return pcm;
}

export async function startSimulatedCall(options: SimulatedCallOptions = {}): Promise<SimulatedCall> {
  const home = mkdtempSync(path.join(tmpdir(), 'lvb-sim-'));
  const discord = await startFakeDiscord({ ownerInVoice: true });
  const gemini = await startFakeGemini({
    autoReply: options.autoReply ?? { transcript: DEMO_MODEL_REPLY, toneMs: 1800 },
    ...(options.bargeInRms !== undefined ? { bargeInRms: options.bargeInRms } : {}),
  });
  const autoReply = options.autoReply ?? { transcript: DEMO_MODEL_REPLY, toneMs: 1800 };
  const openai = await startFakeOpenAIRealtime({
    autoReply: autoReply ? { transcript: autoReply.transcript ?? DEMO_MODEL_REPLY, inputTranscript: autoReply.inputTranscript, toneMs: autoReply.toneMs } : false,
  });
  const env: NodeJS.ProcessEnv = {
    HERMES_HOME: home,
    DISCORD_BOT_TOKEN: discord.botToken,
    DISCORD_API_BASE_URL: discord.apiBaseUrl,
    DISCORD_VOICE_LIVE_USER_ID: discord.owner.id,
    DISCORD_VOICE_LIVE_TEXT_CHANNEL_ID: discord.textChannelId,
    // Built at run time so it is obviously not a real key.
    GEMINI_API_KEY: ['fake', 'demo', 'key', process.pid.toString(36)].join('-'),
    GEMINI_LIVE_BASE_URL: gemini.url,
    GEMINI_MODEL: KNOWN_LIVE_MODELS[0],
    DISCORD_VOICE_LIVE_PROVIDER: options.provider ?? 'gemini',
    OPENAI_API_KEY: ['fake', 'demo', 'openai', process.pid.toString(36)].join('-'),
    OPENAI_REALTIME_BASE_URL: openai.url,
    OPENAI_REALTIME_MODEL: KNOWN_REALTIME_MODELS[0],
    DISCORD_VOICE_LIVE_PORT: String(options.port || 18943),
    DISCORD_VOICE_LIVE_LOG_LEVEL: options.logLevel ?? 'warn',
    ...options.env,
  };
  const settingsStore = createConfSettingsStore({ dir: path.join(home, 'voice-users'), env });
  const config = loadConfig({ env, settings: await settingsStore.configValues() });
  // Port 0 (the default): an ephemeral port, so tests and benchmarks never collide with a running app.
  if (!options.port) config.sidecar.port = 0;
  const logger: Logger = options.logLevel ? createLogger({ level: options.logLevel, secrets: config.secretValues, redactText }) : silentLogger();
  const core = await startCore({ config, logger, settingsStore });

  return {
    discord,
    gemini,
    openai,
    core,
    config,
    auth: { authorization: `Bearer ${core.token}` },
    async ownerSpeaks(seconds: number) {
      await discord.speak(discord.owner.id, speechLikeSignal(seconds));
    },
    async close() {
      await core.stop().catch(() => undefined);
      await gemini.close().catch(() => undefined);
      await openai.close().catch(() => undefined);
      await discord.close().catch(() => undefined);
      rmSync(home, { recursive: true, force: true });
    },
  };
}
