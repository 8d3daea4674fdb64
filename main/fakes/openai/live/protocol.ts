// What the fake GPT-Live service accepts from a client, as zod schemas (openai@7.57.0
// resources/live/live.d.ts, the voice-websockets guide): strict objects, so an unknown field is
// refused with its path (`unknown_parameter`), PCM at 16000 or 24000 Hz only, `input` at most 128
// text messages of one part each, base64 audio.
import { z } from 'zod';
import { BASE64_RE } from '../realtime/protocol.ts';

export const KNOWN_GPT_LIVE_MODELS = ['gpt-live-1.1', 'gpt-live-1'] as const;
const BUILT_IN_VOICES = [
  'alloy',
  'ash',
  'ballad',
  'beacon',
  'bossa',
  'cedar',
  'cinder',
  'coral',
  'delta',
  'echo',
  'gleam',
  'marin',
  'meridian',
  'quartz',
  'ripple',
  'sage',
  'shida',
  'shimmer',
  'stone',
  'tempo',
  'verse',
  'vesper',
  'willow',
] as const;

const textPart = z
  .object({ type: z.enum(['input_text', 'output_text', 'text']).optional(), text: z.string() })
  .strict();
const sessionSchema = z
  .object({
    model: z.string().min(1),
    instructions: z.string().nullish(),
    audio: z
      .object({
        format: z
          .union([
            z.object({ type: z.literal('audio/pcm'), rate: z.union([z.literal(16000), z.literal(24000)]) }).strict(),
            z.object({ type: z.enum(['audio/pcmu', 'audio/pcma']), rate: z.literal(8000) }).strict(),
          ])
          .optional(),
        output: z
          .object({ voice: z.union([z.enum(BUILT_IN_VOICES), z.object({ id: z.string() }).strict()]).optional() })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
    delegation: z
      .union([
        z.object({ type: z.literal('client'), acknowledgement_delay_ms: z.number().int().min(0).optional() }).strict(),
        z
          .object({
            type: z.literal('responses'),
            acknowledgement_delay_ms: z.number().int().min(0).optional(),
            responses: z
              .object({
                model: z.string().min(1),
                instructions: z.string().nullish(),
                max_output_tokens: z.number().int().nullish(),
                parallel_tool_calls: z.boolean().nullish(),
                tool_choice: z
                  .union([z.enum(['auto', 'none', 'required']), z.record(z.string(), z.unknown())])
                  .optional(),
                tools: z
                  .array(
                    z.union([
                      z
                        .object({
                          type: z.literal('function'),
                          name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
                          description: z.string().nullish(),
                          parameters: z.record(z.string(), z.unknown()).nullish(),
                          strict: z.boolean().nullish(),
                        })
                        .strict(),
                      z.object({ type: z.literal('web_search') }).passthrough(),
                    ]),
                  )
                  .optional(),
              })
              .strict(),
          })
          .strict(),
      ])
      .nullish(),
    input: z
      .array(
        z
          .object({
            type: z.literal('message').optional(),
            role: z.enum(['developer', 'user', 'assistant']),
            id: z.string().nullish(),
            status: z.string().nullish(),
            content: z.array(textPart).length(1),
          })
          .strict(),
      )
      .max(128)
      .optional(),
    store: z.boolean().optional(),
  })
  .strict();
export type LiveSessionConfig = z.infer<typeof sessionSchema>;

const eventId = z.string().nullish();
export const clientSchemas: Record<string, z.ZodType> = {
  'session.start': z.object({ type: z.literal('session.start'), event_id: eventId, session: sessionSchema }).strict(),
  'session.update': z
    .object({ type: z.literal('session.update'), event_id: eventId, session: z.record(z.string(), z.unknown()) })
    .strict(),
  'session.input_audio.append': z
    .object({
      type: z.literal('session.input_audio.append'),
      event_id: eventId,
      audio: z.string().regex(BASE64_RE, 'expected base64-encoded audio'),
    })
    .strict(),
  'session.input_audio.mute': z.object({ type: z.literal('session.input_audio.mute'), event_id: eventId }).strict(),
  'session.input_audio.unmute': z.object({ type: z.literal('session.input_audio.unmute'), event_id: eventId }).strict(),
  'session.instructions.append': z
    .object({
      type: z.literal('session.instructions.append'),
      event_id: eventId,
      content: z.string().min(1).max(2000),
      delegation_id: z.string().nullable(),
    })
    .strict(),
  'session.thinking.append': z
    .object({
      type: z.literal('session.thinking.append'),
      event_id: eventId,
      content: z.string().min(1).max(2000),
      delegation_id: z.string().nullable(),
    })
    .strict(),
  'session.commentary.append': z
    .object({
      type: z.literal('session.commentary.append'),
      event_id: eventId,
      content: z.string().min(1).max(2000),
      delegation_id: z.string().nullable(),
    })
    .strict(),
  'response.item.create': z
    .object({ type: z.literal('response.item.create'), event_id: eventId, item: z.record(z.string(), z.unknown()) })
    .strict(),
  'response.create': z.object({ type: z.literal('response.create'), event_id: eventId }).strict(),
  'session.close': z.object({ type: z.literal('session.close'), event_id: eventId }).strict(),
};
