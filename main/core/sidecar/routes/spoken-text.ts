// The two verbs for text a client hands the model in a live call, each as GET ?text= and POST {"text"}:
// - /announce: the model SPEAKS the text verbatim in its next turn ("The build is green.");
// - /ask:      the model ANSWERS the text as a message from the user ("Tell me a one-line joke").
// /say is the spec's route ("text injected through /say is spoken by the model in its next turn"):
// it keeps that meaning and is the same as /announce.
// Neither cuts off a reply in progress: the text waits for a pause (model/text-injection.ts).
import { z } from 'zod';
import type { SayVerb } from '../../api-types.ts';
import { SAY_ID_PATTERN } from '../../bridge/spoken-outcomes.ts';
import type { BridgeControl, SpokenVerb } from '../../bridge/types.ts';
import { HttpError } from '../errors.ts';
import type { RouteModule } from '../route-types.ts';
import { bridgeHttpError } from './bridge-errors.ts';

export const SAY_MAX_CHARS = 2000;

export interface SpokenTextRouteDeps {
  bridge: Pick<BridgeControl, 'say' | 'sayOutcome'>;
}

const Source = z.string().trim().min(1).max(100);
const TextQuery = z.object({ text: z.string().optional(), source: Source.optional() }).strict();
const TextBody = z.object({ text: z.string(), source: Source.optional() }).strict();

/** Characters as a user counts them (code points): an emoji or a CJK character is one, not two UTF-16 units. */
function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** Route → what the model does with the text. */
const ROUTES: readonly { path: '/say' | '/announce' | '/ask'; verb: SpokenVerb; route: SayVerb }[] = [
  { path: '/say', verb: 'announce', route: 'say' },
  { path: '/announce', verb: 'announce', route: 'announce' },
  { path: '/ask', verb: 'message', route: 'ask' },
];

export const registerSpokenTextRoutes: RouteModule<SpokenTextRouteDeps> = (app, deps) => {
  const hand = (
    verb: SpokenVerb,
    route: SayVerb,
    raw: string | undefined,
    source: string | undefined,
    missing: string,
  ) => {
    const text = (raw ?? '').trim();
    if (!text) throw new HttpError(400, 'empty_text', missing);
    const chars = characterCount(text);
    if (chars > SAY_MAX_CHARS)
      throw new HttpError(413, 'text_too_long', `text is longer than ${SAY_MAX_CHARS} characters (${chars})`);
    let id: string;
    try {
      id = deps.bridge.say(text, source ?? 'sidecar', verb, route);
    } catch (err) {
      throw bridgeHttpError(err);
    }
    // `as` says what the model does with it: speaks it (announce) or answers it (message); `id`
    // is where its outcome is (GET /say/{id}, the `say` event).
    return { status: 'queued', chars, as: verb, id };
  };

  // GET /say/{id}: what became of a /say, /announce or /ask (or a voice notification's `say_id`).
  app.get<{ Params: { id: string } }>('/say/:id', async (request) => {
    const id = request.params.id;
    if (!SAY_ID_PATTERN.test(id))
      throw new HttpError(
        400,
        'bad_say_id',
        'a spoken-text id looks like say_0123456789ab (the id a /say, /announce or /ask answered)',
      );
    const outcome = deps.bridge.sayOutcome?.(id);
    if (!outcome)
      throw new HttpError(
        404,
        'unknown_say_id',
        `no spoken-text request ${id} (unknown, or older than the outcomes kept: the last 500, 6 h)`,
      );
    return outcome;
  });

  for (const { path, verb, route } of ROUTES) {
    app.get(path, async (request) => {
      const query = TextQuery.safeParse(request.query);
      if (!query.success) {
        const unknown = query.error.issues.find((i) => i.code === 'unrecognized_keys');
        if (unknown && unknown.code === 'unrecognized_keys')
          throw new HttpError(
            400,
            'unknown_field',
            `unknown parameter ${unknown.keys.map((k) => JSON.stringify(k)).join(', ')}; accepted: text, source`,
          );
        throw new HttpError(400, 'invalid_request', 'give text once, as a string');
      }
      return hand(verb, route, query.data.text, query.data.source, 'query parameter text is required');
    });
    // The same as a JSON body: 2000 characters of non-Latin text, percent-encoded, do not fit in a URL
    // (Node refuses request headers over 16 KiB with 431).
    app.post(path, async (request) => {
      const body = TextBody.safeParse(request.body === undefined ? {} : request.body);
      if (!body.success)
        throw new HttpError(400, 'invalid_request', 'send {"text": "…"} (a string; "source" optional, nothing else)');
      return hand(verb, route, body.data.text, body.data.source, 'text is required');
    });
  }
};
