// GET /settings and PUT /settings: the dashboard's settings form. Secrets are write-only: the
// answer says whether each is stored, comes from the environment, or is unset, never its value.
// Saved settings take effect the next time the core starts (the answer says so).
import { CONFIG_VARIABLES, type VariableSpec } from '../../config/variables.ts';
import { SETTING_VARIABLES, type SettingKey, type SettingsValues } from '../../settings/schema.ts';
import { SettingsError, type SettingsStore, type SettingsView } from '../../settings/store.ts';
import { HttpError } from '../errors.ts';
import type { RouteModule } from '../route-types.ts';

export interface SettingsDeps {
  store: SettingsStore;
  /** What the running core uses for each setting (env, defaults and stored choices merged). */
  effective?: () => SettingsValues;
  /** The environment the shell loaded the config from (to say which saved setting overrides which variable). */
  environment?: Readonly<Record<string, string | undefined>>;
}

/** Saved settings win over the environment and .env, which win over defaults. */
export const SETTINGS_PRECEDENCE = 'saved settings > environment > .env file > defaults';

export interface SettingsResponse extends SettingsView {
  effective: SettingsValues;
  applies: 'restart';
  precedence: typeof SETTINGS_PRECEDENCE;
  /** Saved settings that override a variable set in the environment: setting → variable name. */
  overrides: Partial<Record<SettingKey, string>>;
}

/** For each saved setting whose variable (or an alias) is also set in `env`: the variable it overrides. */
export function environmentOverrides(saved: SettingsValues, env: Readonly<Record<string, string | undefined>>): Partial<Record<SettingKey, string>> {
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
  const answer = (view: SettingsView): SettingsResponse => ({
    ...view,
    effective: deps.effective?.() ?? {},
    applies: 'restart',
    precedence: SETTINGS_PRECEDENCE,
    overrides: environmentOverrides(view.values, deps.environment ?? {}),
  });

  app.get('/settings', async () => answer(await deps.store.view()));

  app.put('/settings', async (request) => {
    if (request.body === null || typeof request.body !== 'object' || Array.isArray(request.body)) {
      throw new HttpError(400, 'invalid_request', 'body must be a JSON object like {"values": {...}, "secrets": {...}}');
    }
    try {
      return answer(await deps.store.update(request.body));
    } catch (err) {
      if (err instanceof SettingsError) {
        throw new HttpError(err.code === 'secrets_unavailable' ? 409 : 400, err.code, err.message);
      }
      throw err;
    }
  });
};
