// What a Realtime-protocol session is given (options, shared by the OpenAI Realtime and xAI
// providers) and what it counts. Apart from session.ts so that the providers' wiring reads the
// contract without the session's event handling.
import type { Patience } from '../../contracts/patience.ts';
import type { ToolDeclaration } from '../../ports.ts';
import type { FrameStats } from '../frame-limiter.ts';
import type { ModelSessionCoreOptions } from '../session-core/model-session.ts';
import type { RealtimeDialect } from './dialect.ts';
import type { TurnDetectionMode } from './events.ts';

export interface RealtimeSessionOptions extends ModelSessionCoreOptions {
  /** The service's dialect of the protocol (session shape, first event, truncation, images, input rate). */
  dialect: RealtimeDialect;
  /** e.g. wss://api.openai.com/v1 or ws://127.0.0.1:PORT/v1; `/realtime?model=` is appended. */
  baseUrl: string;
  apiKey: string;
  voice: string;
  turnDetection: TurnDetectionMode;
  /** How long a pause may last before the service ends the turn (the dialect maps it). */
  patience: Patience;
  transcriptionModel: string;
  systemInstruction?: string;
  tools: ToolDeclaration[];
  vocabulary?: readonly string[];
  /** Ms of the current reply the player has handed out (for truncation at barge-in). */
  playedMs?: () => number;
  /** How long the handshake (session.created → session.updated) may take. */
  handshakeTimeoutMs: number;
  /** How long to wait for the service to acknowledge an image item. */
  frameAckTimeoutMs: number;
}

export interface RealtimeSessionStats {
  connectionAttempts: number;
  reconnects: number;
  /** Items replayed into new sockets after drops (context that survived). */
  replayedItems: number;
  audioChunksDropped: number;
  serverErrors: number;
  truncations: number;
  cancels: number;
  totalTokens: number;
  textsDelivered: number;
  frames: FrameStats;
}

/** The session's own counters (stats adds the shared core's). */
export function newRealtimeCounters() {
  return {
    connectionAttempts: 0,
    replayedItems: 0,
    audioChunksDropped: 0,
    serverErrors: 0,
    truncations: 0,
    cancels: 0,
    totalTokens: 0,
  };
}
