// The options and counters of a Gemini session (session.ts), kept apart so the session file holds
// only behaviour.
import type { Patience } from '../../contracts/patience.ts';
import type { Logger } from 'pino';
import type { ConversationSeed, ToolCallResult, ToolDeclaration } from '../../ports.ts';
import type { TimerClock } from '../../contracts/clock.ts';
import type { BackoffOptions } from '../session-core/fallback.ts';
import type { FrameStats } from '../frame-limiter.ts';
import type { GeminiConnection, LiveClient } from './connection.ts';

export type { BackoffOptions } from '../session-core/fallback.ts';

export interface GeminiSessionOptions {
  client: LiveClient;
  /** Primary model first, then fallbacks in order. */
  models: readonly string[];
  voice: string;
  systemInstruction?: string;
  tools: ToolDeclaration[];
  logger: Logger;
  clock: TimerClock;
  scrub: (text: string) => string;
  backoff: BackoffOptions;
  formatInjectedText: (text: string) => string;
  /** Force the goAway switch-over this long before the announced close, whatever is going on. */
  switchMarginMs: number;
  /** How long a replaced connection may still deliver the tail of its output before we close it. */
  drainMs: number;
  replyWaitMs?: number;
  /** No server message for this long while the model's turn is open: the socket has stalled. */
  stallMs: number;
  /** User audio held while no socket is ready, at most (oldest gives way). */
  holdAudioMs: number;
  /** A socket that dies sooner than this after setup makes the next reconnect back off. */
  stableMs: number;
  /**
   * After a resume with kept tool results, how long to wait (while the model is idle) for it to ask
   * the call again before the result is given to it as text. Default 1500.
   */
  reaskWaitMs?: number;
  /**
   * Renew the session (a fresh one, seeded with the call so far) at the first idle point this long
   * after it began, before the service's hard session deadline (58:00 on 3.8, discuss thread
   * 186392). Default 55 min; null: never.
   */
  sessionRenewAfterMs?: number | null;
  /** Sent user audio kept until the service confirms it consumed it (transparent resumption). Default 30 s. */
  replayTailMs?: number;
  /** Ask for transparent resumption (default true; dropped for the call if a setup with it is refused). */
  transparentResumption?: boolean;
  /** The first session continues a call (seeded like a fresh session after a refused resume). */
  seed?: ConversationSeed;
  /** What is still pending in the call (reminders), for a fresh session's seed. */
  pendingContext?: () => string | undefined;
  /** Input transcription bias (`customVocabulary`): wake names, speakers' names. */
  vocabulary?: readonly string[];
  /** Turn patience for the setup's automatic activity detection (setup.ts activityDetectionFor). */
  patience?: Patience;
  /** The first socket resumes this handle (a parked call woken); refused → a fresh session at once. */
  resumeHandle?: string;
}

/** A tool result whose call the resumed session may not know: given to the same call asked again, or as text. */
export interface KeptResult {
  result: ToolCallResult;
  /** kept: waiting for a re-ask; queued: text waiting to be delivered; injected: delivered on `on`. */
  state: 'kept' | 'queued' | 'injected';
  on: GeminiConnection | null;
}

export interface GeminiSessionStats {
  /** Every WebSocket this session tried to open (initial, fallbacks, switch-overs, reconnects). */
  connectionAttempts: number;
  /** Connections that completed setup with a resumption handle. */
  resumed: number;
  reconnects: number;
  switchOvers: number;
  audioChunksDropped: number;
  /** Chunks held while no socket was ready (replayed after the resume). */
  audioChunksHeld: number;
  /** Overlapped resumes the service refused (then: close-then-resume). */
  overlapsRefused: number;
  stalls: number;
  malformedMessages: number;
  /** Tool results given to a call asked again after a resume instead of running the tool twice. */
  toolResultsReplayed: number;
  textsDelivered: number;
  textsQueued: number;
  frames: FrameStats;
  /** Session deadline closes met (1011 "Deadline expired" without a goAway). */
  deadlines: number;
  /** Fresh sessions opened mid-call (refused resume, renewal), each seeded with the call so far. */
  freshSessions: number;
  /** Renewals before the session deadline, at an idle point. */
  renewals: number;
  /** User audio sent again after a transparent resume (what the service had not consumed). */
  replayedMs: number;
  /** Malformed or wrong-shaped server messages dropped. */
  wrongShapeMessages: number;
}

/** The counters a session keeps itself (the rest of its stats come from its parts). */
export function newSessionCounters() {
  return {
    connectionAttempts: 0,
    resumed: 0,
    switchOvers: 0,
    audioChunksDropped: 0,
    overlapsRefused: 0,
    stalls: 0,
    malformedMessages: 0,
    toolResultsReplayed: 0,
    deadlines: 0,
    freshSessions: 0,
    renewals: 0,
    wrongShapeMessages: 0,
  };
}
