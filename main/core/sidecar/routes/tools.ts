// `POST /tools/:name`: run any registered tool with the JSON body as its arguments and answer with
// the tool's JSON result. `POST /handoff`: the same for `sora_handoff`. The registry validates the
// arguments (zod), so a bad body is a 400 `invalid_args` and an unknown name a 404 `unknown_tool`;
// a tool's refusal keeps its own code and status (e.g. 400 `bad_delay`, 409 `not_cancellable`,
// 403 `forbidden`); only a fault of ours is a 500 `tool_failed`, logged once with its cause.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ToolOutcome, ToolRegistry } from '../../tools/registry.ts';
import { HttpError } from '../errors.ts';
import type { RouteModule } from '../route-types.ts';

/** Call notes can be long: more than the sidecar's default JSON limit. */
export const TOOL_BODY_LIMIT = 1024 * 1024;
export const HANDOFF_TOOL = 'sora_handoff';

async function run(
  registry: ToolRegistry,
  name: string,
  body: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const outcome: ToolOutcome = await registry.invoke(name, body, { caller: 'sidecar' });
  if (!outcome.ok) {
    const { status, code, message } = outcome.error;
    if (status >= 500 && code === 'tool_failed') {
      request.log.error({ tool: name, cause: message }, 'tool failed');
      throw new HttpError(500, code, 'the tool failed; see the sidecar log');
    }
    throw new HttpError(status, code, message);
  }
  // Serialize ourselves so a tool returning a bare string is still JSON, not text/plain.
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(outcome.result ?? null));
}

export const registerToolRoutes: RouteModule<{ registry: ToolRegistry }> = (app, { registry }) => {
  app.post<{ Params: { name: string } }>('/tools/:name', { bodyLimit: TOOL_BODY_LIMIT }, async (request, reply) =>
    run(registry, request.params.name, request.body, request, reply),
  );

  app.post('/handoff', { bodyLimit: TOOL_BODY_LIMIT }, async (request, reply) => {
    if (!registry.has(HANDOFF_TOOL))
      throw new HttpError(503, 'handoff_unavailable', 'the hand-off tool is not registered in this process');
    return run(registry, HANDOFF_TOOL, request.body, request, reply);
  });
};
