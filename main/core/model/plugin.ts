// What a provider's adapter folder exports as `plugin` (its plugin.ts): how to build the provider
// from the configuration, the provider's own values, the key, voice and model chosen for this call.
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import type { LiveModelProvider } from '../ports.ts';
import type { BackoffOptions } from './session-core/fallback.ts';

export interface AdapterContext {
  config: Config;
  /** The provider's variables (config.providerValues with this call's overrides laid over). */
  values: Readonly<Record<string, string | undefined>>;
  apiKey: string;
  model: string;
  voice: string;
  logger: Logger;
  /** Connection attempts (the setup page's test makes one per model). */
  backoff?: Partial<BackoffOptions>;
}

export interface AdapterPlugin {
  create(context: AdapterContext): LiveModelProvider;
}
