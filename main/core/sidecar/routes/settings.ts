// GET /settings and PUT /settings: the dashboard's settings form. Secrets are write-only: the
// answer says whether each is stored, comes from the environment, or is unset, never its value.
// `applies` says, per setting, whether a change takes effect at the next call (no restart) or
// needs a restart (POST /restart, offered by the page as "Restart now").
import { CONFIG_VARIABLES, type VariableSpec } from '../../config/variables.ts';
import { isLiveProviderName } from '../../config/index.ts';
import { DEFAULT_PROVIDER, PROVIDERS, type ProviderDeclaration } from '../../providers/index.ts';
import { canonicalVoice, voicesFor } from '../../model/voices.ts';
import { SETTING_VARIABLES, type SettingKey, type SettingsValues } from '../../settings/schema.ts';
import { SettingsError, type SettingsStore, type SettingsView } from '../../settings/store.ts';
import { HttpError } from '../errors.ts';
import type { ProviderSummary, RestartOutcome } from '../../api-types.ts';
import type { RouteModule } from '../route-types.ts';

export interface SettingsDeps {
  store: SettingsStore;
  /** What the running core uses for each setting (env, defaults and stored choices merged). */
  effective?: () => SettingsValues;
  /** The environment the shell loaded the config from (to say which saved setting overrides which variable). */
  environment?: Readonly<Record<string, string | undefined>>;
  /** Whether this shell can restart the core from the page (POST /restart). */
  canRestart?: boolean;
  /** Told the saved values after each successful PUT (settings that apply live read them). */
  onSaved?: (values: SettingsValues) => void;
  /** How the last restart ended (the shell that restarts the core keeps it). */
  lastRestart?: () => RestartOutcome | null;
}

/**
 * When a saved change takes effect: at the next call (read per call by the provider selector) or
 * after a restart (everything built once at start-up: Discord login, ports, stores).
 */
export const NEXT_CALL_SETTINGS: readonly SettingKey[] = [
  'liveProvider',
  'model',
  'voice',
  'personaFile',
  'sfxEnabled',
  'allowedSpeakers',
  'parkAfterS',
  'patience',
  'turnSilenceCapMs',
  'sileroVad',
];
export type SettingApplies = 'next_call' | 'restart';

export function settingApplies(): Record<SettingKey, SettingApplies> {
  return Object.fromEntries(
    (Object.keys(SETTING_VARIABLES) as SettingKey[]).map((k) => [
      k,
      NEXT_CALL_SETTINGS.includes(k) ? 'next_call' : 'restart',
    ]),
  ) as Record<SettingKey, SettingApplies>;
}

/** Saved settings win over the environment and .env, which win over defaults. */
export const SETTINGS_PRECEDENCE = 'saved settings > environment > .env file > defaults';

export interface SettingsResponse extends SettingsView {
  effective: SettingsValues;
  applies: Record<SettingKey, SettingApplies>;
  /** Saved values the running core does not use yet (they need a restart). */
  pendingRestart: SettingKey[];
  canRestart: boolean;
  /** How the last "Restart now" ended: a refused one says why the saved settings did not take. */
  lastRestart: RestartOutcome | null;
  /** Voices of each provider, for the voice picker. */
  voices: Record<string, readonly string[]>;
  /** The providers this core offers, with what each can do (the page builds its choices from it). */
  providers: ProviderSummary[];
  precedence: typeof SETTINGS_PRECEDENCE;
  /** Saved settings that override a variable set in the environment: setting → variable name. */
  overrides: Partial<Record<SettingKey, string>>;
}

/** For each saved setting whose variable (or an alias) is also set in `env`: the variable it overrides. */
export function environmentOverrides(
  saved: SettingsValues,
  env: Readonly<Record<string, string | undefined>>,
): Partial<Record<SettingKey, string>> {
  const out: Partial<Record<SettingKey, string>> = {};
  const specs = new Map((CONFIG_VARIABLES as readonly VariableSpec[]).map((s) => [s.name, s]));
  for (const key of Object.keys(saved) as SettingKey[]) {
    if (saved[key] === undefined) continue;
    const spec = specs.get(SETTING_VARIABLES[key]);
    const set = [SETTING_VARIABLES[key], ...(spec?.aliases ?? [])].find((name) => (env[name] ?? '').trim() !== '');
    if (set) out[key] = set;
  }
  return out;
}

export const registerSettingsRoutes: RouteModule<SettingsDeps> = (app, deps) => {
  const applies = settingApplies();
  const answer = (view: SettingsView): SettingsResponse => {
    const effective = deps.effective?.() ?? {};
    const pendingRestart = (Object.keys(view.values) as SettingKey[]).filter(
      (k) => applies[k] === 'restart' && JSON.stringify(view.values[k]) !== JSON.stringify(effective[k]),
    );
    return {
      ...view,
      effective,
      applies,
      pendingRestart,
      canRestart: deps.canRestart ?? false,
      lastRestart: deps.lastRestart?.() ?? null,
      voices: Object.fromEntries(PROVIDERS.map((p) => [p.name, p.voices])),
      providers: PROVIDERS.map(providerSummary),
      precedence: SETTINGS_PRECEDENCE,
      overrides: environmentOverrides(view.values, deps.environment ?? {}),
    };
  };

  /** A voice must exist for the provider that will use it; stored as the provider spells it. */
  const checkVoice = async (body: Record<string, unknown>): Promise<void> => {
    const values = body.values as Record<string, unknown> | undefined;
    if (!values || typeof values.voice !== 'string') return;
    const saved = (await deps.store.view()).values;
    const requested = typeof values.liveProvider === 'string' ? values.liveProvider : undefined;
    const provider = requested ?? saved.liveProvider ?? deps.effective?.().liveProvider ?? DEFAULT_PROVIDER;
    // An unknown provider is the schema's to refuse (next), in its own field.
    if (!isLiveProviderName(provider)) return;
    const voice = canonicalVoice(provider, values.voice);
    if (voice) values.voice = voice;
    else {
      const fields = {
        voice: `There is no voice called "${values.voice.trim().slice(0, 40)}" for ${provider}. Choose one of: ${voicesFor(provider).join(', ')}.`,
      };
      throw new HttpError(400, 'invalid_settings', fields.voice, {}, fields);
    }
  };

  app.get('/settings', async () => answer(await deps.store.view()));

  app.put('/settings', async (request) => {
    if (request.body === null || typeof request.body !== 'object' || Array.isArray(request.body)) {
      throw new HttpError(
        400,
        'invalid_request',
        'body must be a JSON object like {"values": {...}, "secrets": {...}}',
      );
    }
    await checkVoice(request.body as Record<string, unknown>);
    try {
      const view = await deps.store.update(request.body);
      deps.onSaved?.(view.values);
      return answer(view);
    } catch (err) {
      if (err instanceof SettingsError) {
        throw new HttpError(err.code === 'secrets_unavailable' ? 409 : 400, err.code, err.message, {}, err.fields);
      }
      throw err;
    }
  });
};

/** A provider as the page sees it (api-types.ts `ProviderSummary`). */
function providerSummary(p: ProviderDeclaration): ProviderSummary {
  const { inputTranscription, images, instructionUpdates, interruptionSignal, billing } = p.capabilities;
  return {
    name: p.name,
    label: p.label,
    keyVariable: p.keyVariable,
    voices: p.voices,
    capabilities: { inputTranscription, images, instructionUpdates, interruptionSignal, billing },
  };
}
