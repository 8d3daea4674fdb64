// The contract between the fake Gemini server and each connection it accepts: what the server lends
// a connection (hooks) and what a connection reports (events). Apart from connection.ts so that
// server.ts and the tests read the contract without the connection's protocol handling.
import type { FakeTiming } from '../shared/timing.ts';
import type { FakeGeminiStrictness } from './strictness.ts';
import type { JsonObject } from './types.ts';

/** `C`: the connection (connection.ts names it; generic here so the contract does not import it back). */
export interface GeminiConnectionHooks<C> {
  framing: 'binary' | 'text';
  /** The fake service's session store: called to mint handles and log history. */
  issueHandle(connection: C): string;
  recordHistory(connection: C, role: 'user' | 'model', text: string): void;
  /** Chunk length, pace and first-audio latency (the service's, shared/service-timing.ts). */
  timing: FakeTiming;
  /** RMS above which incoming audio during a reply counts as barge-in (null: never). */
  bargeInRms: number | null;
  strict: FakeGeminiStrictness;
  /** Told when the fake closes a socket for a protocol reason. */
  refused(connection: C, code: number, reason: string): void;
  /** User audio the session consumed (what it has heard, for lossless-handover checks). */
  consumedAudio(connection: C, samples: number): void;
  /** The model reports `interactionStatus` with every turnComplete (the extended-thinking model). */
  interactionStatus(connection: C): boolean;
  /** The model reports `voiceActivity` ACTIVITY_START / ACTIVITY_END (3.8, strictness.ts MODEL_RULES). */
  voiceActivity(connection: C): boolean;
}

/**
 * How a user turn ended on this socket: the service's own detection, the client's flush, or its
 * activityEnd. `quietSamples`: the trailing quiet the detector had counted when the turn ended (its
 * silence window when detected; 0 for activityEnd), so a bench can tell the service's own wait from
 * the time the audio took to reach it.
 */
export type UserTurnEnd = { by: 'detected' | 'audioStreamEnd' | 'activityEnd'; atSample: number; quietSamples: number };

export interface FakeConnectionEvents {
  message: [message: JsonObject];
  /** The user's turn ended (automatic detection, audioStreamEnd's flush, or activityEnd). */
  userTurnEnd: [end: UserTurnEnd];
  close: [code: number, reason: string];
}
