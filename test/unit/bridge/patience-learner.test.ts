// The adaptive patience learner (issue #52 item 3) on a manual clock: cut-offs lengthen a speaker's
// window one step, clean turns drift it back only past the pauses they still make, the setting is
// the floor, and the effective window is the longest of who is talking.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../main/core/contracts/clock.ts';
import { PATIENCE_STEPS_MS } from '../../../main/core/contracts/patience.ts';
import {
  CUTOFF_WINDOW_MS,
  DRIFT_AFTER_CLEAN_TURNS,
  MapPatienceMemory,
  PatienceLearner,
} from '../../../main/core/bridge/patience-learner.ts';

function setup(baseMs = 800) {
  const clock = new ManualClock(1_000_000);
  const memory = new MapPatienceMemory();
  const changes: number[] = [];
  const learner = new PatienceLearner({
    clock,
    baseMs: () => baseMs,
    memory,
    name: (id) => `name of ${id}`,
    onChange: (ms) => changes.push(ms),
  });
  return { clock, memory, learner, changes };
}

type Setup = ReturnType<typeof setup>;

/**
 * A turn with a mid-sentence pause of `pauseMs` against a silence-window service that replies the
 * instant the window ends: cut when the window is shorter than the pause. Returns whether it was.
 */
function turnWithPause({ clock, learner }: Setup, id: string, pauseMs: number): boolean {
  learner.speechStarted(id);
  clock.advance(1000);
  learner.speechEnded(id);
  const window = learner.effectiveMs();
  const cut = window < pauseMs;
  if (cut) {
    clock.advance(window);
    learner.replyStarted();
    clock.advance(pauseMs - window);
  } else clock.advance(pauseMs);
  learner.speechStarted(id);
  clock.advance(1000);
  learner.speechEnded(id);
  clock.advance(learner.effectiveMs());
  learner.replyStarted();
  clock.advance(3000);
  return cut;
}

/** A turn with no pause inside it, answered and not resumed. */
function cleanTurn({ clock, learner }: Setup, id: string): void {
  learner.speechStarted(id);
  clock.advance(1500);
  learner.speechEnded(id);
  clock.advance(learner.effectiveMs());
  learner.replyStarted();
  clock.advance(3000);
}

describe('PatienceLearner', () => {
  it('a speaker cut twice at a 1.2 s pause moves to a window over 1.2 s and then stays there', () => {
    const s = setup();
    expect(turnWithPause(s, 'ann', 1200)).toBe(true);
    expect(s.learner.windowOf('ann')).toBe(1100);
    expect(turnWithPause(s, 'ann', 1200)).toBe(true);
    expect(s.learner.windowOf('ann')).toBe(1400);
    for (let i = 0; i < 40; i++) expect(turnWithPause(s, 'ann', 1200)).toBe(false);
    expect(s.learner.windowOf('ann')).toBe(1400);
    expect(s.memory.get('ann')).toMatchObject({ windowMs: 1400, cutoffs: 2, name: 'name of ann' });
  });

  it('drifts back one step after the clean turns, once the long pauses stopped, down to the setting', () => {
    const s = setup();
    turnWithPause(s, 'ann', 1200);
    turnWithPause(s, 'ann', 1200);
    expect(s.learner.windowOf('ann')).toBe(1400);
    for (let i = 0; i < DRIFT_AFTER_CLEAN_TURNS - 1; i++) cleanTurn(s, 'ann');
    expect(s.learner.windowOf('ann')).toBe(1400);
    cleanTurn(s, 'ann');
    expect(s.learner.windowOf('ann')).toBe(1100);
    for (let i = 0; i < DRIFT_AFTER_CLEAN_TURNS; i++) cleanTurn(s, 'ann');
    // 800 is the setting: the learnt window is gone, the floor remains.
    expect(s.learner.windowOf('ann')).toBe(800);
    expect(s.memory.get('ann')).toMatchObject({ windowMs: 0, cutoffs: 2 });
    for (let i = 0; i < 3 * DRIFT_AFTER_CLEAN_TURNS; i++) cleanTurn(s, 'ann');
    expect(s.learner.windowOf('ann')).toBe(800);
  });

  it('is bounded by the longest step', () => {
    const s = setup();
    // Each time cut again 0.5 s into the reply, whatever the window.
    for (let i = 0; i < 20; i++) turnWithPause(s, 'ann', s.learner.windowOf('ann') + 500);
    expect(s.learner.windowOf('ann')).toBe(PATIENCE_STEPS_MS.at(-1));
  });

  it('a resumption after the cut-off window, or by someone the reply did not answer, is no cut-off', () => {
    const s = setup();
    s.learner.speechStarted('ann');
    s.clock.advance(1000);
    s.learner.speechEnded('ann');
    s.clock.advance(800);
    s.learner.replyStarted();
    s.clock.advance(300);
    s.learner.speechStarted('bob'); // Bob talks over the reply to Ann: a barge-in, not Ann's pause
    s.clock.advance(CUTOFF_WINDOW_MS);
    s.learner.speechStarted('ann'); // Ann answers back after the window: her turn had ended
    expect(s.learner.windowOf('ann')).toBe(800);
    expect(s.learner.windowOf('bob')).toBe(800);
    expect(s.memory.list()).toEqual([]);
  });

  it('going on after a short reply played out is no cut-off: they were answered', () => {
    const s = setup();
    s.learner.speechStarted('ann');
    s.clock.advance(1000);
    s.learner.speechEnded('ann');
    s.clock.advance(800);
    s.learner.replyStarted(); // "Okay." (300 ms)
    s.clock.advance(500);
    s.learner.speechStarted('ann', false);
    expect(s.learner.windowOf('ann')).toBe(800);
    expect(s.memory.list()).toEqual([]);
  });

  it('the effective window is the longest of the turn’s speakers, kept until someone speaks again', () => {
    const s = setup();
    turnWithPause(s, 'ann', 1000); // Ann: 1100
    s.changes.length = 0;
    s.learner.speechStarted('bob');
    expect(s.learner.effectiveMs()).toBe(800);
    s.learner.speechStarted('ann');
    expect(s.learner.effectiveMs()).toBe(1100);
    s.learner.speechEnded('ann');
    s.learner.speechEnded('bob');
    s.clock.advance(1100);
    s.learner.replyStarted();
    // The reply does not change the window; the next speaker does.
    expect(s.changes).toEqual([800, 1100]);
    s.clock.advance(3000);
    s.learner.speechStarted('bob');
    expect(s.changes).toEqual([800, 1100, 800]);
  });

  it('remembers across learners on one memory (another call), and forgets on reset', () => {
    const s = setup();
    turnWithPause(s, 'ann', 1200);
    s.learner.callEnded();
    const again = new PatienceLearner({ clock: s.clock, baseMs: () => 800, memory: s.memory });
    expect(again.windowOf('ann')).toBe(1100);
    expect(again.list().map((r) => r.speakerId)).toEqual(['ann']);
    expect(again.reset('ann')).toBe(true);
    expect(again.reset('ann')).toBe(false);
    expect(again.windowOf('ann')).toBe(800);
  });

  it('a longer setting is the floor: nothing shorter is ever used, and a cut goes one step over it', () => {
    const s = setup(1400);
    expect(s.learner.windowOf('ann')).toBe(1400);
    turnWithPause(s, 'ann', 1500);
    expect(s.learner.windowOf('ann')).toBe(1800);
  });
});
