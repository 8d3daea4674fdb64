// The adaptive run of issue #52's evidence: one speaker who pauses 1.2 s mid-sentence, every turn,
// against a service whose rule is a silence window (the turn ends once the pause reaches the window
// the bridge set with setPatience; Gemini's `silenceDurationMs` and OpenAI's `server_vad`
// `silence_duration_ms` are this rule). The learner (main/core/bridge/patience-learner.ts) sees what
// the bridge would: the speaker's speech starts and ends, and each reply's first audio. Counted:
// turns the service ended in the pause (the reply's first audio came before the speaker resumed),
// while learning (until a turn is not cut) and over the next `afterTurns` turns.
// Pure and on a ManualClock: the same numbers on every run.
import { ManualClock } from '../../main/core/contracts/clock.ts';
import { PATIENCE_SILENCE_MS } from '../../main/core/contracts/patience.ts';
import { MapPatienceMemory, PatienceLearner } from '../../main/core/bridge/patience-learner.ts';

export interface AdaptivePatienceResult {
  /** Turns cut in the pause before the window outlasted it (target ≤ 2). */
  adaptiveCutoffsLearning: number;
  /** Turns cut over the AFTER_TURNS turns after that (target 0). */
  adaptiveCutoffsAfter: number;
}

export interface AdaptivePatienceOptions {
  /** The mid-sentence pause (ms); the 1200. */
  pauseMs?: number;
  /** The call's patience (ms); natural by default. */
  baseMs?: number;
  /** The service's delay from its turn end to the reply's first audio (ms); 0, the worst case, by default. */
  replyDelayMs?: number;
  /** Turns counted after learning; the 20. */
  afterTurns?: number;
  /** Turns allowed for learning before the run gives up (a learner that never learns). */
  maxLearningTurns?: number;
}

const SPEAKER = 'speaker-1';
/** Each half of the sentence, and the speaker's wait for the reply at its end. */
const SPEECH_MS = 1500;
const END_WAIT_MS = 4000;

/**
 * One turn: speech, the mid-sentence pause, speech, the end. True when the service cut the pause
 * audibly: its reply's first audio played before the speaker resumed. (A turn the service ended
 * whose reply would start only after they resumed is never heard: the service hears them and drops it.)
 */
function runTurn(clock: ManualClock, learner: PatienceLearner, pauseMs: number, replyDelayMs: number): boolean {
  learner.speechStarted(SPEAKER);
  clock.advance(SPEECH_MS);
  learner.speechEnded(SPEAKER);
  const replyAt = learner.effectiveMs() + replyDelayMs;
  const cut = replyAt < pauseMs;
  if (cut) {
    clock.advance(replyAt);
    learner.replyStarted();
    clock.advance(pauseMs - replyAt);
  } else {
    clock.advance(pauseMs);
  }
  learner.speechStarted(SPEAKER);
  clock.advance(SPEECH_MS);
  learner.speechEnded(SPEAKER);
  // The real end of the turn: the service waits out the window, then replies; nobody resumes.
  clock.advance(learner.effectiveMs() + replyDelayMs);
  learner.replyStarted();
  clock.advance(END_WAIT_MS);
  return cut;
}

/**
 * Learning lasts until the first turn the service does not cut; the AFTER_TURNS counted after it
 * start with that turn.
 */
export function simulateAdaptivePatience(options: AdaptivePatienceOptions = {}): AdaptivePatienceResult {
  const pauseMs = options.pauseMs ?? 1200;
  const replyDelayMs = options.replyDelayMs ?? 0;
  const clock = new ManualClock(1_000_000);
  const learner = new PatienceLearner({
    clock,
    baseMs: () => options.baseMs ?? PATIENCE_SILENCE_MS.natural,
    memory: new MapPatienceMemory(),
  });
  const afterTurns = options.afterTurns ?? 20;
  let learning = 0;
  let after = 0;
  let counted = 0;
  for (let turn = 0; turn < (options.maxLearningTurns ?? 10) && counted === 0; turn++) {
    if (runTurn(clock, learner, pauseMs, replyDelayMs)) learning++;
    else counted = 1;
  }
  for (; counted < afterTurns; counted++) if (runTurn(clock, learner, pauseMs, replyDelayMs)) after++;
  return { adaptiveCutoffsLearning: learning, adaptiveCutoffsAfter: after };
}
