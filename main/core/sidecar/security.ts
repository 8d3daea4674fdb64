// The checks every sidecar request passes before any route runs, cheapest first:
//   1. Host allowlist            — stops DNS rebinding (an attacker's name resolving to 127.0.0.1)
//   2. Origin / Sec-Fetch-Site   — stops cross-site browser requests (CSRF from any web page)
//   3. Bearer token or session   — stops other local programs and users that lack the 0600 token
// Routes opt out of (3) only with `config: { public: true }` (health, login, the dashboard shell).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from './errors.ts';
import { parseCookies, SESSION_COOKIE, type DashboardSessions } from './sessions.ts';
import { secretsEqual } from './token.ts';

export interface SecurityOptions {
  /** Accepted Host header values; a function because a test server learns its port only after listen. */
  allowedHosts: () => ReadonlySet<string>;
  token: string;
  sessions: DashboardSessions;
}

export interface RouteSecurityConfig {
  /** No token needed (GET /health, GET /login, the dashboard page shell). Host/Origin checks still apply. */
  public?: boolean;
}

const ALLOWED_FETCH_SITES = new Set(['same-origin', 'none']);

export function allowedHosts(port: number, extra: string[] = []): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, ...extra.map((h) => h.toLowerCase())]);
}

export function createSecurityHook(options: SecurityOptions) {
  return async function securityHook(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const host = request.headers.host?.toLowerCase();
    // Missing, empty or unlisted Host is refused: a rebinding page always carries its own name.
    if (!host || !options.allowedHosts().has(host))
      throw new HttpError(403, 'forbidden_host', 'Host header is not an allowed loopback address');

    const origin = request.headers.origin;
    if (origin !== undefined && origin !== `http://${host}`) {
      throw new HttpError(403, 'cross_origin', 'cross-origin requests are not allowed');
    }
    const fetchSite = request.headers['sec-fetch-site'];
    if (typeof fetchSite === 'string' && !ALLOWED_FETCH_SITES.has(fetchSite)) {
      throw new HttpError(403, 'cross_site', 'cross-site requests are not allowed');
    }

    const routeConfig = request.routeOptions.config as RouteSecurityConfig | undefined;
    if (routeConfig?.public) return;

    const authorization = request.headers.authorization;
    if (typeof authorization === 'string') {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (match && secretsEqual(match[1]!, options.token)) return;
      throw new HttpError(401, 'unauthorized', 'invalid bearer token', { 'www-authenticate': 'Bearer' });
    }
    const session = parseCookies(request.headers.cookie).get(SESSION_COOKIE);
    if (session && options.sessions.isValidSession(session)) return;
    throw new HttpError(
      401,
      'unauthorized',
      'missing bearer token (Authorization: Bearer <token from sidecar.token>)',
      {
        'www-authenticate': 'Bearer',
      },
    );
  };
}
