// OpenAI Realtime as a plug-in (declaration: main/core/providers/openai-realtime.ts).
import type { AdapterPlugin } from '../../plugin.ts';
import { createOpenAIRealtimeProvider } from './provider.ts';

export const plugin: AdapterPlugin = {
  create: ({ config, apiKey, model, voice, logger, backoff }) =>
    createOpenAIRealtimeProvider({
      apiKey,
      model,
      fallbackModels: config.openai.realtimeFallbackModels,
      voice,
      baseUrl: config.openai.realtimeBaseUrl,
      turnDetection: config.openai.turnDetection,
      logger,
      ...(backoff ? { backoff } : {}),
    }),
};
