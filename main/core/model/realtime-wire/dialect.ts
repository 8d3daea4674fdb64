// What differs between services that speak the Realtime protocol (OpenAI Realtime GA, xAI's Voice
// Agent API): the shape of their session.update, the event after which a socket takes it, whether
// the service truncates an item at barge-in, takes images, and at which PCM rate it takes input.
// Everything else (events, items, tools, VAD, responses) is one protocol, spoken in session.ts.
import type { Patience } from '../../contracts/patience.ts';
import type { ToolDeclaration } from '../../ports.ts';

export type TurnDetectionMode = 'server_vad' | 'semantic_vad';

/** A session's settings, as the provider chose them, before a dialect shapes them. */
export interface RealtimeSessionInput {
  model: string;
  voice: string;
  instructions?: string;
  tools: readonly ToolDeclaration[];
  /** The service's detector when patience is a level (an explicit ms patience is always server_vad). */
  turnDetection: TurnDetectionMode;
  /** How long a pause may last before the service ends the turn (contracts/patience.ts). */
  patience: Patience;
  transcriptionModel: string;
  /** Names the input transcription should expect (wake names, the room's people). */
  vocabulary?: readonly string[];
  /** PCM rate of the input audio (the dialect's `inputRate`). */
  inputRate: number;
}

export interface RealtimeDialect {
  /** The service in log lines and failures ("OpenAI Realtime", "xAI"). */
  readonly label: string;
  /** Server events after which the socket takes our session.update (OpenAI: session.created; xAI: conversation.created). */
  readonly readyEvents: readonly string[];
  sessionUpdate(input: RealtimeSessionInput, eventId: string): object;
  /** Mid-session: a new patience, as a session.update carrying only the turn detection. */
  patienceUpdate(input: Pick<RealtimeSessionInput, 'turnDetection' | 'patience'>, eventId: string): object;
  /** Mid-session: only what changed (the service merges a session.update into the session). */
  contextUpdate(update: { systemInstruction?: string; tools?: readonly ToolDeclaration[] }, eventId: string): object;
  /** The service takes conversation.item.truncate (a barge-in cuts the item at what was played). */
  readonly truncates: boolean;
  /** The service takes input_image content. */
  readonly images: boolean;
  /** The PCM rate we send: 16000 goes as the voice gate hands it, 24000 is resampled. */
  readonly inputRate: 16_000 | 24_000;
}
