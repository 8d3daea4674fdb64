// The Gemini stall watch owes the user an answer from the end of their utterance until a new turn
// of the model begins. The tail of an earlier reply (its last audio, generationComplete, its
// turnComplete at the end of playback) can reach the client after the utterance ended; it is no
// answer. Once the watch took any message as the answer, and turnComplete stopped its timer: a
// socket that went silent then was never found stalled, and every word said after was lost.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../main/core/contracts/clock.ts';
import { StallWatch } from '../../../main/core/model/gemini/stall-watch.ts';

const STALL_MS = 300;

function watch(turnOpen: { value: boolean }) {
  const clock = new ManualClock(1_000_000);
  const stalls: { silentMs: number; awaited: boolean }[] = [];
  const stall = new StallWatch({
    clock,
    stallMs: STALL_MS,
    midTurn: () => turnOpen.value,
    onStall: (silentMs, awaited) => stalls.push({ silentMs, awaited }),
  });
  return { clock, stall, stalls };
}

describe('the Gemini stall watch and an utterance said at the end of a reply', () => {
  it('the reply’s tail arriving after the utterance ended is no answer: a silent socket is found stalled', () => {
    const turnOpen = { value: false };
    const { clock, stall, stalls } = watch(turnOpen);
    // A reply begins and is sent faster than real time: 200 ms of audio.
    stall.serverMessage();
    stall.modelActivity(false);
    turnOpen.value = true;
    stall.audio(24 * 200);
    // The user's utterance ends; the reply's last messages reach the client after.
    stall.awaitReply();
    clock.advance(10);
    stall.serverMessage();
    stall.modelActivity(true);
    stall.serverMessage();
    stall.generationComplete();
    // The socket says nothing more.
    clock.advance(2000);
    expect(stalls).toEqual([{ silentMs: expect.any(Number), awaited: true }]);
  });

  it('the earlier reply’s turnComplete does not end the wait; silence after it is a stall', () => {
    const turnOpen = { value: false };
    const { clock, stall, stalls } = watch(turnOpen);
    stall.serverMessage();
    stall.modelActivity(false);
    turnOpen.value = true;
    stall.serverMessage();
    stall.generationComplete();
    stall.awaitReply();
    clock.advance(100);
    stall.serverMessage();
    turnOpen.value = false;
    stall.turnCompleted(true);
    clock.advance(STALL_MS - 1);
    expect(stalls).toEqual([]);
    clock.advance(2000);
    expect(stalls).toEqual([{ silentMs: expect.any(Number), awaited: true }]);
  });

  it('a new turn answers; an empty turnComplete answers with nothing; neither is a stall', () => {
    const turnOpen = { value: false };
    const { clock, stall, stalls } = watch(turnOpen);
    stall.awaitReply();
    clock.advance(100);
    stall.serverMessage();
    stall.modelActivity(false);
    turnOpen.value = true;
    stall.serverMessage();
    stall.generationComplete();
    clock.advance(2000);
    stall.awaitReply();
    clock.advance(100);
    stall.serverMessage();
    turnOpen.value = false;
    stall.turnCompleted(false);
    clock.advance(5000);
    expect(stalls).toEqual([]);
  });

  it('while the earlier reply still plays, the service may wait for its end before it answers', () => {
    const turnOpen = { value: false };
    const { clock, stall, stalls } = watch(turnOpen);
    stall.serverMessage();
    stall.modelActivity(false);
    turnOpen.value = true;
    stall.audio(24 * 3000);
    stall.generationComplete();
    stall.awaitReply();
    clock.advance(3000);
    expect(stalls).toEqual([]);
    clock.advance(STALL_MS + 50);
    expect(stalls).toHaveLength(1);
  });
});
