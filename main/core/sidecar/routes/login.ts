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

const FRESH_LINK_COMMAND = 'npx live-voice-bridge dashboard';

const LOGIN_EXPIRED_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Login link already used — Live Voice Bridge</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}code{background:#8882;padding:.1em .3em;border-radius:4px}</style>
</head><body>
<h1>This login link was already used</h1>
<p>Dashboard login links work once (and only for a few minutes), so that a link left in a terminal or a
browser history cannot be reused. Get a fresh one:</p>
<ul>
<li>from the project folder: <code>${FRESH_LINK_COMMAND}</code> (during the demo, after pasting the
<code>export</code> lines it printed);</li>
<li>or from the desktop app: the tray menu's <em>Open dashboard</em>.</li>
</ul>
<p><small>Error code: login_expired</small></p>
</body></html>
`;

export function loginUrl(baseUrl: string, nonce: string): string {
  return `${baseUrl}/login?nonce=${encodeURIComponent(nonce)}`;
}

export const registerLoginRoutes: RouteModule<LoginDeps> = (app, deps) => {
  app.get('/login', { config: { public: true } }, async (request, reply) => {
    const query = LoginQuery.safeParse(request.query);
    if (!query.success) throw new HttpError(400, 'invalid_request', 'nonce is required');
    const session = deps.sessions.redeem(query.data.nonce);
    if (!session) {
      // A person opened it in a browser (a used link, or a bookmark): a page that says what to do.
      if (String(request.headers.accept ?? '').includes('text/html')) {
        return reply
          .code(401)
          .header('content-type', 'text/html; charset=utf-8')
          .header('cache-control', 'no-store')
          .send(LOGIN_EXPIRED_PAGE);
      }
      throw new HttpError(
        401,
        'login_expired',
        `this login link was already used or has expired; run \`${FRESH_LINK_COMMAND}\` for a new one`,
      );
    }
    reply.header(
      'set-cookie',
      `${SESSION_COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_TTL_MS / 1000}`,
    );
    return reply.code(303).header('location', '/').send();
  });

  app.post('/login/url', async () => ({ url: loginUrl(deps.baseUrl(), deps.sessions.createNonce()) }));
};
