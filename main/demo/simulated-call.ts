// A whole call with no accounts: the fake Discord and the fake models on loopback (fake-services.ts),
// and a real core (the same startCore, settings store and sidecar as `npm run headless`) pointed at
// them. startSimulatedCall runs both in this process (tests, the latency benchmark); the demo runs the
// fakes in a child process and only startCoreOnFakes here. Runs under plain `node`, not only vitest.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { loadConfig, type Config } from '../core/config/index.ts';
import { startCore, type CoreHandle } from '../core/core.ts';
import { createLogger, silentLogger } from '../core/log/logger.ts';
import { createConfSettingsStore } from '../core/settings/conf-store.ts';
import { privateFileVault } from '../core/setup/private-file-vault.ts';
import { startRestartableCore, type RestartableCore } from '../core/setup/restartable-core.ts';
import { DashboardSessions } from '../core/sidecar/sessions.ts';
import { redactText } from '../core/tools/helpers/index.ts';
import type { FakeDiscord } from '../fakes/discord/index.ts';
import type { FakeGemini } from '../fakes/gemini/index.ts';
import type { FakeOpenAILive, FakeOpenAIRealtime } from '../fakes/openai/index.ts';
import type { FakeXai } from '../fakes/xai/server.ts';
import type { LiveProviderName } from '../core/config/index.ts';
import {
  startFakeServices,
  type FakeServices,
  type FakeServicesInfo,
  type FakeServicesOptions,
} from './fake-services.ts';

export { DEMO_MODEL_REPLY, speechLikeSignal } from './fake-services.ts';

export interface SimulatedCallOptions
  extends CoreOnFakesOptions, Pick<FakeServicesOptions, 'autoReply' | 'bargeInRms' | 'geminiValidKeys' | 'nicknames'> {}

export interface SimulatedCall {
  discord: FakeDiscord;
  gemini: FakeGemini;
  /** The fake OpenAI Realtime service (always running, so a call can switch to it). */
  openai: FakeOpenAIRealtime;
  openaiLive: FakeOpenAILive;
  /** The fake xAI Grok Voice service (always running too). */
  xai: FakeXai;
  core: CoreHandle;
  config: Config;
  /** Authorization header for the sidecar. */
  auth: { authorization: string };
  /** The owner says something (a speech-like signal) of the given length. */
  ownerSpeaks(seconds: number): Promise<void>;
  /** `who` says `sentence` as scripted speech: the fake models transcribe it and answer from its words. */
  say: FakeServices['say'];
  /** The simulated people (their ids and names). */
  people: FakeServicesInfo['people'];
  close(): Promise<void>;
}

export interface CoreOnFakesOptions {
  /** Sidecar port; 0 picks a free one. Default 0. */
  port?: number;
  /** Log to stderr at this level; default silent. */
  logLevel?: string;
  /** How those lines look (the demo: readable on a terminal). Default JSON. */
  logFormat?: { format: 'json' | 'pretty'; colorize: boolean };
  /** Live model provider of the core (DISCORD_VOICE_LIVE_PROVIDER). Default gemini. Every provider's fake always runs. */
  provider?: LiveProviderName;
  /** Extra environment for the core (e.g. webhook URL). */
  env?: Record<string, string>;
}

export interface CoreOnFakes {
  core: CoreHandle;
  config: Config;
  /** The throw-away agent home (token, notes, schedule); removed by close(). */
  home: string;
  close(): Promise<void>;
}

