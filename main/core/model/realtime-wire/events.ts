// The Realtime wire format (OpenAI's GA event set; xAI's Voice Agent API speaks the same events with
// its own session shape, see dialect.ts): builders for the client events we send (typed by the
// official SDK's `RealtimeClientEvent`, so a wrong field fails the typecheck), and zod schemas for
// the server events we read (a malformed event is skipped, never trusted).
// Reference: developers.openai.com/api/reference/resources/realtime (client-events, server-events)
// as mirrored by openai@7.57.0 src/resources/realtime/realtime.ts; research/protocols.md §2.
import type { RealtimeClientEvent } from 'openai/resources/realtime/realtime';
import { z } from 'zod';
import type { ToolDeclaration } from '../../ports.ts';
import type { HistoryItem } from './history.ts';

export { audioAppendJson, errorEvent, REALTIME_AUDIO_RATE } from './realtime-input.ts';

export type { RealtimeSessionInput, TurnDetectionMode } from './dialect.ts';

/** Function tools as the Realtime protocol declares them (flat: type, name, description, parameters). */
export const toolsOf = (tools: readonly ToolDeclaration[]) =>
  tools.map((tool) => ({
    type: 'function' as const,
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
  }));

/** One history item as conversation items (context replay after a reconnect). */
export function historyToItems(item: HistoryItem): RealtimeClientEvent[] {
  if (item.kind === 'tool') {
    return [
      {
        type: 'conversation.item.create',
        item: { type: 'function_call', call_id: item.callId, name: item.name, arguments: item.arguments },
      },
      {
        type: 'conversation.item.create',
        item: { type: 'function_call_output', call_id: item.callId, output: item.output },
      },
    ];
  }
  if (item.kind === 'assistant') {
    return [
      {
        type: 'conversation.item.create',
        item: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: item.text }] },
      },
    ];
  }
  return [
    {
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: item.text }] },
    },
  ];
}

export function userTextItem(text: string): RealtimeClientEvent {
  return {
    type: 'conversation.item.create',
    item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
  };
}

/**
 * Context the model reads but nobody said (who is speaking now): a `system` message item. Not a
 * `user` item, which the model would take as the speaker's own words (and answer at the next
 * response); sent with no `response.create`, so it neither starts nor cancels a reply.
 */
export function contextItem(text: string): RealtimeClientEvent {
  return {
    type: 'conversation.item.create',
    item: { type: 'message', role: 'system', content: [{ type: 'input_text', text }] },
  };
}

export function imageItem(jpeg: Buffer, itemId: string, eventId: string): RealtimeClientEvent {
  return {
    type: 'conversation.item.create',
    event_id: eventId,
    item: {
      id: itemId,
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_image', image_url: `data:image/jpeg;base64,${jpeg.toString('base64')}`, detail: 'auto' },
      ],
    },
  };
}

export function toolOutputItem(callId: string, output: string): RealtimeClientEvent {
  return { type: 'conversation.item.create', item: { type: 'function_call_output', call_id: callId, output } };
}

export const RESPONSE_CREATE: RealtimeClientEvent = { type: 'response.create' };
export const RESPONSE_CANCEL: RealtimeClientEvent = { type: 'response.cancel' };

export function truncateEvent(itemId: string, audioEndMs: number): RealtimeClientEvent {
  return { type: 'conversation.item.truncate', item_id: itemId, content_index: 0, audio_end_ms: audioEndMs };
}

// --- server events we read -------------------------------------------------------------------

export const audioDelta = z.object({
  type: z.literal('response.output_audio.delta'),
  response_id: z.string(),
  item_id: z.string(),
  delta: z.string(),
});
export const transcriptDelta = z.object({
  type: z.literal('response.output_audio_transcript.delta'),
  item_id: z.string(),
  delta: z.string(),
});
export const transcriptDone = z.object({
  type: z.literal('response.output_audio_transcript.done'),
  item_id: z.string(),
  transcript: z.string(),
});
export const inputTranscriptionCompleted = z.object({
  type: z.literal('conversation.item.input_audio_transcription.completed'),
  item_id: z.string(),
  transcript: z.string(),
  /** xAI streams partial transcripts through this event with `in_progress` (livekit-plugins-xai realtime_model.py); OpenAI sends only the final one. */
  status: z.string().optional(),
});
export const responseCreated = z.object({
  type: z.literal('response.created'),
  response: z.object({ id: z.string() }),
});
export const responseDone = z.object({
  type: z.literal('response.done'),
  response: z.object({
    id: z.string(),
    status: z.string(),
    usage: z
      .object({
        total_tokens: z.number().optional(),
        input_tokens: z.number().optional(),
        output_tokens: z.number().optional(),
        input_token_details: z
          .object({
            text_tokens: z.number().min(0).optional(),
            audio_tokens: z.number().min(0).optional(),
            image_tokens: z.number().min(0).optional(),
          })
          .nullish(),
        output_token_details: z
          .object({ text_tokens: z.number().min(0).optional(), audio_tokens: z.number().min(0).optional() })
          .nullish(),
      })
      .nullish(),
  }),
});
export const functionCallDone = z.object({
  type: z.literal('response.function_call_arguments.done'),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
});
export const itemAck = z.object({
  type: z.enum(['conversation.item.added', 'conversation.item.created', 'conversation.item.done']),
  item: z.object({ id: z.string() }),
});
