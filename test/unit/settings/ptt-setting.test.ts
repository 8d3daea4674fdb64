// "Start in push-to-talk mode" is a saved setting like the others: it feeds DISCORD_VOICE_LIVE_PTT_MODE,
// which the core's TalkControl starts from (the variable alone does the same).
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../main/core/config/index.ts';
import {
  configToSettingsValues,
  SettingsValuesSchema,
  settingsToConfigValues,
} from '../../../main/core/settings/schema.ts';

describe('push-to-talk mode setting', () => {
  it('a saved pttMode reaches the config; the default is off', () => {
    expect(loadConfig({ env: {} }).audio.pttMode).toBe(false);
    const settings = settingsToConfigValues(SettingsValuesSchema.parse({ pttMode: true }));
    expect(settings).toEqual({ DISCORD_VOICE_LIVE_PTT_MODE: 'true' });
    const config = loadConfig({ env: {}, settings });
    expect(config.audio.pttMode).toBe(true);
    expect(configToSettingsValues(config).pttMode).toBe(true);
    expect(loadConfig({ env: { DISCORD_VOICE_LIVE_PTT_MODE: 'true' } }).audio.pttMode).toBe(true);
  });

  it('refuses a non-boolean', () => {
    expect(SettingsValuesSchema.safeParse({ pttMode: 'yes' }).success).toBe(false);
  });
});
