// What every provider factory takes (each adds its own endpoint and tuning), and how it becomes the
// shared core's options for one session: the model list without repeats, the back-off over its
// defaults, the injected-text wording, a scrubber for the provider's key.
import type { Logger } from 'pino';
import { systemClock, type TimerClock } from '../../contracts/clock.ts';
import { defaultInjectedText } from '../injected-text.ts';
import { DEFAULT_BACKOFF, type BackoffOptions } from './fallback.ts';
import type { LiveModelConnectOptions, LiveModelProvider, LiveModelSession } from '../../ports.ts';
import type { ModelSessionCore, ModelSessionCoreOptions } from './model-session.ts';

export interface ProviderOptions {
  apiKey: string;
  model: string;
  fallbackModels?: readonly string[];
  voice: string;
  logger: Logger;
  clock?: TimerClock;
  backoff?: Partial<BackoffOptions>;
  /** Wording around injected text; default asks the model to say it, not answer it. */
  formatInjectedText?: (text: string) => string;
  replyWaitMs?: number;
}

/** The core's options for a provider's sessions (`module` names the provider in its log lines). */
export function coreOptionsOf(
  options: ProviderOptions,
  module: string,
  scrub: (text: string) => string,
): ModelSessionCoreOptions {
  return {
    models: [...new Set([options.model, ...(options.fallbackModels ?? [])].filter(Boolean))],
    logger: options.logger.child({ module }),
    clock: options.clock ?? systemClock,
    backoff: { ...DEFAULT_BACKOFF, ...options.backoff },
    scrub,
    formatInjectedText: options.formatInjectedText ?? defaultInjectedText,
    replyWaitMs: options.replyWaitMs,
  };
}

/**
 * A provider whose `connect` builds one session from the call's options and starts it: the one
 * `connect` every adapter had written out for itself.
 */
export function sessionProvider(
  name: string,
  build: (connect: LiveModelConnectOptions) => ModelSessionCore & LiveModelSession,
): LiveModelProvider {
  return {
    name,
    async connect(connect: LiveModelConnectOptions): Promise<LiveModelSession> {
      const session = build(connect);
      await session.start();
      return session;
    },
  };
}