/** A real core in a throw-away agent home, configured to reach the fakes described by `info`. */
export async function startCoreOnFakes(info: FakeServicesInfo, options: CoreOnFakesOptions = {}): Promise<CoreOnFakes> {
  const home = mkdtempSync(path.join(tmpdir(), 'lvb-sim-'));
  const env: NodeJS.ProcessEnv = {
    HERMES_HOME: home,
    DISCORD_BOT_TOKEN: info.botToken,
    DISCORD_API_BASE_URL: info.discordApiBaseUrl,
    DISCORD_VOICE_LIVE_USER_ID: info.ownerId,
    DISCORD_VOICE_LIVE_TEXT_CHANNEL_ID: info.textChannelId,
    // Built at run time so it is obviously not a real key.
    GEMINI_API_KEY: ['fake', 'demo', 'key', process.pid.toString(36)].join('-'),
    GEMINI_LIVE_BASE_URL: info.geminiUrl,
    GEMINI_MODEL: info.geminiModel,
    DISCORD_VOICE_LIVE_PROVIDER: options.provider ?? 'gemini',
    OPENAI_API_KEY: ['fake', 'demo', 'openai', process.pid.toString(36)].join('-'),
    OPENAI_REALTIME_BASE_URL: info.openaiUrl,
    OPENAI_REALTIME_MODEL: info.openaiModel,
    OPENAI_LIVE_BASE_URL: info.openaiLiveUrl,
    OPENAI_LIVE_MODEL: info.openaiLiveModel,
    XAI_API_KEY: ['fake', 'demo', 'xai', process.pid.toString(36)].join('-'),
    XAI_BASE_URL: info.xaiUrl,
    XAI_MODEL: info.xaiModel,
    DISCORD_VOICE_LIVE_PORT: String(options.port || 18943),
    DISCORD_VOICE_LIVE_LOG_LEVEL: options.logLevel ?? 'warn',
    ...options.env,
  };
  // As headless: secrets typed on /setup go to the owner-only settings file.
  const settingsStore = createConfSettingsStore({
    dir: path.join(home, 'voice-users'),
    env,
    vault: privateFileVault(),
  });
  const load = async () => {
    const config = loadConfig({ env, settings: await settingsStore.configValues() });
    // Port 0 (the default): an ephemeral port, so tests and benchmarks never collide with a running app.
    if (!options.port) config.sidecar.port = 0;
    return config;
  };
  const config = await load();
  const logger: Logger = options.logLevel
    ? createLogger({ level: options.logLevel, secrets: config.secretValues, redactText, ...options.logFormat })
    : silentLogger();
  // "Restart now" works here as in headless: a new core with the saved settings, sign-ins kept.
  const sessions = new DashboardSessions();
  let running: RestartableCore<CoreHandle>;
  try {
    running = await startRestartableCore({
      initial: config,
      load,
      start: (next, restart, lastRestart) =>
        startCore({ config: next, logger, settingsStore, restart, lastRestart, sessions }),
      onFailed: (err) => logger.error({ err }, 'restart failed'),
    });
  } catch (err) {
    rmSync(home, { recursive: true, force: true });
    throw err;
  }
  return {
    get core() {
      return running.core;
    },
    get config() {
      return running.config;
    },
    home,
    async close() {
      await running.settled();
      await running.core.stop().catch(() => undefined);
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export async function startSimulatedCall(options: SimulatedCallOptions = {}): Promise<SimulatedCall> {
  const fakes = await startFakeServices({
    autoReply: options.autoReply,
    bargeInRms: options.bargeInRms,
    geminiValidKeys: options.geminiValidKeys,
    nicknames: options.nicknames,
  });
  let started: CoreOnFakes;
  try {
    started = await startCoreOnFakes(fakes.info, options);
  } catch (err) {
    await fakes.close();
    throw err;
  }
  return {
    discord: fakes.discord,
    gemini: fakes.gemini,
    openai: fakes.openai,
    openaiLive: fakes.openaiLive,
    xai: fakes.xai,
    get core() {
      return started.core;
    },
    get config() {
      return started.config;
    },
    auth: { authorization: `Bearer ${started.core.token}` },
    ownerSpeaks: (seconds) => fakes.ownerSpeaks(seconds),
    say: (who, sentence) => fakes.say(who, sentence),
    people: fakes.info.people,
    async close() {
      await started.close();
      await fakes.close();
    },
  };
}
