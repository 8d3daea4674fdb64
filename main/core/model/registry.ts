// The runtime side of the provider registry (main/core/providers/): a declaration names its adapter
// folder, whose plugin.ts builds the provider. Loaded only when chosen: @google/genai alone takes
// ~0.5 s to load. Also what the core reads about a provider's choice for a call: its key, model and
// voice, with the settings store's overrides laid over the configuration.
import type { Logger } from 'pino';
import type { Config, VariableName } from '../config/index.ts';
import { canonicalVoiceOf, providerOf, type ProviderName } from '../providers/index.ts';
import type { LiveModelProvider } from '../ports.ts';
import type { AdapterPlugin } from './plugin.ts';
import type { BackoffOptions } from './session-core/fallback.ts';

export type ConfigOverrides = Partial<Record<VariableName, string>>;

/**
 * Each adapter folder's plugin.ts, by the folder a declaration names: one line per adapter. Static
 * imports (lazy), not a computed path: vite (vitest) resolves computed imports one folder deep only,
 * and the floors check reads literal specifiers.
 */
const ADAPTERS: Readonly<Record<string, () => Promise<{ plugin: AdapterPlugin }>>> = {
  gemini: () => import('./gemini/plugin.ts'),
  'openai/realtime': () => import('./openai/realtime/plugin.ts'),
  'openai/live': () => import('./openai/live/plugin.ts'),
  xai: () => import('./xai/plugin.ts'),
};

/** The adapter folders the registry can load (test/unit/model/provider-registry.test.ts checks every declaration has one). */
export const ADAPTER_FOLDERS: readonly string[] = Object.keys(ADAPTERS);

/** The adapter of a provider (its folder's plugin.ts). */
export async function loadAdapter(name: ProviderName): Promise<AdapterPlugin> {
  const folder = providerOf(name).adapter;
  const load = ADAPTERS[folder];
  if (!load) throw new Error(`no adapter folder ${folder} for the ${name} provider (model/registry.ts)`);
  return (await load()).plugin;
}

/** A provider's values: the configuration's, with non-empty overrides (settings store) over them. */
export function providerValues(
  config: Config,
  name: ProviderName,
  overrides: ConfigOverrides = {},
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  const declaration = providerOf(name);
  const names = new Set<string>([
    ...declaration.variables.map((v) => v.name),
    declaration.keyVariable,
    declaration.modelVariable,
    declaration.voiceVariable,
  ]);
  for (const variable of names) {
    const over = (overrides as Record<string, string | undefined>)[variable]?.trim();
    out[variable] = over || config.providerValues[variable];
  }
  return out;
}

export function providerKey(config: Config, name: ProviderName, overrides: ConfigOverrides = {}): string | undefined {
  return providerValues(config, name, overrides)[providerOf(name).keyVariable] || undefined;
}

export function configuredModel(config: Config, name: ProviderName, overrides: ConfigOverrides = {}): string {
  return providerValues(config, name, overrides)[providerOf(name).modelVariable] ?? '';
}

/** The voice for a call: the saved shared voice where this provider has it, else the provider's own. */
export function voiceFor(config: Config, name: ProviderName, overrides: ConfigOverrides = {}): string {
  const saved = canonicalVoiceOf(name, overrides.DISCORD_VOICE_LIVE_VOICE ?? '');
  return saved ?? providerValues(config, name, overrides)[providerOf(name).voiceVariable] ?? '';
}

/** Builds the provider a call would use (the selector caches it per key, voice and model). */
export async function buildProvider(options: {
  config: Config;
  name: ProviderName;
  overrides?: ConfigOverrides;
  apiKey: string;
  logger: Logger;
  backoff?: Partial<BackoffOptions>;
}): Promise<LiveModelProvider> {
  const { config, name, overrides = {} } = options;
  const adapter = await loadAdapter(name);
  return adapter.create({
    config,
    values: providerValues(config, name, overrides),
    apiKey: options.apiKey,
    model: configuredModel(config, name, overrides),
    voice: voiceFor(config, name, overrides),
    logger: options.logger,
    ...(options.backoff ? { backoff: options.backoff } : {}),
  });
}
