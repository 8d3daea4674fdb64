// Which live model carries a call, decided at each call's start: the bridge sees one
// LiveModelProvider, this one, and it builds (once per provider and key) the provider the user chose,
// reading the settings again at every connect so a switch in the dashboard needs no restart.
// Provider modules are imported only when chosen: @google/genai alone takes ~0.5 s to load.
import type { Logger } from 'pino';
import { isLiveProviderName, type Config, type LiveProviderName, type VariableName } from '../config/index.ts';
import { canonicalVoice } from './voices.ts';
import type { LiveModelConnectOptions, LiveModelProvider, LiveModelSession, LiveModelUsage } from '../ports.ts';

export type ConfigOverrides = Partial<Record<VariableName, string>>;

export interface LiveModelChoice {
  provider: LiveProviderName;
  model: string;
  /** True while a call's session is open on this provider. */
  inCall: boolean;
  /** Usage the provider reports (GPT-Live: audio seconds and billed minutes). */
  usage?: LiveModelUsage;
}

export interface ProviderSelectorOptions {
  config: Config;
  logger: Logger;
  /** Values that may change between calls (settings store): provider, keys. Read at each connect. */
  overrides?: () => Promise<ConfigOverrides>;
  /** A call's model session is up (for the notes: which provider and model carry this call). */
  onConnected?: (choice: LiveModelChoice) => void;
}

/** The key variable each provider needs, for "missing configuration" messages. */
export const PROVIDER_KEY_VARIABLE: Record<LiveProviderName, VariableName> = {
  gemini: 'GEMINI_API_KEY',
  'openai-realtime': 'OPENAI_API_KEY',
  'openai-live': 'OPENAI_API_KEY',
};

export class ProviderSelector implements LiveModelProvider {
  readonly name = 'selector';
  readonly #o: ProviderSelectorOptions;
  readonly #built = new Map<string, LiveModelProvider>();
  #last: { provider: LiveProviderName; session: LiveModelSession | null; model: string } | null = null;

  constructor(options: ProviderSelectorOptions) {
    this.#o = options;
    // Providers load at the first connect(), not at start-up: @google/genai costs an idle core
    // several MB it may never use (docs/performance.md), and the bridge connects the model while the
    // Discord voice handshake runs, so the import (~0.2-0.5 s) mostly overlaps that wait.
  }

  /** Provider and model of the call in progress, else of the last choice (or the configured one). */
  get choice(): LiveModelChoice {
    const last = this.#last;
    if (last) {
      const inCall = last.session !== null && last.session.state !== 'disconnected' && last.session.state !== 'error';
      const usage = last.session?.usage?.();
      return { provider: last.provider, model: last.session?.model ?? last.model, inCall, ...(usage ? { usage } : {}) };
    }
    const provider = this.#o.config.liveProvider;
    return { provider, model: configuredModel(this.#o.config, provider), inCall: false };
  }

  async connect(options: LiveModelConnectOptions): Promise<LiveModelSession> {
    const overrides: ConfigOverrides = (await this.#o.overrides?.().catch((): ConfigOverrides => ({}))) ?? {};
    const requested = overrides.DISCORD_VOICE_LIVE_PROVIDER?.trim().toLowerCase();
    const provider = requested && isLiveProviderName(requested) ? requested : this.#o.config.liveProvider;
    this.#last = { provider, session: null, model: configuredModel(this.#o.config, provider) };
    const session = await (await this.#provider(provider, overrides)).connect(options);
    this.#last = { provider, session, model: session.model };
    this.#o.logger.info({ provider, model: session.model }, 'live model session started');
    this.#o.onConnected?.({ provider, model: session.model, inCall: true });
    return session;
  }

  async #provider(name: LiveProviderName, overrides: ConfigOverrides): Promise<LiveModelProvider> {
    const { config, logger } = this.#o;
    const keyVariable = PROVIDER_KEY_VARIABLE[name];
    const apiKey = overrides[keyVariable] ?? (name === 'gemini' ? config.gemini.apiKey : config.openai.apiKey);
    if (!apiKey) throw new Error(`${keyVariable} is not set (needed by the ${name} provider)`);
    // Keyed by the key's length and ends only: the cache must not hold the key as a map key in clear.
    // Voice and model are read per call too: a saved change applies at the next call, no restart.
    // The saved voice is one setting for every provider: used where that provider has such a voice.
    const savedVoice = canonicalVoice(name, overrides.DISCORD_VOICE_LIVE_VOICE ?? '');
    const voice = savedVoice ?? (name === 'gemini' ? config.gemini.voice : config.openai.voice);
    const geminiModel = overrides.GEMINI_MODEL?.trim() || config.gemini.model;
    const cacheKey = `${name}:${apiKey.length}:${apiKey.slice(0, 2)}${apiKey.slice(-2)}:${voice}:${name === 'gemini' ? geminiModel : ''}`;
    const cached = this.#built.get(cacheKey);
    if (cached) return cached;
    const modelLogger = logger.child({ provider: name });
    let provider: LiveModelProvider;
    if (name === 'gemini') {
      const { createGeminiProvider } = await import('./gemini/provider.ts');
      provider = createGeminiProvider({
        apiKey,
        model: geminiModel,
        fallbackModels: config.gemini.fallbackModels,
        voice,
        baseUrl: config.gemini.baseUrl,
        apiVersion: config.gemini.apiVersion,
        logger: modelLogger,
      });
    } else if (name === 'openai-realtime') {
      const { createOpenAIRealtimeProvider } = await import('./openai/realtime/provider.ts');
      provider = createOpenAIRealtimeProvider({
        apiKey,
        model: config.openai.realtimeModel,
        fallbackModels: config.openai.realtimeFallbackModels,
        voice,
        baseUrl: config.openai.realtimeBaseUrl,
        turnDetection: config.openai.turnDetection,
        logger: modelLogger,
      });
    } else {
      const { createOpenAILiveProvider } = await import('./openai/live/provider.ts');
      provider = createOpenAILiveProvider({
        apiKey,
        model: config.openai.liveModel,
        voice,
        baseUrl: config.openai.liveBaseUrl,
        logger: modelLogger,
      });
    }
    this.#built.set(cacheKey, provider);
    return provider;
  }
}

export function configuredModel(config: Config, provider: LiveProviderName): string {
  if (provider === 'gemini') return config.gemini.model;
  if (provider === 'openai-realtime') return config.openai.realtimeModel;
  return config.openai.liveModel;
}
