// Mute and push-to-talk: POST /mute {"muted":bool}, POST /ptt {"enabled":bool} (the mode) and/or
// {"held":bool} (the talk key). Neither needs a call: the state is the user's, kept across calls,
// so muting before joining joins muted (as in Discord). A hold while push-to-talk is off is refused
// (409 ptt_off): it would change nothing, and the caller (a key binding) should know. A release is
// always accepted, so a key-up can never fail.
import { z } from 'zod';
import type { TalkControl } from '../../bridge/talk-control.ts';
import { HttpError } from '../errors.ts';
import type { RouteModule } from '../route-types.ts';
import { zodErrorMessage } from '../../input-errors.ts';

export interface TalkRouteDeps {
  talk: TalkControl;
}

const MuteBody = z.object({ muted: z.boolean() }).strict();
const PttBody = z
  .object({ enabled: z.boolean().optional(), held: z.boolean().optional() })
  .strict()
  .refine(
    (b) => b.enabled !== undefined || b.held !== undefined,
    'give "enabled" (push-to-talk mode) or "held" (the talk key), as true or false',
  );

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body ?? undefined);
  if (!parsed.success) throw new HttpError(400, 'invalid_request', zodErrorMessage(parsed.error));
  return parsed.data;
}

export const registerTalkRoutes: RouteModule<TalkRouteDeps> = (app, deps) => {
  const { talk } = deps;

  app.post('/mute', async (request) => talk.setMuted(parse(MuteBody, request.body).muted));

  app.post('/ptt', async (request) => {
    const body = parse(PttBody, request.body);
    // Refused as a whole: a request that fails changes nothing.
    if (body.held === true && !(body.enabled ?? talk.state().ptt.enabled)) {
      throw new HttpError(
        409,
        'ptt_off',
        'push-to-talk is off, so voices already reach the model; turn it on first with {"enabled":true}',
      );
    }
    if (body.enabled !== undefined) talk.setPttEnabled(body.enabled);
    return body.held === undefined ? talk.state() : talk.setPttHeld(body.held);
  });
};
