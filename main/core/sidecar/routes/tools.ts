// `POST /tools/:name`: run any registered tool with the JSON body as its arguments and answer with
// the tool's JSON result. `POST /handoff`: the same for `sora_handoff`. The registry validates the
// arguments (zod), so a bad body is a 400 `invalid_args` and an unknown name a 404 `unknown_tool`.
import type { FastifyReply } from 'fastify';
import type { ToolOutcome, ToolRegistry } from '../../tools/registry.ts';
import { HttpError } from '../errors.ts';
import type { RouteModule } from '../route-types.ts';

/** Call notes can be long: more than the sidecar's default JSON limit. */
export const TOOL_BODY_LIMIT = 1024 * 1024;
export const HANDOFF_TOOL = 'sora_handoff';

const STATUS: Record<Exclude<ToolOutcome, { ok: true }>['error']['code'], number> = {
  unknown_tool: 404,
  invalid_args: 400,
  tool_failed: 500,
  cancelled: 409,
};

async function run(registry: ToolRegistry, name: string, body: unknown, reply: FastifyReply): Promise<FastifyReply> {
  const outcome = await registry.invoke(name, body, { caller: 'sidecar' });
  if (!outcome.ok) throw new HttpError(STATUS[outcome.error.code], outcome.error.code, outcome.error.message);
  // Serialize ourselves so a tool returning a bare string is still JSON, not text/plain.
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(outcome.result ?? null));
}

export const registerToolRoutes: RouteModule<{ registry: ToolRegistry }> = (app, { registry }) => {
  app.post<{ Params: { name: string } }>('/tools/:name', { bodyLimit: TOOL_BODY_LIMIT }, async (request, reply) =>
    run(registry, request.params.name, request.body, reply),
  );

  app.post('/handoff', { bodyLimit: TOOL_BODY_LIMIT }, async (request, reply) => {
    if (!registry.has(HANDOFF_TOOL)) throw new HttpError(503, 'handoff_unavailable', 'the hand-off tool is not registered in this process');
    return run(registry, HANDOFF_TOOL, request.body, reply);
  });
};
