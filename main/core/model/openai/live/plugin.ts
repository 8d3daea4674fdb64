// GPT-Live as a plug-in (declaration: main/core/providers/openai-live.ts).
import type { AdapterPlugin } from '../../plugin.ts';
import { createOpenAILiveProvider } from './provider.ts';

export const plugin: AdapterPlugin = {
  create: ({ config, apiKey, model, voice, logger, backoff }) =>
    createOpenAILiveProvider({
      apiKey,
      model,
      voice,
      baseUrl: config.openai.liveBaseUrl,
      logger,
      ...(backoff ? { backoff } : {}),
    }),
};
