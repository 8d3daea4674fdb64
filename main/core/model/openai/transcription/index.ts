// The wake-name screener as the core builds it: only when wake names are set and an OpenAI key is
// there (else null: the gate then says it cannot screen). The client code loads at the first
// screening stream, like the model providers at the first call.
import type { Logger } from 'pino';
import type { Config } from '../../../config/index.ts';
import type { SpeechScreener } from '../../../ports.ts';

export function wakeScreener(config: Config, logger: Logger): SpeechScreener | null {
  const apiKey = config.openai.apiKey;
  if (config.wake.names.length === 0 || !apiKey) return null;
  return {
    async open() {
      const { OpenAITranscriptionScreener } = await import('./screener.ts');
      return new OpenAITranscriptionScreener({
        apiKey,
        model: config.wake.screenModel,
        baseUrl: config.openai.realtimeBaseUrl,
        logger,
      }).open();
    },
  };
}
