// GET /settings and PUT /settings: the dashboard's settings form. Secrets are write-only: the
// answer says whether each is stored, comes from the environment, or is unset, never its value.
// Saved settings take effect the next time the core starts (the answer says so).
import type { SettingsValues } from '../../settings/schema.ts';
import { SettingsError, type SettingsStore, type SettingsView } from '../../settings/store.ts';
import { HttpError } from '../errors.ts';
import type { RouteModule } from '../route-types.ts';

export interface SettingsDeps {
  store: SettingsStore;
  /** What the running core uses for each setting (env, defaults and stored choices merged). */
  effective?: () => SettingsValues;
}

export interface SettingsResponse extends SettingsView {
  effective: SettingsValues;
  applies: 'restart';
}

export const registerSettingsRoutes: RouteModule<SettingsDeps> = (app, deps) => {
  const answer = (view: SettingsView): SettingsResponse => ({ ...view, effective: deps.effective?.() ?? {}, applies: 'restart' });

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
