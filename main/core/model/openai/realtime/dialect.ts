// OpenAI Realtime (GA) as a dialect of the Realtime protocol: `session.created` first, the session
// typed by the official SDK (`type: realtime`, voice and turn detection inside `audio`), truncation
// at barge-in, images, 24 kHz input only (realtime.ts:1355-1390).
import type { RealtimeClientEvent, RealtimeSessionCreateRequest } from 'openai/resources/realtime/realtime';
import { PATIENCE_SILENCE_MS, type Patience, type PatienceLevel } from '../../../contracts/patience.ts';
import type { RealtimeDialect, RealtimeSessionInput } from '../../realtime-wire/dialect.ts';
import { toolsOf } from '../../realtime-wire/events.ts';
import { REALTIME_AUDIO_RATE } from '../../realtime-wire/realtime-input.ts';

type TurnDetection = NonNullable<
  NonNullable<NonNullable<RealtimeSessionCreateRequest['audio']>['input']>['turn_detection']
>;

/**
 * semantic_vad's eagerness per level: "low" waits longest (max timeout 8 s), "high" ends soonest
 * (2 s); "medium" (= auto) 4 s (developers.openai.com guides/realtime-vad; research/field-2026-12.md §1d).
 */
const EAGERNESS: Readonly<Record<PatienceLevel, 'high' | 'medium' | 'low'>> = {
  quick: 'high',
  natural: 'medium',
  patient: 'low',
};

/**
 * The service's turn detection for a patience: semantic_vad (content-aware) for a level, unless
 * server_vad is chosen (OPENAI_REALTIME_TURN_DETECTION), then the level's silence window; an
 * explicit number of ms is always server_vad with that silence_duration_ms. interrupt_response
 * false: the client cancels (response.cancel) and truncates at what was actually played, in one
 * place, instead of racing the server's own cancel.
 */
export function openAITurnDetection(patience: Patience, mode: RealtimeSessionInput['turnDetection']): TurnDetection {
  if (typeof patience === 'string' && mode === 'semantic_vad')
    return { type: 'semantic_vad', eagerness: EAGERNESS[patience], create_response: true, interrupt_response: false };
  const silenceMs = typeof patience === 'number' ? patience : PATIENCE_SILENCE_MS[patience];
  return {
    type: 'server_vad',
    silence_duration_ms: silenceMs,
    prefix_padding_ms: 300,
    create_response: true,
    interrupt_response: false,
  };
}

export function buildSessionUpdate(input: RealtimeSessionInput, eventId: string): RealtimeClientEvent {
  const turnDetection = openAITurnDetection(input.patience, input.turnDetection);
  const session: RealtimeSessionCreateRequest = {
    type: 'realtime',
    model: input.model,
    output_modalities: ['audio'],
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: REALTIME_AUDIO_RATE },
        turn_detection: turnDetection,
        // The transcription model's prompt is its documented bias ("a free text string").
        transcription: {
          model: input.transcriptionModel,
          ...(input.vocabulary?.length ? { prompt: `Names that may be said: ${input.vocabulary.join(', ')}.` } : {}),
        },
      },
      output: { format: { type: 'audio/pcm', rate: REALTIME_AUDIO_RATE }, voice: input.voice },
    },
    tools: toolsOf(input.tools),
    tool_choice: 'auto',
  };
  if (input.instructions) session.instructions = input.instructions;
  return { type: 'session.update', event_id: eventId, session };
}

export function buildContextUpdate(
  update: Parameters<RealtimeDialect['contextUpdate']>[0],
  eventId: string,
): RealtimeClientEvent {
  const session: RealtimeSessionCreateRequest = { type: 'realtime' };
  if (update.systemInstruction !== undefined) session.instructions = update.systemInstruction;
  if (update.tools) session.tools = toolsOf(update.tools);
  return { type: 'session.update', event_id: eventId, session };
}

/** A new patience mid-session: only the turn detection (the service merges the rest). */
export function buildPatienceUpdate(
  input: Pick<RealtimeSessionInput, 'turnDetection' | 'patience'>,
  eventId: string,
): RealtimeClientEvent {
  const session: RealtimeSessionCreateRequest = {
    type: 'realtime',
    audio: { input: { turn_detection: openAITurnDetection(input.patience, input.turnDetection) } },
  };
  return { type: 'session.update', event_id: eventId, session };
}

export const OPENAI_REALTIME_DIALECT: RealtimeDialect = {
  label: 'OpenAI Realtime',
  readyEvents: ['session.created'],
  sessionUpdate: buildSessionUpdate,
  patienceUpdate: buildPatienceUpdate,
  contextUpdate: buildContextUpdate,
  truncates: true,
  images: true,
  inputRate: 24_000,
};
