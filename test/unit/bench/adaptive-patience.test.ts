// The bench's adaptive run (issue #52 evidence): a speaker pausing 1.2 s mid-sentence is cut at
// most twice while the learner learns, then not once in the next 20 turns.
import { describe, expect, it } from 'vitest';
import { simulateAdaptivePatience } from '../../../bench/lib/adaptive-patience.ts';

describe('simulateAdaptivePatience', () => {
  it('meets the issue’s targets with the service replying the instant its window ends', () => {
    const result = simulateAdaptivePatience();
    expect(result).toEqual({ adaptiveCutoffsLearning: 2, adaptiveCutoffsAfter: 0 });
  });

  it('a reply delay hides part of the learning, never brings cut-offs back', () => {
    const result = simulateAdaptivePatience({ replyDelayMs: 300 });
    expect(result.adaptiveCutoffsLearning).toBeLessThanOrEqual(2);
    expect(result.adaptiveCutoffsAfter).toBe(0);
  });

  it('counts what a learner that cannot reach the pause leaves: every turn cut', () => {
    const result = simulateAdaptivePatience({ pauseMs: 4000, afterTurns: 5, maxLearningTurns: 3 });
    expect(result).toEqual({ adaptiveCutoffsLearning: 3, adaptiveCutoffsAfter: 5 });
  });
});
