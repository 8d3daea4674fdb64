// Dashboard login: GET /login?nonce=… (the one-time URL) sets the session cookie and redirects to
// the dashboard. POST /login/url (bearer only) mints a fresh one-time URL for `live-voice-bridge dashboard`.
import { z } from 'zod';
import { HttpError } from '../errors.ts';
import type { RouteModule } from '../route-types.ts';
import { SESSION_COOKIE, SESSION_TTL_MS, type DashboardSessions } from '../sessions.ts';

const LoginQuery = z.object({ nonce: z.string().min(1).max(200) });

export interface LoginDeps {
  sessions: DashboardSessions;
  /** Base URL (http://127.0.0.1:port), read at call time because tests bind port 0. */
  baseUrl: () => string;
}

export function loginUrl(baseUrl: string, nonce: string): string {
  return `${baseUrl}/login?nonce=${encodeURIComponent(nonce)}`;
}

export const registerLoginRoutes: RouteModule<LoginDeps> = (app, deps) => {
  app.get('/login', { config: { public: true } }, async (request, reply) => {
    const query = LoginQuery.safeParse(request.query);
    if (!query.success) throw new HttpError(400, 'invalid_request', 'nonce is required');
    const session = deps.sessions.redeem(query.data.nonce);
    if (!session) throw new HttpError(401, 'login_expired', 'this login link was already used or has expired; run `live-voice-bridge dashboard` for a new one');
    reply.header('set-cookie', `${SESSION_COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_TTL_MS / 1000}`);
    return reply.code(303).header('location', '/').send();
  });

  app.post('/login/url', async () => ({ url: loginUrl(deps.baseUrl(), deps.sessions.createNonce()) }));
};
