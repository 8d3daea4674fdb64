// The two verbs for text a client hands the model in a live call, each as GET ?text= and POST {"text"}:
// - /announce: the model SPEAKS the text verbatim in its next turn ("The build is green.");
// - /ask:      the model ANSWERS the text as a message from the user ("Tell me a one-line joke").
// /say is the spec's route ("text injected through /say is spoken by the model in its next turn"):
// it keeps that meaning and is the same as /announce.
// Neither cuts off a reply in progress: the text waits for a pause (model/text-injection.ts).
import { z } from 'zod';
import type { BridgeControl, SpokenVerb } from '../../bridge/types.ts';
import { HttpError } from '../errors.ts';
import type { RouteModule } from '../route-types.ts';
import { bridgeHttpError } from './bridge-errors.ts';

export const SAY_MAX_CHARS = 2000;

export interface SpokenTextRouteDeps {
  bridge: Pick<BridgeControl, 'say'>;
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
const ROUTES: readonly { path: '/say' | '/announce' | '/ask'; verb: SpokenVerb }[] = [
  { path: '/say', verb: 'announce' },
  { path: '/announce', verb: 'announce' },
  { path: '/ask', verb: 'message' },
];

export const registerSpokenTextRoutes: RouteModule<SpokenTextRouteDeps> = (app, deps) => {
  const hand = (verb: SpokenVerb, raw: string | undefined, source: string | undefined, missing: string) => {
    const text = (raw ?? '').trim();
    if (!text) throw new HttpError(400, 'empty_text', missing);
    const chars = characterCount(text);
    if (chars > SAY_MAX_CHARS) throw new HttpError(413, 'text_too_long', `text is longer than ${SAY_MAX_CHARS} characters (${chars})`);
    try {
      deps.bridge.say(text, source ?? 'sidecar', verb);
    } catch (err) {
      throw bridgeHttpError(err);
    }
    // `as` says what the model does with it: speaks it (announce) or answers it (message).
    return { status: 'queued', chars, as: verb };
  };

  for (const { path, verb } of ROUTES) {
    app.get(path, async (request) => {
      const query = TextQuery.safeParse(request.query);
      if (!query.success) {
        const unknown = query.error.issues.find((i) => i.code === 'unrecognized_keys');
        if (unknown && unknown.code === 'unrecognized_keys') throw new HttpError(400, 'unknown_field', `unknown parameter ${unknown.keys.map((k) => JSON.stringify(k)).join(', ')}; accepted: text, source`);
        throw new HttpError(400, 'invalid_request', 'give text once, as a string');
      }
      return hand(verb, query.data.text, query.data.source, 'query parameter text is required');
    });
    // The same as a JSON body: 2000 characters of non-Latin text, percent-encoded, do not fit in a URL
    // (Node refuses request headers over 16 KiB with 431).
    app.post(path, async (request) => {
      const body = TextBody.safeParse(request.body === undefined ? {} : request.body);
      if (!body.success) throw new HttpError(400, 'invalid_request', 'send {"text": "…"} (a string; "source" optional, nothing else)');
      return hand(verb, body.data.text, body.data.source, 'text is required');
    });
  }
};
