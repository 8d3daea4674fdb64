// Which live model carries a call, decided at each call's start: the bridge sees one
// LiveModelProvider, this one, and it builds (once per provider and key) the provider the user chose,
// reading the settings again at every connect so a switch in the dashboard needs no restart.
// Provider modules are imported only when chosen: @google/genai alone takes ~0.5 s to load.
import type { Logger } from 'pino';
import { isLiveProviderName, type Config, type LiveProviderName } from '../config/index.ts';
import { providerOf } from '../providers/index.ts';
import { buildProvider, configuredModel, providerKey, voiceFor, type ConfigOverrides } from './registry.ts';
import type { LiveModelConnectOptions, LiveModelProvider, LiveModelSession, LiveModelUsage } from '../ports.ts';

export { configuredModel, type ConfigOverrides } from './registry.ts';

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
    const apiKey = providerKey(config, name, overrides);
    if (!apiKey) throw new Error(`${providerOf(name).keyVariable} is not set (needed by the ${name} provider)`);
    // Keyed by the key's length and ends only: the cache must not hold the key as a map key in clear.
    // Voice and model are read per call too: a saved change applies at the next call, no restart.
    const cacheKey = `${name}:${apiKey.length}:${apiKey.slice(0, 2)}${apiKey.slice(-2)}:${voiceFor(config, name, overrides)}:${configuredModel(config, name, overrides)}`;
    const cached = this.#built.get(cacheKey);
    if (cached) return cached;
    const provider = await buildProvider({ config, name, overrides, apiKey, logger: logger.child({ provider: name }) });
    this.#built.set(cacheKey, provider);
    return provider;
  }
}
