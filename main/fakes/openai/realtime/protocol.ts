// What the fake OpenAI Realtime service accepts from a client, as zod schemas: strict objects, so an
// unknown field is rejected with its path (`unknown_parameter`) the way the service rejects it, and
// values are checked where the reference constrains them (24 kHz only for `audio/pcm`, voices,
// item roles and content types, base64 audio). Reference: openai@7.57.0 resources/realtime
// (RealtimeClientEvent, RealtimeSessionCreateRequest), developers.openai.com realtime client events.
import { z } from 'zod';

export const CLIENT_EVENT_TYPES = [
  'session.update',
  'input_audio_buffer.append',
  'input_audio_buffer.commit',
  'input_audio_buffer.clear',
  'conversation.item.create',
  'conversation.item.retrieve',
  'conversation.item.truncate',
  'conversation.item.delete',
  'response.create',
  'response.cancel',
  'output_audio_buffer.clear',
] as const;

export const VOICES = [
  'alloy',
  'ash',
  'ballad',
  'coral',
  'echo',
  'sage',
  'shimmer',
  'verse',
  'marin',
  'cedar',
] as const;

/** Strict base64 (the service rejects anything `Buffer.from` would silently skip). */
export const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export const audioFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('audio/pcm'), rate: z.literal(24000).optional() }).strict(),
  z.object({ type: z.literal('audio/pcmu') }).strict(),
  z.object({ type: z.literal('audio/pcma') }).strict(),
]);

export const turnDetection = z
  .discriminatedUnion('type', [
    z
      .object({
        type: z.literal('server_vad'),
        threshold: z.number().min(0).max(1).optional(),
        prefix_padding_ms: z.number().int().min(0).optional(),
        silence_duration_ms: z.number().int().min(0).optional(),
        create_response: z.boolean().optional(),
        interrupt_response: z.boolean().optional(),
        idle_timeout_ms: z.number().int().nullish(),
      })
      .strict(),
    z
      .object({
        type: z.literal('semantic_vad'),
        eagerness: z.enum(['low', 'medium', 'high', 'auto']).optional(),
        create_response: z.boolean().optional(),
        interrupt_response: z.boolean().optional(),
      })
      .strict(),
  ])
  .nullable();

const functionTool = z
  .object({
    type: z.literal('function'),
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export const sessionSchema = z
  .object({
    type: z.literal('realtime'),
    model: z.string().optional(),
    instructions: z.string().optional(),
    output_modalities: z.union([z.tuple([z.literal('audio')]), z.tuple([z.literal('text')])]).optional(),
    audio: z
      .object({
        input: z
          .object({
            format: audioFormat.optional(),
            turn_detection: turnDetection.optional(),
            transcription: z
              .object({ model: z.string(), language: z.string().optional(), prompt: z.string().optional() })
              .strict()
              .nullish(),
            noise_reduction: z
              .object({ type: z.enum(['near_field', 'far_field']) })
              .strict()
              .nullish(),
          })
          .strict()
          .optional(),
        output: z
          .object({
            format: audioFormat.optional(),
            voice: z.enum(VOICES).optional(),
            speed: z.number().min(0.25).max(1.5).optional(),
          })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
    tools: z.array(functionTool).optional(),
    tool_choice: z
      .union([
        z.enum(['auto', 'none', 'required']),
        z.object({ type: z.literal('function'), name: z.string() }).strict(),
      ])
      .optional(),
    max_output_tokens: z.union([z.number().int().min(1).max(4096), z.literal('inf')]).optional(),
    tracing: z.unknown().optional(),
    truncation: z.unknown().optional(),
    include: z.array(z.string()).optional(),
  })
  .strict();

export type SessionConfig = z.infer<typeof sessionSchema>;

const imageUrl = z
  .string()
  .regex(
    /^data:image\/(?:jpeg|png);base64,[A-Za-z0-9+/]+=*$/,
    'expected a data:image/jpeg or data:image/png base64 URL',
  );

const userContent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('input_text'), text: z.string() }).strict(),
  z
    .object({ type: z.literal('input_audio'), audio: z.string().regex(BASE64_RE), transcript: z.string().optional() })
    .strict(),
  z
    .object({ type: z.literal('input_image'), image_url: imageUrl, detail: z.enum(['auto', 'low', 'high']).optional() })
    .strict(),
]);
const assistantContent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('output_text'), text: z.string() }).strict(),
  z
    .object({
      type: z.literal('output_audio'),
      audio: z.string().regex(BASE64_RE).optional(),
      transcript: z.string().optional(),
    })
    .strict(),
]);
const itemId = z.string().min(1).max(32);

export const itemSchema = z.union([
  z
    .object({
      id: itemId.optional(),
      type: z.literal('message'),
      role: z.literal('user'),
      content: z.array(userContent).min(1),
      status: z.string().optional(),
      object: z.string().optional(),
    })
    .strict(),
  z
    .object({
      id: itemId.optional(),
      type: z.literal('message'),
      role: z.literal('assistant'),
      content: z.array(assistantContent).min(1),
      status: z.string().optional(),
      object: z.string().optional(),
    })
    .strict(),
  z
    .object({
      id: itemId.optional(),
      type: z.literal('message'),
      role: z.literal('system'),
      content: z.array(z.object({ type: z.literal('input_text'), text: z.string() }).strict()).min(1),
    })
    .strict(),
  z
    .object({
      id: itemId.optional(),
      type: z.literal('function_call'),
      call_id: z.string().min(1),
      name: z.string().min(1),
      arguments: z.string(),
    })
    .strict(),
  z
    .object({
      id: itemId.optional(),
      type: z.literal('function_call_output'),
      call_id: z.string().min(1),
      output: z.string(),
    })
    .strict(),
]);

