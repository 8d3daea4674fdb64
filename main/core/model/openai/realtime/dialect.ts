// OpenAI Realtime (GA) as a dialect of the Realtime protocol: `session.created` first, the session
// typed by the official SDK (`type: realtime`, voice and turn detection inside `audio`), truncation
// at barge-in, images, 24 kHz input only (realtime.ts:1355-1390).
import type { RealtimeClientEvent, RealtimeSessionCreateRequest } from 'openai/resources/realtime/realtime';
import type { RealtimeDialect, RealtimeSessionInput } from '../../realtime-wire/dialect.ts';
import { toolsOf } from '../../realtime-wire/events.ts';
import { REALTIME_AUDIO_RATE } from '../../realtime-wire/realtime-input.ts';

export function buildSessionUpdate(input: RealtimeSessionInput, eventId: string): RealtimeClientEvent {
  // interrupt_response false: the client cancels (response.cancel) and truncates at what was
  // actually played, in one place, instead of racing the server's own cancel.
  const turnDetection: NonNullable<NonNullable<RealtimeSessionCreateRequest['audio']>['input']>['turn_detection'] =
    input.turnDetection === 'semantic_vad'
      ? { type: 'semantic_vad', eagerness: 'auto', create_response: true, interrupt_response: false }
      : { type: 'server_vad', silence_duration_ms: input.silenceDurationMs, prefix_padding_ms: 300, create_response: true, interrupt_response: false };
  const session: RealtimeSessionCreateRequest = {
    type: 'realtime',
    model: input.model,
    output_modalities: ['audio'],
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: REALTIME_AUDIO_RATE },
        turn_detection: turnDetection,
        // The transcription model's prompt is its documented bias ("a free text string").
        transcription: { model: input.transcriptionModel, ...(input.vocabulary?.length ? { prompt: `Names that may be said: ${input.vocabulary.join(', ')}.` } : {}) },
      },
      output: { format: { type: 'audio/pcm', rate: REALTIME_AUDIO_RATE }, voice: input.voice },
    },
    tools: toolsOf(input.tools),
    tool_choice: 'auto',
  };
  if (input.instructions) session.instructions = input.instructions;
  return { type: 'session.update', event_id: eventId, session };
}

export function buildContextUpdate(update: Parameters<RealtimeDialect['contextUpdate']>[0], eventId: string): RealtimeClientEvent {
  const session: RealtimeSessionCreateRequest = { type: 'realtime' };
  if (update.systemInstruction !== undefined) session.instructions = update.systemInstruction;
  if (update.tools) session.tools = toolsOf(update.tools);
  return { type: 'session.update', event_id: eventId, session };
}

export const OPENAI_REALTIME_DIALECT: RealtimeDialect = {
  label: 'OpenAI Realtime',
  readyEvents: ['session.created'],
  sessionUpdate: buildSessionUpdate,
  contextUpdate: buildContextUpdate,
  truncates: true,
  images: true,
  inputRate: 24_000,
};
