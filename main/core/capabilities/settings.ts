// Saved settings as last saved (PUT /settings updates them): the ones that apply live (persona, park
// time, chime, allowed speakers) read them here. Allowed speakers apply at once; cleared, they are the
// environment's list again, else the owner. A new persona or speakers reach the call's model mid-call
// where it allows (bridge/live-context.ts), through the call port.
import type { Capability } from '../lifecycle.ts';
import type { SettingsValues } from '../settings/schema.ts';
import type { SettingsStore } from '../settings/store.ts';
import { speakerList, type AllowedSpeakers } from '../voice/allowed-speakers.ts';
import type { CallPort } from './call-port.ts';

export interface LiveSettingsApi {
  /** The values as last saved ({} without a store). */
  values(): SettingsValues;
  /** PUT /settings saved these. */
  saved(values: SettingsValues): void;
}

export interface LiveSettingsDeps {
  store?: SettingsStore;
  environment?: Readonly<Record<string, string | undefined>>;
  allowedSpeakers: AllowedSpeakers;
  call: CallPort;
}

export const liveSettingsCapability: Capability<LiveSettingsDeps, LiveSettingsApi> = {
  name: 'live settings',
  async start({ store, environment, allowedSpeakers, call }) {
    let current: SettingsValues = (await store?.view())?.values ?? {};
    const saved = (values: SettingsValues): void => {
      current = values;
      allowedSpeakers.replace(
        values.allowedSpeakers ??
          speakerList(
            environment?.DISCORD_VOICE_LIVE_ALLOWED_SPEAKERS ?? environment?.PLATFORM_VOICE_LIVE_ALLOWED_SPEAKERS,
          ),
      );
      call.current?.context.changed();
    };
    return { api: { values: () => current, saved }, stop: () => undefined };
  },
};
