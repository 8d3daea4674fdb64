// xAI Grok Voice as a plug-in (declaration: main/core/providers/xai.ts, whose schema reads its values).
import { XAI } from '../../providers/xai.ts';
import type { AdapterPlugin } from '../plugin.ts';
import { createXaiProvider } from './provider.ts';

export const plugin: AdapterPlugin = {
  create: ({ values, apiKey, model, voice, logger, backoff }) => {
    const own = XAI.configSchema.parse(values);
    return createXaiProvider({
      apiKey,
      model,
      fallbackModels: own.XAI_MODEL_FALLBACKS ?? [],
      voice,
      baseUrl: own.XAI_BASE_URL,
      logger,
      ...(backoff ? { backoff } : {}),
    });
  },
};