export type ConversationItemInput = z.infer<typeof itemSchema>;

const eventId = z.string().max(512).optional();

export const clientEventSchemas = {
  'session.update': z.object({ type: z.literal('session.update'), event_id: eventId, session: sessionSchema }).strict(),
  'input_audio_buffer.append': z
    .object({
      type: z.literal('input_audio_buffer.append'),
      event_id: eventId,
      audio: z.string().regex(BASE64_RE, 'expected base64-encoded audio'),
    })
    .strict(),
  'input_audio_buffer.commit': z.object({ type: z.literal('input_audio_buffer.commit'), event_id: eventId }).strict(),
  'input_audio_buffer.clear': z.object({ type: z.literal('input_audio_buffer.clear'), event_id: eventId }).strict(),
  'conversation.item.create': z
    .object({
      type: z.literal('conversation.item.create'),
      event_id: eventId,
      previous_item_id: z.string().nullish(),
      item: itemSchema,
    })
    .strict(),
  'conversation.item.retrieve': z
    .object({ type: z.literal('conversation.item.retrieve'), event_id: eventId, item_id: z.string() })
    .strict(),
  'conversation.item.truncate': z
    .object({
      type: z.literal('conversation.item.truncate'),
      event_id: eventId,
      item_id: z.string(),
      content_index: z.number().int().min(0),
      audio_end_ms: z.number().int().min(0),
    })
    .strict(),
  'conversation.item.delete': z
    .object({ type: z.literal('conversation.item.delete'), event_id: eventId, item_id: z.string() })
    .strict(),
  'response.create': z
    .object({
      type: z.literal('response.create'),
      event_id: eventId,
      response: z.record(z.string(), z.unknown()).optional(),
    })
    .strict(),
  'response.cancel': z
    .object({ type: z.literal('response.cancel'), event_id: eventId, response_id: z.string().optional() })
    .strict(),
  'output_audio_buffer.clear': z.object({ type: z.literal('output_audio_buffer.clear'), event_id: eventId }).strict(),
} satisfies Record<(typeof CLIENT_EVENT_TYPES)[number], z.ZodType>;

/** The first zod issue as the service's (code, param, message). */
export function describeIssue(error: z.ZodError, prefix = ''): { code: string; param: string; message: string } {
  const issue = error.issues[0]!;
  const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
  if (issue.code === 'unrecognized_keys') {
    const key = [path, issue.keys[0]].filter(Boolean).join('.');
    return { code: 'unknown_parameter', param: key, message: `Unknown parameter: '${key}'.` };
  }
  if (issue.code === 'invalid_type' && issue.input === undefined)
    return { code: 'missing_required_parameter', param: path, message: `Missing required parameter: '${path}'.` };
  return { code: 'invalid_value', param: path, message: `Invalid value for '${path}': ${issue.message}` };
}

type JsonObject = Record<string, unknown>;

/** A client event read off the wire: the event (when it was a JSON object), and the `error` it gets or what to dispatch. */
export type ReadClientEvent =
  | {
      event: JsonObject | null;
      error: { code: string; message: string; param?: string; eventId?: string | null; type?: string };
      type?: undefined;
      eventId?: undefined;
    }
  | { event: JsonObject; error: null; type: (typeof CLIENT_EVENT_TYPES)[number]; eventId: string | null };

/** Parses and validates one client event as the service does (JSON object, known type, its schema). */
export function readClientEvent(text: string): ReadClientEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {
      event: null,
      error: {
        code: 'invalid_json',
        message:
          "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)",
        type: 'invalid_request_error',
      },
    };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { event: null, error: { code: 'invalid_value', message: 'Expected an object.', param: '' } };
  const event = parsed as JsonObject;
  const type = event.type;
  if (typeof type !== 'string')
    return {
      event,
      error: { code: 'missing_required_parameter', message: "Missing required parameter: 'type'.", param: 'type' },
    };
  const eventId = typeof event.event_id === 'string' ? event.event_id : null;
  const schema = (clientEventSchemas as Record<string, z.ZodType | undefined>)[type];
  if (!schema)
    return {
      event,
      error: {
        code: 'invalid_value',
        message: `Invalid value: '${type}'. Supported values are: ${CLIENT_EVENT_TYPES.map((t) => `'${t}'`).join(', ')}.`,
        param: 'type',
        eventId,
      },
    };
  const checked = schema.safeParse(event);
  if (!checked.success) {
    const issue = describeIssue(checked.error);
    return { event, error: { code: issue.code, message: issue.message, param: issue.param, eventId } };
  }
  return { event, error: null, type: type as (typeof CLIENT_EVENT_TYPES)[number], eventId };
}

/** The GA server events of a response that is one function call, in order (its arguments in one delta). */
export function functionCallEvents(
  responseId: string,
  item: { id: string; call_id: string; name: string; arguments: string },
): JsonObject[] {
  const at = { response_id: responseId, item_id: item.id, output_index: 0, call_id: item.call_id };
  return [
    {
      type: 'response.created',
      response: { id: responseId, object: 'realtime.response', status: 'in_progress', output: [] },
    },
    {
      type: 'response.output_item.added',
      response_id: responseId,
      output_index: 0,
      item: { ...item, status: 'in_progress', arguments: '' },
    },
    { type: 'response.function_call_arguments.delta', ...at, delta: item.arguments },
    { type: 'response.function_call_arguments.done', ...at, name: item.name, arguments: item.arguments },
    { type: 'response.output_item.done', response_id: responseId, output_index: 0, item },
    {
      type: 'response.done',
      response: {
        id: responseId,
        object: 'realtime.response',
        status: 'completed',
        output: [item],
        usage: { total_tokens: 30 },
      },
    },
  ];
}
