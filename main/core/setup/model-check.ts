// The setup page's model test: a real setup handshake through the project's own provider code (the
// same fallback order a call uses), closed at once. Says which model answered, or in plain words why
// none did; the key is never part of any message (the providers scrub it).
import type { Logger } from 'pino';
import type { Config, LiveProviderName } from '../config/index.ts';
import { buildProvider, configuredModel } from '../model/registry.ts';
import { providerOf } from '../providers/index.ts';

export interface ModelCheckResult {
  ok: boolean;
  code?: 'key_rejected' | 'model_rejected' | 'model_unreachable';
  provider: LiveProviderName;
  /** The model that completed the handshake (the configured one or a fallback). */
  model?: string;
  /** True when a fallback, not the configured model, answered. */
  fallback?: boolean;
  message: string;
}

export async function checkModel(input: {
  provider: LiveProviderName;
  apiKey: string;
  config: Config;
  logger: Logger;
}): Promise<ModelCheckResult> {
  const { provider, config } = input;
  const configured = configuredModel(config, provider);
  const { service, keySource } = providerOf(provider);
  let session;
  try {
    // The provider a call would use, with one connection attempt per model (a test, not a call).
    const model = await buildProvider({
      config,
      name: provider,
      apiKey: input.apiKey,
      logger: input.logger,
      backoff: { maxAttempts: 1 },
    });
    session = await model.connect({ tools: [], systemInstruction: 'Setup check: say nothing.' });
  } catch (err) {
    // The providers' own fatal verdicts (model/gemini/session.ts, model/session-core/fallback.ts).
    const reason = err instanceof Error ? err.message : String(err);
    if (/rejected the API key/i.test(reason))
      return {
        ok: false,
        code: 'key_rejected',
        provider,
        message: `${service} rejected the key. Copy it again (${keySource}) and paste it whole.`,
      };
    if (/no configured .*model accepted|rejected the session configuration/i.test(reason)) {
      return {
        ok: false,
        code: 'model_rejected',
        provider,
        message: `${service} accepted no configured model (${configured} and its fallbacks). Pick a live model your key may use.`,
      };
    }
    return { ok: false, code: 'model_unreachable', provider, message: `Could not reach ${service}: ${reason}` };
  }
  const model = session.model;
  await session.close().catch(() => undefined);
  const fallback = model !== configured;
  return {
    ok: true,
    provider,
    model,
    fallback,
    message: fallback
      ? `${service} answered with the fallback model ${model} (${configured} was refused).`
      : `${service} answered with ${model}.`,
  };
}
