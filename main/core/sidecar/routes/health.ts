// GET /health: public (no token) so a supervisor can probe it, hence nothing secret and no
// transcript text in it: only process facts, states and counters.
import type { HealthReport } from '../../api-types.ts';
import type { RouteModule } from '../route-types.ts';

export const registerHealthRoutes: RouteModule<{ health: () => HealthReport }> = (app, deps) => {
  app.get('/health', { config: { public: true } }, async () => deps.health());
};
