// Gemini Live as a plug-in (declaration: main/core/providers/gemini.ts).
import type { AdapterPlugin } from '../plugin.ts';
import { createGeminiProvider } from './provider.ts';

export const plugin: AdapterPlugin = {
  create: ({ config, apiKey, model, voice, logger, backoff }) =>
    createGeminiProvider({
      apiKey,
      model,
      fallbackModels: config.gemini.fallbackModels,
      voice,
      baseUrl: config.gemini.baseUrl,
      apiVersion: config.gemini.apiVersion,
      logger,
      ...(backoff ? { backoff } : {}),
    }),
};
