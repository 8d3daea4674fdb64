// The live model, chosen per call (settings may switch it between calls without a restart). Model
// providers load at the first call (model/select.ts). Reports `live_model` to /health: the choice, or
// without a provider key the configured one.
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import type { Capability } from '../lifecycle.ts';
import { moduleLogger } from '../log/logger.ts';
import { providerKey } from '../model/registry.ts';
import { configuredModel, ProviderSelector } from '../model/select.ts';
import type { NotesLog } from '../notes/notes-log.ts';
import type { SettingsStore } from '../settings/store.ts';

export interface ModelDeps {
  config: Config;
  logger: Logger;
  notes: NotesLog;
  settingsStore?: SettingsStore;
}

export const modelCapability: Capability<ModelDeps, { model: ProviderSelector | null }> = {
  name: 'model',
  start({ config, logger, notes, settingsStore }) {
    const model = providerKey(config, config.liveProvider)
      ? new ProviderSelector({
          config,
          logger: moduleLogger(logger, 'model'),
          overrides: settingsStore ? () => settingsStore.configValues() : undefined,
          onConnected: (choice) =>
            notes.append({ kind: 'note', text: `live model: ${choice.provider} ${choice.model}` }),
        })
      : null;
    return {
      api: { model },
      stop: () => undefined,
      health: () => ({
        report: {
          live_model: model
            ? model.choice
            : { provider: config.liveProvider, model: configuredModel(config, config.liveProvider), inCall: false },
        },
      }),
    };
  },
};
