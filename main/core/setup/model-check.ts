// The setup page's model test: a real setup handshake through the project's own provider code (the
// same fallback order a call uses), closed at once. Says which model answered, or in plain words why
// none did; the key is never part of any message (the providers scrub it).
import type { Logger } from 'pino';
import type { Config, LiveProviderName } from '../config/index.ts';
import { configuredModel } from '../model/select.ts';
import type { LiveModelProvider } from '../ports.ts';

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

/** Builds the provider a call would use, with one connection attempt per model (a test, not a call). */
async function providerFor(name: LiveProviderName, apiKey: string, config: Config, logger: Logger): Promise<LiveModelProvider> {
  const once = { maxAttempts: 1 };
  if (name === 'gemini') {
    const { createGeminiProvider } = await import('../model/gemini/provider.ts');
    const g = config.gemini;
    return createGeminiProvider({ apiKey, model: g.model, fallbackModels: g.fallbackModels, voice: g.voice, baseUrl: g.baseUrl, apiVersion: g.apiVersion, logger, backoff: once });
  }
  const o = config.openai;
  if (name === 'openai-realtime') {
    const { createOpenAIRealtimeProvider } = await import('../model/openai/realtime/provider.ts');
    return createOpenAIRealtimeProvider({ apiKey, model: o.realtimeModel, fallbackModels: o.realtimeFallbackModels, voice: o.voice, baseUrl: o.realtimeBaseUrl, turnDetection: o.turnDetection, logger, backoff: once });
  }
  const { createOpenAILiveProvider } = await import('../model/openai/live/provider.ts');
  return createOpenAILiveProvider({ apiKey, model: o.liveModel, voice: o.voice, baseUrl: o.liveBaseUrl, logger, backoff: once });
}

const SERVICE = { gemini: 'Gemini', 'openai-realtime': 'OpenAI', 'openai-live': 'OpenAI' } as const satisfies Record<LiveProviderName, string>;
const KEY_SOURCE: Record<(typeof SERVICE)[LiveProviderName], string> = { Gemini: 'Google AI Studio → Get API key', OpenAI: 'platform.openai.com → API keys' };

export async function checkModel(input: { provider: LiveProviderName; apiKey: string; config: Config; logger: Logger }): Promise<ModelCheckResult> {
  const { provider, config } = input;
  const configured = configuredModel(config, provider);
  const service = SERVICE[provider];
  let session;
  try {
    session = await (await providerFor(provider, input.apiKey, config, input.logger)).connect({ tools: [], systemInstruction: 'Setup check: say nothing.' });
  } catch (err) {
    // The providers' own fatal verdicts (model/gemini/session.ts, model/session-core/fallback.ts).
    const reason = err instanceof Error ? err.message : String(err);
    if (/rejected the API key/i.test(reason)) return { ok: false, code: 'key_rejected', provider, message: `${service} rejected the key. Copy it again (${KEY_SOURCE[service]}) and paste it whole.` };
    if (/no configured .*model accepted|rejected the session configuration/i.test(reason)) {
      return { ok: false, code: 'model_rejected', provider, message: `${service} accepted no configured model (${configured} and its fallbacks). Pick a live model your key may use.` };
    }
    return { ok: false, code: 'model_unreachable', provider, message: `Could not reach ${service}: ${reason}` };
  }
  const model = session.model;
  await session.close().catch(() => undefined);
  const fallback = model !== configured;
  return { ok: true, provider, model, fallback, message: fallback ? `${service} answered with the fallback model ${model} (${configured} was refused).` : `${service} answered with ${model}.` };
}
