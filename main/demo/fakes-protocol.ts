// Messages between the demo (the core's process) and its fakes child process over Node's IPC channel,
// validated on arrival like any other external input.
import { z } from 'zod';
import { PERSON_KEYS } from './demo-script.ts';

export const FakeServicesInfoSchema = z.object({
  discordApiBaseUrl: z.string().url(),
  botToken: z.string().min(1),
  ownerId: z.string().regex(/^\d{17,20}$/),
  textChannelId: z.string().regex(/^\d{17,20}$/),
  geminiUrl: z.string().url(),
  geminiModel: z.string().min(1),
  openaiUrl: z.string().url(),
  openaiModel: z.string().min(1),
  openaiLiveUrl: z.string().url(),
  openaiLiveModel: z.string().min(1),
  xaiUrl: z.string().url(),
  xaiModel: z.string().min(1),
  caPath: z.string().min(1),
  people: z.array(z.object({ key: z.enum(PERSON_KEYS), id: z.string().regex(/^\d{17,20}$/), name: z.string().min(1) })),
});

export const FromFakesSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), info: FakeServicesInfoSchema }),
  /** A request done; `answer`: what the bot answered a slash command. */
  z.object({ type: z.literal('spoken'), id: z.number().int(), answer: z.string().optional() }),
  z.object({ type: z.literal('failed'), id: z.number().int().optional(), message: z.string() }),
]);
export type FromFakes = z.infer<typeof FromFakesSchema>;

/** What a simulated person does in the fake Discord (`slash`: types a slash command, and waits for the bot's answer). */
export const ToFakesSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('speak'), id: z.number().int(), seconds: z.number().positive().max(30) }),
  z.object({
    type: z.literal('say'),
    id: z.number().int(),
    who: z.enum(PERSON_KEYS),
    text: z.string().min(1).max(300),
  }),
  z.object({ type: z.literal('join'), id: z.number().int(), who: z.enum(PERSON_KEYS) }),
  z.object({
    type: z.literal('slash'),
    id: z.number().int(),
    who: z.enum(PERSON_KEYS),
    command: z.enum(['optout', 'optin']),
  }),
  z.object({ type: z.literal('close') }),
]);
export type ToFakes = z.infer<typeof ToFakesSchema>;
