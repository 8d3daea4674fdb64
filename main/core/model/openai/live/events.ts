// The GPT-Live WebSocket wire format as this provider uses it (model `gpt-live-1.1`, primary
// WebSocket at `<base>/live/sessions`). Client events are typed by the official SDK's
// `ClientEvent` (openai@7.57.0 resources/live/live.d.ts), server events we read are zod-checked.
// Reference followed: openai@7.57.0 resources/live/live.d.ts (the generated API types) and
// developers.openai.com/api/docs/guides/voice-websockets ("Connect a server to GPT-Live").
import type { ClientEvent, SessionConfig } from 'openai/resources/live/live';
import { z } from 'zod';
import type { ToolDeclaration } from '../../../ports.ts';
import type { HistoryItem } from '../../realtime-wire/history.ts';

/** One format serves both directions; 24 kHz keeps model speech at the bridge's output rate. */
export const LIVE_AUDIO_RATE = 24_000;
/** `input` accepts at most 128 text messages (live.d.ts SessionConfig.input). */
export const MAX_INITIAL_ITEMS = 128;

export interface LiveSessionInput {
  model: string;
  voice: string;
  instructions?: string;
  tools: readonly ToolDeclaration[];
  /** Responses model that runs delegated tool work. */
  delegationModel: string;
  history: readonly HistoryItem[];
}

/** `session.start`: the first and only setup message; strict (unknown fields are rejected). */
export function buildSessionStart(input: LiveSessionInput, eventId: string): ClientEvent {
  const session: SessionConfig = {
    model: input.model,
    audio: { format: { type: 'audio/pcm', rate: LIVE_AUDIO_RATE }, output: { voice: input.voice } },
  };
  if (input.instructions) session.instructions = input.instructions;
  if (input.tools.length > 0) {
    session.delegation = {
      type: 'responses',
      responses: {
        model: input.delegationModel,
        tools: input.tools.map((tool) => ({
          type: 'function',
          name: tool.name,
          description: tool.description,
          parameters: tool.parameters,
        })),
        tool_choice: 'auto',
      },
    };
  }
  const initial = historyToInitialItems(input.history);
  if (initial.length > 0) session.input = initial;
  return { type: 'session.start', event_id: eventId, session };
}

/** Replayed context: text-only messages, one part each, newest 128 (tool work as assistant notes). */
function historyToInitialItems(history: readonly HistoryItem[]): NonNullable<SessionConfig['input']> {
  const items: NonNullable<SessionConfig['input']> = history.map((item) => {
    if (item.kind === 'user')
      return { type: 'message', role: 'user', content: [{ type: 'input_text', text: item.text }] };
    const text = item.kind === 'assistant' ? item.text : `(tool ${item.name} returned ${item.output})`;
    return { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] };
  });
  return items.slice(-MAX_INITIAL_ITEMS);
}

export function commentaryAppend(text: string): ClientEvent {
  return { type: 'session.commentary.append', content: text, delegation_id: null };
}

/**
 * Silent context (who is speaking now). GPT-Live has no conversation items: `session.thinking.append`
 * "does not directly request speech" (live.d.ts), where `session.commentary.append` is speakable.
 */
/** The most `session.instructions.append` takes in one event (the service's schema). */
export const INSTRUCTIONS_APPEND_MAX = 2000;

/** A persona change mid-session: GPT-Live appends to its instructions, it cannot replace them. */
export function personaAppend(instruction: string): ClientEvent | null {
  const content = `From now on, follow these instructions instead of the earlier ones:\n${instruction}`;
  return content.length <= INSTRUCTIONS_APPEND_MAX
    ? { type: 'session.instructions.append', content, delegation_id: null }
    : null;
}

export function thinkingAppend(text: string): ClientEvent {
  return { type: 'session.thinking.append', content: text, delegation_id: null };
}

export function functionCallOutput(callId: string, output: string): ClientEvent {
  return { type: 'response.item.create', item: { type: 'function_call_output', call_id: callId, output } };
}

export const RESPONSE_CREATE: ClientEvent = { type: 'response.create' };
export const SESSION_CLOSE: ClientEvent = { type: 'session.close' };

export function audioAppendJson(base64: string): string {
  return `{"type":"session.input_audio.append","audio":"${base64}"}`;
}

// --- server events we read -------------------------------------------------------------------

export const errorEvent = z.object({
  type: z.literal('error'),
  error: z.object({
    type: z.string(),
    code: z.string(),
    message: z.string(),
    param: z.string().nullish(),
    client_event_id: z.string().nullish(),
  }),
});
export const sessionStarted = z.object({
  type: z.literal('session.started'),
  session: z.object({ id: z.string(), model: z.string() }),
});
export const outputAudioDelta = z.object({ type: z.literal('session.output_audio.delta'), delta: z.string() });
export const transcriptDelta = z.object({
  type: z.enum(['session.output_transcript.delta', 'session.input_transcript.delta']),
  delta: z.string(),
});
export const usageUpdated = z.object({
  type: z.literal('session.usage.updated'),
  usage: z.object({ seconds: z.number().nonnegative() }),
});
export const sessionClosed = z.object({
  type: z.literal('session.closed'),
  reason: z.string(),
  usage: z.object({ seconds: z.number().nonnegative() }),
});
/** A nested Responses stream event carrying a finished function call. */
export const responseFunctionCall = z.object({
  type: z.literal('response.event'),
  delegation_id: z.string().nullish(),
  event: z.object({
    type: z.literal('response.output_item.done'),
    item: z.object({ type: z.literal('function_call'), call_id: z.string(), name: z.string(), arguments: z.string() }),
  }),
});
