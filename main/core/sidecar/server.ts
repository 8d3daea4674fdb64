// The sidecar HTTP server: fastify on a loopback address with the security layer applied to every
// route, uniform JSON errors, 404/405 that say what exists, and no CORS at all.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { errorBody, HttpError } from './errors.ts';
import {
  clientConnectionError,
  clientErrorCode,
  clientErrorMessage,
  RESPONSE_HEADERS,
  routingErrorReply,
} from './error-replies.ts';
import { boundedFields, boundedText } from '../input-errors.ts';
import { allowedHosts, createSecurityHook } from './security.ts';
import { IMAGE_BODY_LIMIT, JSON_BODY_LIMIT, MAX_PARAM_LENGTH } from '../contracts/sidecar-limits.ts';
import { DashboardSessions } from './sessions.ts';
import { guardConnections, type ConnectionGuardOptions } from './connection-guard.ts';

export { IMAGE_BODY_LIMIT, JSON_BODY_LIMIT, MAX_PARAM_LENGTH } from '../contracts/sidecar-limits.ts';
export const IMAGE_CONTENT_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'application/octet-stream'];

/**
 * Raw image bodies (POST /frame), with their own 8 MiB limit. Registered only inside the scope of
 * the routes that take images: registered on the whole app, every JSON route would accept 8 MiB of
 * binary past the 64 KiB JSON limit and hand a Buffer to its validation.
 */
export function acceptImageBodies(scope: FastifyInstance): void {
  scope.addContentTypeParser(
    IMAGE_CONTENT_TYPES,
    { parseAs: 'buffer', bodyLimit: IMAGE_BODY_LIMIT },
    (_req, body, done) => done(null, body),
  );
}

export type RouteRegistrar = (app: FastifyInstance) => void;

export interface SidecarOptions {
  host: string;
  port: number;
  token: string;
  logger: Logger;
  routes: RouteRegistrar[];
  /** Accept this host:port in Host headers too (non-loopback bind, explicitly allowed). */
  extraHosts?: string[];
  sessions?: DashboardSessions;
  /** Per-client connection cap and idle-connection timeout (connection-guard.ts). */
  connections?: ConnectionGuardOptions;
}

export interface Sidecar {
  app: FastifyInstance;
  sessions: DashboardSessions;
  /** Base URL clients use, e.g. http://127.0.0.1:18943 */
  url: string;
  listen(): Promise<void>;
  close(): Promise<void>;
}

/**
 * `/schedule/:id` → a regex matching concrete paths, for the 405 lookup. Exact, like the router
 * (no trailing-slash leniency): `/notes/` is routed nowhere, so it is a 404, not a 405 naming the
 * very method that was used.
 */
function routePattern(url: string): RegExp {
  const body = url
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}$`);
}

export function createSidecar(options: SidecarOptions): Sidecar {
  const sessions = options.sessions ?? new DashboardSessions();
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    // Per-request logs would put every /say text's URL in the log; refusals are logged on purpose instead.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: JSON_BODY_LIMIT,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    return503OnClosing: true,
    // Errors raised before routing, answered in the sidecar's own shape (not fastify's or Node's).
    frameworkErrors: routingErrorReply,
    clientErrorHandler: clientConnectionError,
  });

  // Idle connections closed, a per-client cap: /health and the owner always get in (connection-guard.ts).
  const connectionGuard = guardConnections(app.server, options.connections);

  // Bodies are JSON (and, in POST /frame's scope only, images: acceptImageBodies). text/plain and forms
  // are what a cross-site page can send without a preflight, so they are refused (415), not parsed.
  app.removeContentTypeParser('text/plain');

  const knownRoutes: { pattern: RegExp; methods: Set<string> }[] = [];
  app.addHook('onRoute', (route) => {
    if (route.url === '*') return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const existing = knownRoutes.find((r) => r.pattern.source === routePattern(route.url).source);
    if (existing) methods.forEach((m) => existing.methods.add(m));
    else knownRoutes.push({ pattern: routePattern(route.url), methods: new Set(methods) });
  });

  let hosts = allowedHosts(options.port, options.extraHosts);
  app.addHook('onRequest', createSecurityHook({ allowedHosts: () => hosts, token: options.token, sessions }));
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.headers(RESPONSE_HEADERS);
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0]!;
    const match = knownRoutes.find((r) => r.pattern.test(path));
    if (match) {
      const allow = [...match.methods]
        .filter((m) => m !== 'HEAD')
        .sort()
        .join(', ');
      return reply
        .code(405)
        .header('allow', allow)
        .send(errorBody('method_not_allowed', `${request.method} is not allowed here; use ${allow}`));
    }
    return reply.code(404).send(errorBody('not_found', `no route ${request.method} ${path}`));
  });

  app.setErrorHandler(async (error: FastifyError | HttpError, request, reply) => {
    if (error instanceof HttpError) {
      if (error.statusCode === 401 || error.statusCode === 403)
        request.log.warn({ code: error.code, url: request.url.split('?')[0] }, 'sidecar request refused');
      return reply
        .code(error.statusCode)
        .headers(error.headers)
        .send(errorBody(error.code, boundedText(error.message), boundedFields(error.fields)));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.code(status).send(errorBody(clientErrorCode(error), boundedText(clientErrorMessage(error))));
    }
    request.log.error({ err: error, url: request.url.split('?')[0] }, 'sidecar route failed');
    return reply.code(500).send(errorBody('internal_error', 'the sidecar hit an unexpected error; see its log'));
  });

  for (const register of options.routes) register(app);

  const displayHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  const sidecar: Sidecar = {
    app,
    sessions,
    url: `http://${displayHost}:${options.port}`,
    async listen() {
      await app.listen({ host: options.host, port: options.port });
      const address = app.server.address();
      if (address && typeof address === 'object' && options.port === 0) {
        // Port 0 (tests): learn the real port, and accept it in Host checks.
        sidecar.url = `http://${displayHost}:${address.port}`;
        hosts = allowedHosts(address.port, options.extraHosts);
      }
    },
    async close() {
      connectionGuard.stop();
      await app.close();
    },
  };
  return sidecar;
}
