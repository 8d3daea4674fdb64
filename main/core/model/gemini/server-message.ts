// The shape of every server message the session reads, checked before the SDK or the session sees
// it. JSON that parses but has the wrong shape (a `parts` that is not a list, a null part, audio
// data that is not a string, a tool call without a list of calls) used to throw inside the
// session's handler, caught only by the process's last-resort handler; now it is dropped and counted
// as one fault, like a frame that is not JSON. Objects stay loose: fields we do not read pass.
import { z } from 'zod';

const text = z.looseObject({ text: z.string().optional() });
const part = z.looseObject({
  inlineData: z.looseObject({ data: z.string().optional(), mimeType: z.string().optional() }).optional(),
});

const serverContent = z.looseObject({
  modelTurn: z.looseObject({ parts: z.array(part).optional() }).optional(),
  inputTranscription: text.optional(),
  outputTranscription: text.optional(),
  interrupted: z.boolean().optional(),
  generationComplete: z.boolean().optional(),
  turnComplete: z.boolean().optional(),
  interactionStatus: z.string().optional(),
});

const functionCall = z.looseObject({
  id: z.string().optional(),
  name: z.string().optional(),
  args: z.record(z.string(), z.unknown()).optional(),
});

export const serverMessageSchema = z.looseObject({
  serverContent: serverContent.optional(),
  toolCall: z.looseObject({ functionCalls: z.array(functionCall).optional() }).optional(),
  toolCallCancellation: z.looseObject({ ids: z.array(z.string()).optional() }).optional(),
  sessionResumptionUpdate: z
    .looseObject({
      newHandle: z.string().optional(),
      resumable: z.boolean().optional(),
      lastConsumedClientMessageIndex: z.union([z.string(), z.number()]).optional(),
    })
    .optional(),
  goAway: z.looseObject({ timeLeft: z.string().optional() }).optional(),
  usageMetadata: z.looseObject({}).optional(),
  // The service's activity detection (3.8: "to drive a voice activity indicator, or to handle … barge-in").
  voiceActivity: z.looseObject({ voiceActivityType: z.string().optional() }).optional(),
});

/** Null when the message has a shape the session can read; otherwise where it is wrong. */
export function serverMessageProblem(message: unknown): string | null {
  const parsed = serverMessageSchema.safeParse(message);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0];
  return `wrong shape at ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`;
}
