// The contract every sidecar route module follows: `register(app, deps)` adds routes to an app
// that already carries the security layer (Host/Origin checks, bearer token, JSON errors).
// Route modules never re-check auth; they validate their own input with zod and throw HttpError.
import type { FastifyInstance } from 'fastify';

export type RouteModule<Deps> = (app: FastifyInstance, deps: Deps) => void;
