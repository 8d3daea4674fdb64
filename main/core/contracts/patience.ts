// How long a speaker's pause may last before the service may take it as the end of their turn
// (issue #52). One setting for every provider: three named levels or an explicit number of
// milliseconds. Each provider maps it onto its own end-of-turn controls (main/core/providers/ and
// docs/audio.md "Patience"); the adaptive learner moves a speaker one step at a time along
// PATIENCE_STEPS_MS.

export const PATIENCE_LEVELS = ['quick', 'natural', 'patient'] as const;
export type PatienceLevel = (typeof PATIENCE_LEVELS)[number];

/** A named level, or the silence window itself in milliseconds. */
export type Patience = PatienceLevel | number;

export const DEFAULT_PATIENCE: PatienceLevel = 'natural';

/** The bounds of an explicit patience, in ms: under 200 every breath ends a turn, over 5000 nobody waits. */
export const PATIENCE_MIN_MS = 200;
export const PATIENCE_MAX_MS = 5000;

/**
 * The silence window of each level. `quick` is the 500 ms the voice gate used to end every turn
 * with (today's behaviour, kept for who wants it); `natural` keeps the pause corpus's mid-sentence
 * pauses up to 800 ms (test/fixtures/pause-corpus); `patient` keeps pauses up to 1.4 s.
 */
export const PATIENCE_SILENCE_MS: Readonly<Record<PatienceLevel, number>> = { quick: 500, natural: 800, patient: 1400 };

/** The windows the adaptive learner steps through, shortest first (bounded at both ends). */
export const PATIENCE_STEPS_MS: readonly number[] = [500, 800, 1100, 1400, 1800, 2200];

/**
 * The longest a service may wait on a pause at each level before it ends the turn by its own rule:
 * OpenAI Realtime's semantic_vad, which a level maps to (eagerness high / medium / low), has "max
 * timeouts of 8s, 4s, and 2s" (developers.openai.com guides/realtime-vad). The bridge's silence cap
 * is never shorter (audio/end-of-turn.ts turnCapFor), whichever provider the call uses.
 */
export const PATIENCE_SERVICE_MAX_WAIT_MS: Readonly<Record<PatienceLevel, number>> = {
  quick: 2000,
  natural: 4000,
  patient: 8000,
};

/** The silence window in ms a patience stands for. */
export function patienceSilenceMs(patience: Patience): number {
  return typeof patience === 'number' ? patience : PATIENCE_SILENCE_MS[patience];
}

/** True for a value the setting accepts (a level, or whole ms within the bounds). */
export function isPatience(value: unknown): value is Patience {
  if (typeof value === 'number') return Number.isInteger(value) && value >= PATIENCE_MIN_MS && value <= PATIENCE_MAX_MS;
  return typeof value === 'string' && (PATIENCE_LEVELS as readonly string[]).includes(value);
}

/** A patience as text carries it (an environment variable, a settings string, a CLI argument): a level or whole ms; null when it is neither. */
export function parsePatience(text: string): Patience | null {
  const value = text.trim().toLowerCase();
  const parsed = /^\d+$/.test(value) ? Number(value) : value;
  return isPatience(parsed) ? parsed : null;
}
