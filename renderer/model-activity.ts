// The model's state at a glance (listening / thinking / speaking), read from the `levels` events
// the core already sends at 10 Hz while audio flows: the model speaks while the output meter moves;
// someone in the room speaks → it listens; the room fell quiet after someone spoke and the model has
// not answered yet → it is thinking (for at most THINKING_MS, then it is listening again).
// Pure (no DOM, the clock passed in), unit-tested in Node.
import type { LevelReading } from '../main/core/api-types.ts';

export type ModelActivity = 'listening' | 'thinking' | 'speaking';

/** How long a quiet room after speech counts as "thinking" before the model is just listening again. */
export const THINKING_MS = 10_000;

export interface ActivityTracker {
  activity: ModelActivity;
  /** A person spoke since the model last did (so a quiet room means the model is working on an answer). */
  heardSpeech: boolean;
  /** When "thinking" began (ms), or null. */
  quietSinceMs: number | null;
}

export const INITIAL_ACTIVITY: ActivityTracker = { activity: 'listening', heardSpeech: false, quietSinceMs: null };

/** The next state from one `levels` event. */
export function nextActivity(
  prev: ActivityTracker,
  levels: { output: LevelReading; speaking: readonly string[] },
  nowMs: number,
): ActivityTracker {
  if (levels.output.peak > 0) return { activity: 'speaking', heardSpeech: false, quietSinceMs: null };
  if (levels.speaking.length > 0) return { activity: 'listening', heardSpeech: true, quietSinceMs: null };
  if (prev.heardSpeech && prev.activity === 'listening')
    return { activity: 'thinking', heardSpeech: false, quietSinceMs: nowMs };
  return settle(prev, nowMs);
}

/** A tracker with no new event: "thinking" runs out after THINKING_MS; a quiet output ends "speaking". */
export function settle(prev: ActivityTracker, nowMs: number): ActivityTracker {
  if (prev.activity === 'thinking' && prev.quietSinceMs !== null && nowMs - prev.quietSinceMs < THINKING_MS)
    return prev;
  if (prev.activity === 'listening') return prev;
  return INITIAL_ACTIVITY;
}

export const ACTIVITY_WORDS: Record<ModelActivity, string> = {
  listening: 'listening',
  thinking: 'thinking…',
  speaking: 'speaking',
};
