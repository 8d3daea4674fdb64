// What the sidecar routes, the notifier and the shells may ask of the bridge (one call at a time).
import type { CallTurnOptions } from './call-turn.ts';
import type {
  BridgeState,
  ConnectionState,
  DaveStatus,
  LevelReading,
  RoomView,
  SayOutcome,
  SayVerb,
} from '../api-types.ts';
import type { FrameSendResult, VoiceTarget } from '../ports.ts';
import { Refusal } from '../contracts/refusal.ts';
import { CodedError } from '../contracts/coded-error.ts';

export type BridgeErrorCode =
  'already_active' | 'no_call' | 'not_configured' | 'join_failed' | 'model_failed' | 'cancelled' | 'daily_cap_reached';

/** A refusal the caller can act on (mapped to 409/503 by the routes), not a crash. */
export class BridgeError extends CodedError<BridgeErrorCode> {}

export type VoiceTargetErrorCode =
  'guild_not_found' | 'channel_not_found' | 'not_a_voice_channel' | 'owner_not_in_voice';

const TARGET_STATUS: Record<VoiceTargetErrorCode, 400 | 404 | 409> = {
  guild_not_found: 404,
  channel_not_found: 404,
  not_a_voice_channel: 400,
  owner_not_in_voice: 409,
};

/**
 * The join target is wrong (a client's mistake, not a failed call): no such guild for the bot, no
 * such channel in it, a channel that is not voice-based, or, with no target given, an owner who is
 * in no voice channel to follow (409: the state, not the request, is wrong; joining one fixes it). The voice port throws it before it
 * connects; the bridge passes it on unwrapped and /join answers `status` with `code`.
 */
export class VoiceTargetError extends Refusal<VoiceTargetErrorCode> {
  constructor(code: VoiceTargetErrorCode, message: string) {
    super(code, message, TARGET_STATUS[code]);
  }
}

export interface BridgeStatus {
  state: BridgeState;
  reason?: string;
  callId?: string;
  /** Epoch seconds of the last transition. */
  since: number;
  target?: VoiceTarget;
  connections: { discord: ConnectionState; model: ConnectionState };
  opus: string | null;
  /** Discord E2EE (DAVE) state; null when not in a call or the port has no E2EE. */
  dave?: DaveStatus | null;
  levels: { input: LevelReading; output: LevelReading };
  speaking: string[];
}

/** The two things a client can hand the model: words it speaks verbatim, or a message it answers. */
export type SpokenVerb = 'announce' | 'message';

export interface StopOptions {
  /** Give what waits to be spoken up to LEAVE_GRACE_MS before leaving (a Leave; not a shutdown or the owner leaving). */
  finishSpeaking?: boolean;
}

export interface BridgeControl {
  status(): BridgeStatus;
  /**
   * Start a call; resolves once connected. BridgeError('already_active') when a call is live,
   * VoiceTargetError when the target is no voice channel of a guild the bot is in.
   */
  start(target?: VoiceTarget, call?: CallTurnOptions): Promise<BridgeStatus>;
  /**
   * End the call; idempotent (returns the status after stopping, or the idle status).
   * `finishSpeaking` (a Leave): what was asked to be said gets up to LEAVE_GRACE_MS to be spoken first.
   */
  stop(reason?: string, options?: StopOptions): Promise<{ stopped: boolean; status: BridgeStatus }>;
  /**
   * Queue text for the model's next turn: `announce` (default) it speaks verbatim, `message` it
   * answers; `route` names the request in its outcome. Returns the outcome's id (sayOutcome).
   * BridgeError('no_call') without a live call.
   */
  say(text: string, source?: string, verb?: SpokenVerb, route?: SayVerb): string;
  /** What became of a request to speak (GET /say/{id}); undefined for an unknown or forgotten id. */
  sayOutcome?(id: string): SayOutcome | undefined;
  sendFrame(image: Buffer): Promise<FrameSendResult>;
  metrics(): Record<string, unknown>;
  /** Who is in the call's room (absent where there is no voice platform). */
  room?(): RoomView;
  /** "Stop talking": cut the model's current reply (POST /interrupt); false outside a call. */
  interruptReply?(): { interrupted: boolean; played_ms: number };
}
