// What a Gemini session hands the model link when it gives up (issue #55): the user's speech no
// service answered, whole for as long as its retries last (~26-34 s), not just its last 5 s of
// held audio; an answer clears it. A resumable handle does not: the session the call opens after
// one that gave up is fresh and heard none of it (short run 14 lost the word a stall's resumed
// socket took, got a handle for, and lost to the outage 150 ms later).
import { describe, expect, it } from 'vitest';
import { GeminiAudioInput } from '../../../main/core/model/gemini/audio-input.ts';

/** `seconds` of 20 ms chunks, each filled with its utterance's number. */
function say(input: GeminiAudioInput, n: number, seconds: number): void {
  for (let i = 0; i < seconds * 50; i++) input.send(null, new Int16Array(320).fill(n));
  input.end(null);
}

describe('GeminiAudioInput.takeUnanswered', () => {
  it('keeps 25 s said while no socket was up (the session retrying), in order with the ends', () => {
    const input = new GeminiAudioInput(5000, 30_000);
    for (const n of [1, 2, 3, 4, 5]) say(input, n, 5);
    const taken = input.takeUnanswered();
    const utterances = taken.filter((c) => c === null).length;
    const first = taken.find((c): c is Int16Array => c !== null);
    const samples = taken.reduce((sum, c) => sum + (c?.length ?? 0), 0);
    expect(utterances).toBe(5);
    expect(first?.[0]).toBe(1);
    expect(samples).toBe(25 * 16_000);
    // Taken once: a second call has nothing.
    expect(input.takeUnanswered()).toEqual([]);
  });

  it("keeps every utterance of a retry's length when paced silence follows each (pauses kept at 1 s, the link's cap)", () => {
    // The bridge paces silence after each utterance up to the silence cap (~5 s) when no service
    // ends the turn; kept whole, those pauses filled the session's 30 s while it retried, and the
    // oldest utterances gave way before it could hand them over (this test failed so before the cap).
    const input = new GeminiAudioInput(5000, 30_000);
    const silence = new Int16Array(320);
    for (const n of [1, 2, 3, 4, 5, 6, 7, 8]) {
      for (let i = 0; i < 2 * 50; i++) input.send(null, new Int16Array(320).fill(n));
      for (let i = 0; i < 5 * 50; i++) input.send(null, silence);
      input.end(null);
    }
    const taken = input.takeUnanswered();
    const said = new Set(taken.filter((c): c is Int16Array => c !== null && c[0] !== 0).map((c) => c[0]));
    expect([...said]).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(taken.filter((c) => c === null).length).toBe(8);
  });

  it('a handle that covered it does not clear it: a session that gives up hands it over', () => {
    const input = new GeminiAudioInput(5000, 30_000);
    say(input, 1, 1);
    input.covered();
    say(input, 2, 1);
    const said = new Set(input.takeUnanswered().flatMap((c) => (c === null ? [] : [c[0]])));
    expect([...said]).toEqual([1, 2]);
  });

  it('nothing once the model answered', () => {
    const input = new GeminiAudioInput(5000, 30_000);
    say(input, 1, 1);
    input.answered();
    expect(input.takeUnanswered()).toEqual([]);
  });
});
